// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Starts an installed app so it can be handed an activity (docs/agent.md
/// §5): D-Bus activation for `DBusActivatable=true` entries, else (or when
/// activation fails) the entry's `Exec` as a detached process. Never
/// through a shell, and nothing from the activity is put on the command
/// line (`ExecCommandLine`).
///
/// Threads: the agent's loop thread; the D-Bus answer comes on it too.
public struct Launcher {
    /// How an app is being started (at once).
    public enum Launch: Sendable, Equatable {
        /// `org.freedesktop.Application.Activate` was sent to this name;
        /// what became of it comes to the completion.
        case dbus(DBusApplicationName)
        /// `Exec` runs as this process (not the agent's child).
        case process(pid: Int32)
        /// The activation call could not be sent (no session bus, ...):
        /// `Exec` runs as this process instead.
        case processInstead(pid: Int32, dbusFailed: HandoffError)
    }

    /// What became of a D-Bus activation (the completion of `launch`).
    public enum Outcome: Sendable, Equatable {
        /// The app answered Activate.
        case activated
        /// Activation failed (an error reply, no service file, the bus gone,
        /// no answer in time): `Exec` runs as this process instead.
        case processInstead(pid: Int32, dbusFailed: HandoffError)
        /// Activation failed and there is no `Exec`, or it did not start.
        case failed(HandoffError)
    }

    /// The D-Bus part, or nil when the agent has none: then a
    /// D-Bus-activatable app with an `Exec` is started by its `Exec`.
    public var dbus: (any DBusActivating)?
    /// Moves each `Exec` program into a systemd scope of its own, when the
    /// agent has a user manager to ask (nil: it stays where it is).
    public var scopes: (any ScopePlacing)?
    /// Hears what became of each scope request (the agent logs it).
    public var onScope: ((_ app: InstalledApp, _ pid: Int32, _ result: Result<String, HandoffError>) -> Void)?
    /// Where an `Exec` program named without a path is looked for.
    public var searchPath: [String]

    public init(dbus: (any DBusActivating)?, scopes: (any ScopePlacing)? = nil,
                searchPath: [String] = XDGDataDirectories.current().searchPath) {
        self.dbus = dbus
        self.scopes = scopes
        self.searchPath = searchPath
    }

    /// Starts the app. A process has started when this returns; for
    /// `.dbus` the call is sent and `completion` hears, on a later turn of
    /// the loop, whether the app answered, or which `Exec` process replaced
    /// it. `completion` is called only after `.dbus`.
    ///
    /// `activationToken` (from the notification the person clicked) goes
    /// into D-Bus platform data and an `Exec` program's environment
    /// (`ActivationToken`).
    /// - Throws: `.handoffFailed` when the program is not found or does not
    ///   start; for a D-Bus-only app, `.connectionUnavailable` without a
    ///   session bus and the activation's error when the call cannot be sent.
    public func launch(_ app: InstalledApp, activationToken: String? = nil,
                       completion: @escaping (Outcome) -> Void = { _ in }) throws(HandoffError) -> Launch {
        let token = ActivationToken.checked(activationToken)
        var dbusFailed: HandoffError?
        if app.dbusActivatable, let name = DBusApplicationName(desktopID: app.desktopID) {
            if let dbus {
                do {
                    try dbus.activateApplication(desktopID: app.desktopID, activationToken: token) { result in
                        completion(self.afterActivation(app, result, token: token))
                    }
                    return .dbus(name)
                } catch {
                    guard app.exec != nil else { throw error }
                    dbusFailed = error
                }
            } else if app.exec == nil {
                throw HandoffError(.connectionUnavailable, "\(app.desktopFile): the app is started by D-Bus activation only, and the agent has no session bus")
            }
        }
        let pid = try start(app, token: token)
        if let dbusFailed { return .processInstead(pid: pid, dbusFailed: dbusFailed) }
        return .process(pid: pid)
    }

    private func afterActivation(_ app: InstalledApp, _ result: Result<Void, HandoffError>, token: String?) -> Outcome {
        guard case .failure(let error) = result else { return .activated }
        guard app.exec != nil else { return .failed(error) }
        do {
            return .processInstead(pid: try start(app, token: token), dbusFailed: error)
        } catch {
            return .failed(HandoffError(error.code, "\(error.message) (after D-Bus activation failed)"))
        }
    }

    /// Runs the entry's `Exec`, then asks for its scope.
    private func start(_ app: InstalledApp, token: String?) throws(HandoffError) -> Int32 {
        guard let exec = app.exec else {
            throw HandoffError(.handoffFailed, "\(app.desktopFile): no Exec to start")
        }
        let pid = try run(exec, in: app.workingDirectory, for: app.desktopFile, activationToken: token)
        if let scopes {
            let report = onScope
            scopes.placeInScope(pid: pid, desktopID: app.desktopID, description: app.name ?? app.bundleIdentifier) { result in
                report?(app, pid, result)
            }
        }
        return pid
    }

    /// Starts a parsed command line; `source` names the entry in errors.
    public func run(_ exec: ExecCommandLine, in directory: String? = nil, for source: String,
                    activationToken: String? = nil) throws(HandoffError) -> Int32 {
        guard let path = ExecutableLookup.find(exec.program, in: searchPath) else {
            let where_ = exec.program.hasPrefix("/") ? "" : " in PATH (\(searchPath.joined(separator: ":")))"
            throw HandoffError(.handoffFailed, "\(source): Exec program \(DesktopEntry.quoted(exec.program)) is not an executable file\(where_)")
        }
        return try DetachedProcess.spawn(path, exec.arguments, directory: directory, activationToken: activationToken)
    }
}
