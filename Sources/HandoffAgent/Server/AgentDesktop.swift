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

    public init(installed: InstalledApps, launcher: Launcher, web: WebOpener) {
        self.installed = installed
        self.launcher = launcher
        self.web = web
    }

    /// The desktop of the agent's own environment ($XDG_DATA_*, $PATH),
    /// without D-Bus activation (an entry's Exec is used instead).
    public static func current(dbus: (any DBusActivating)? = nil) -> AgentDesktop {
        let directories = XDGDataDirectories.current()
        return AgentDesktop(installed: InstalledApps(directories: directories),
                            launcher: Launcher(dbus: dbus, searchPath: directories.searchPath),
                            web: WebOpener(searchPath: directories.searchPath))
    }
}
