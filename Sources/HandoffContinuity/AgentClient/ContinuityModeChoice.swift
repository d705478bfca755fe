// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// How an application reaches the person's other devices.
public enum ContinuityMode: Sendable, Equatable {
    /// The agent when it serves this user and account, else embedded.
    case automatic
    /// Through the per-user agent (`AgentClient`), or not at all.
    case agent
    /// An engine of the app's own (`ContinuityEngine`).
    case embedded
}

/// The choice between the agent and an embedded engine (docs/agent.md §3
/// "Choosing the mode"), in one place: `handoff_application_start_continuity`
/// and the `handoff` command both use it.
///
/// - automatic: the agent when the options name no device-level setting,
///   its socket accepts this user and its WELCOME names the same account;
///   otherwise embedded (whatever went wrong with the agent).
/// - agent: the agent or an error: `.connectionUnavailable` naming the
///   socket (none, not this user's, no WELCOME), `.invalidState` when it
///   serves another account, `.invalidArgument` when the options name a
///   device-level setting (the agent owns the device).
/// - embedded: always the engine.
public struct ContinuityModeChoice: Sendable {
    public var mode: ContinuityMode
    /// The account the app's options name (`DerivedKeys.accountID`).
    public var accountID: String
    /// The device-level settings the options name, by their option names
    /// (`device_id`, `beacon_port`, ...): each asks for an engine of the
    /// app's own.
    public var deviceSettings: [String] = []
    /// The agent's socket; nil when there is no runtime directory.
    public var socketPath: String? = AgentSocketPath.resolve()
    /// As the embedded engine's: they bound the agent client's waits.
    public var fetchTimeout: Double = 5
    public var connectTimeout: Double = 3
    /// How long connecting to the agent and its WELCOME may take.
    public var handshakeTimeout: Double = 5
    /// Sees every team's activities (the `handoff` command's HELLO).
    public var observer = false
    /// AUTO mode moves to the agent when one appears and back to an
    /// engine when it goes (`FollowingContinuityService`); `start`'s
    /// `embedded` is then called again for each move back.
    public var follow = false

    public init(mode: ContinuityMode, accountID: String) {
        self.mode = mode
        self.accountID = accountID
    }

    /// The service for an app with `manifest`, and the mode it runs in
    /// (`.agent` or `.embedded`). `embedded` builds the engine; it is only
    /// called when the choice is embedded.
    public func start(manifest: Manifest,
                      embedded: @escaping @Sendable () throws(HandoffError) -> any ContinuityService) throws(HandoffError) -> (service: any ContinuityService, mode: ContinuityMode) {
        switch mode {
        case .embedded:
            return (try embedded(), .embedded)
        case .automatic:
            if follow, deviceSettings.isEmpty {
                let service = try FollowingContinuityService(choice: self, manifest: manifest, makeEngine: embedded)
                return (service, service.mode)
            }
            guard deviceSettings.isEmpty, let client = try? agentClient(manifest: manifest) else {
                return (try embedded(), .embedded)
            }
            return (client, .agent)
        case .agent:
            if let setting = deviceSettings.first {
                throw HandoffError(.invalidArgument, "options.\(setting) asks for an engine of the app's own, but the mode is "
                                   + "HANDOFF_CONTINUITY_MODE_AGENT, where the agent owns the device: leave it unset, "
                                   + "or choose HANDOFF_CONTINUITY_MODE_EMBEDDED")
            }
            return (try agentClient(manifest: manifest), .agent)
        }
    }

    /// A client connected to the agent, past its WELCOME.
    func agentClient(manifest: Manifest, onLost: (@Sendable (String) -> Void)? = nil) throws(HandoffError) -> AgentClient {
        guard let socketPath else {
            throw HandoffError(.connectionUnavailable, "no handoff agent can run: neither XDG_RUNTIME_DIR nor HANDOFF_AGENT_SOCKET is set")
        }
        var options = AgentClient.Options(socketPath: socketPath, accountID: accountID)
        options.fetchTimeout = fetchTimeout
        options.connectTimeout = connectTimeout
        options.handshakeTimeout = handshakeTimeout
        options.observer = observer
        options.onLost = onLost
        do {
            return try AgentClient(options: options, manifest: manifest)
        } catch {
            if error.code == .invalidState || error.code == .io { throw error }
            // The agent's own words when it refused this app; else the socket named.
            let message = error.message.containsCharacters(socketPath) ? error.message : "no handoff agent at \(socketPath): \(error.message)"
            throw HandoffError(.connectionUnavailable, message)
        }
    }
}
