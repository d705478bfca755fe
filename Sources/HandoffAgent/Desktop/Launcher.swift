import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Starts an installed app so it can be handed an activity (docs/agent.md
/// §5): D-Bus activation for `DBusActivatable=true` entries, else the
/// entry's `Exec` as a detached process. Never through a shell, and nothing
/// from the activity is put on the command line (`ExecCommandLine`).
public struct Launcher {
    /// How an app was started.
    public enum Launch: Sendable, Equatable {
        /// `org.freedesktop.Application.Activate` was called at this address.
        case dbus(DBusApplicationAddress)
        /// `Exec` runs as this process (not the agent's child).
        case process(pid: Int32)
    }

    /// The D-Bus part, or nil when the agent has no session bus: then a
    /// D-Bus-activatable app with an `Exec` is started by its `Exec`.
    public var dbus: (any DBusActivating)?
    /// Where an `Exec` program named without a path is looked for.
    public var searchPath: [String]

    public init(dbus: (any DBusActivating)?, searchPath: [String] = XDGDataDirectories.current().searchPath) {
        self.dbus = dbus
        self.searchPath = searchPath
    }

    /// - Throws: `.handoffFailed` when the program is not found or does not
    ///   start, or the D-Bus call fails; `.connectionUnavailable` for a
    ///   D-Bus-only app without a session bus.
    public func launch(_ app: InstalledApp) throws(HandoffError) -> Launch {
        if app.dbusActivatable, let address = DBusApplicationAddress(desktopID: app.desktopID) {
            if let dbus {
                try dbus.activate(address, platformData: [:])
                return .dbus(address)
            }
            guard app.exec != nil else {
                throw HandoffError(.connectionUnavailable, "\(app.desktopFile): the app is started by D-Bus activation only, and the agent has no session bus")
            }
        }
        guard let exec = app.exec else {
            throw HandoffError(.handoffFailed, "\(app.desktopFile): no Exec to start")
        }
        return .process(pid: try run(exec, in: app.workingDirectory, for: app.desktopFile))
    }

    /// Starts a parsed command line; `source` names the entry in errors.
    public func run(_ exec: ExecCommandLine, in directory: String? = nil, for source: String) throws(HandoffError) -> Int32 {
        guard let path = ExecutableLookup.find(exec.program, in: searchPath) else {
            let where_ = exec.program.hasPrefix("/") ? "" : " in PATH (\(searchPath.joined(separator: ":")))"
            throw HandoffError(.handoffFailed, "\(source): Exec program \(DesktopEntry.quoted(exec.program)) is not an executable file\(where_)")
        }
        return try DetachedProcess.spawn(path, exec.arguments, directory: directory)
    }
}
