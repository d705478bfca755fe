// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime

/// The endpoint one path of a `FollowingContinuityService` (an engine or
/// the agent's client) reports to: it passes events on to the app while
/// its path is the current one, and remembers the remote activities the
/// path reported, so that leaving the path withdraws them (the new path
/// reports what it sees itself).
final class FollowingRelay: ContinuityEndpoint, @unchecked Sendable {
    // @unchecked: mutable state is in `state`.
    private struct State {
        weak var app: (any ContinuityEndpoint)?
        var reported: [RemoteActivity] = []
        var retired = false
    }
    private let state: Locked<State>
    let manifest: Manifest
    let audience: ActivityAudience

    init(_ app: any ContinuityEndpoint) {
        state = Locked(State(app: app))
        manifest = app.manifest
        audience = app.audience
    }

    /// The app, while this path is current.
    private var app: (any ContinuityEndpoint)? { state.withLock { $0.retired ? nil : $0.app } }

    /// Stops passing events on; the activities this path reported are
    /// withdrawn from the app.
    func retire() {
        let (app, reported) = state.withLock { s -> ((any ContinuityEndpoint)?, [RemoteActivity]) in
            guard !s.retired else { return (nil, []) }
            s.retired = true
            defer { s.reported = [] }
            return (s.app, s.reported)
        }
        reported.forEach { app?.remoteActivityChanged(.withdrawn($0)) }
    }

    func remoteActivityChanged(_ change: RemoteActivityChange) {
        let app: (any ContinuityEndpoint)? = state.withLock { s in
            guard !s.retired else { return nil }
            let key = change.remote
            s.reported.removeAll { $0.deviceID == key.deviceID && $0.activityID == key.activityID }
            if case .withdrawn = change {} else { s.reported.append(key) }
            if s.reported.count > 512 { s.reported.removeFirst() }  // bounded; the engine keeps fewer
            return s.app
        }
        app?.remoteActivityChanged(change)
    }

    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        guard let app else {
            _ = reply(.failure(HandoffError(.connectionUnavailable, "continuity moved between the agent and this app's engine")))
            return
        }
        app.provideActivity(activityID, reply: reply)
    }

    func activityWasContinued(_ activityID: ActivityID) { app?.activityWasContinued(activityID) }
    func handOffFailed(_ activityID: ActivityID, _ error: HandoffError) { app?.handOffFailed(activityID, error) }
    func activityServed(_ activityID: ActivityID) { app?.activityServed(activityID) }

    func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                      reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        guard let app else {
            _ = reply(.failure(HandoffError(.connectionUnavailable, "continuity moved between the agent and this app's engine")))
            return
        }
        app.acceptStream(activityID, stream, reply: reply)
    }

    func continueChosen(_ remote: RemoteActivity) { app?.continueChosen(remote) }
    func continueChosen(_ remote: RemoteActivity, activationToken: String?) {
        app?.continueChosen(remote, activationToken: activationToken)
    }
}
