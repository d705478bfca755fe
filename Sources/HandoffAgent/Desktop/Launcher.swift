import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Starts an installed app so it can be handed an activity (docs/agent.md
/// §5): D-Bus activation for `DBusActivatable=true` entries, else the
/// entry's `Exec` as a detached process. Never through a shell, and nothing
/// from the activity is put on the command line (`ExecCommandLine`).
public struct Launcher {
    /// How an app is being started.
    public enum Launch: Sendable, Equatable {
        /// `org.freedesktop.Application.Activate` was sent to this name;
        /// the outcome comes to `activated`.
        case dbus(DBusApplicationName)
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

    /// Starts the app. For `.process` it has started when this returns;
    /// for `.dbus` the call is sent and `activated` hears the answer (on the
    /// bus's loop thread). `activated` is not called for `.process`.
    ///
    /// `activationToken` (from the notification the person clicked) goes
    /// into D-Bus platform data; an `Exec` gets the agent's environment
    /// unchanged.
    /// - Throws: `.handoffFailed` when the program is not found or does not
    ///   start, or the call cannot be sent; `.connectionUnavailable` for a
    ///   D-Bus-only app without a session bus.
    public func launch(_ app: InstalledApp, activationToken: String? = nil,
                       activated: @escaping (Result<Void, HandoffError>) -> Void = { _ in }) throws(HandoffError) -> Launch {
        if app.dbusActivatable, let name = DBusApplicationName(desktopID: app.desktopID) {
            if let dbus {
                try dbus.activateApplication(desktopID: app.desktopID, activationToken: activationToken, completion: activated)
                return .dbus(name)
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
