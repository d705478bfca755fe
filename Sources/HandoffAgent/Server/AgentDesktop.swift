// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// What the agent needs of the desktop to continue an activity no running
/// app declares (docs/agent.md §5): the installed apps, how to start one,
/// the choices kept for apps being started, and the browser. Owned by the
/// server's loop thread.
public final class AgentDesktop {
    public var installed: InstalledApps
    public var launcher: Launcher
    public var web: WebOpener
    public var pending = PendingLaunches<RemoteActivity>()
    /// The launcher's session bus, watched by the server's loop (nil: no
    /// D-Bus activation and no scopes).
    public let bus: LaunchBus?

    public init(installed: InstalledApps, launcher: Launcher, web: WebOpener, bus: LaunchBus? = nil) {
        self.installed = installed
        self.launcher = launcher
        self.web = web
        self.bus = bus
    }

    /// The desktop of the agent's own environment ($XDG_DATA_*, $PATH),
    /// launching through the session bus at `busAddress` (nil: the one the
    /// environment names, connected when a launch first needs it).
    public static func current(busAddress: String? = nil) -> AgentDesktop {
        let directories = XDGDataDirectories.current()
        let bus = LaunchBus(address: busAddress)
        return AgentDesktop(installed: InstalledApps(directories: directories),
                            launcher: Launcher(dbus: bus, scopes: bus, searchPath: directories.searchPath),
                            web: WebOpener(searchPath: directories.searchPath), bus: bus)
    }
}
