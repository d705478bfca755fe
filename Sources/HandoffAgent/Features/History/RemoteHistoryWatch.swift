// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// Other devices' activities into the history, when the person turned it
/// on (docs/history.md "What is indexed"): a remote activity shown here
/// for `dwell` seconds is fetched once, as a handoff fetches it (the other
/// app is not told it was continued: no CONFIRM), and kept if its payload
/// says eligible for search. An activity updated later is fetched again,
/// at most once a `refetchAfter`.
///
/// A hub observer and a loop source (no descriptor: only its timeout).
/// Bounds: `maxFetching` fetches at once, `maxRemembered` activities
/// remembered as fetched (the oldest forgotten first).
final class RemoteHistoryWatch: ContinuityEndpoint, AgentLoopSource, @unchecked Sendable {
    // @unchecked: loop thread only (the endpoint methods post).
    static let dwell = 10.0
    static let refetchAfter = 60.0
    static let maxFetching = 2
    static let maxRemembered = 1024

    private unowned let server: AgentServer
    private let history: AgentHistory
    private var port: HubPort?
    /// Shown now and not yet fetched: when each is due.
    private var waiting: [ActivityID: (remote: RemoteActivity, due: Double)] = [:]
    /// When each was last fetched, oldest first in `order`.
    private var fetchedAt: [ActivityID: Double] = [:]
    private var order: [ActivityID] = []
    private var fetching = 0
    /// Fetches made, payloads kept (for tests and the log).
    private(set) var fetches = 0

    init(server: AgentServer, history: AgentHistory) {
        self.server = server
        self.history = history
    }

    func start() {
        guard port == nil else { return }
        let port = server.hub.makePort()
        self.port = port
        port.attach(self)
    }

    func loopWillStop() {
        port?.detach()
        port = nil
    }

    // MARK: ContinuityEndpoint (an observer)

    var manifest: Manifest { EndpointHub.identity }
    var audience: ActivityAudience { .observer }

    func remoteActivityChanged(_ change: RemoteActivityChange) {
        server.loop.post { [weak self] in self?.apply(change) }
    }

    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        _ = reply(.failure(HandoffError(.handoffFailed, "the history's observer advertises nothing")))
    }

    func activityWasContinued(_ activityID: ActivityID) {}
    func continueChosen(_ remote: RemoteActivity) {}

    // MARK: Loop thread

    private func apply(_ change: RemoteActivityChange) {
        switch change {
        case .available(let remote), .updated(let remote):
            let now = monotonicSeconds()
            if let last = fetchedAt[remote.activityID], now - last < Self.refetchAfter { return }
            guard history.keeps(remote) else { return }
            if let kept = waiting[remote.activityID] {
                waiting[remote.activityID] = (remote, kept.due)
            } else {
                waiting[remote.activityID] = (remote, now + Self.dwell)
            }
        case .withdrawn(let remote):
            waiting[remote.activityID] = nil
        }
    }

    var fd: Int32 { -1 }
    var pollEvents: Int16 { 0 }

    var timeoutMilliseconds: Int32 {
        guard fetching < Self.maxFetching, let due = waiting.values.map(\.due).min() else { return -1 }
        return Int32(min(Double(Int32.max), max(0, (due - monotonicSeconds()) * 1000).rounded(.up)))
    }

    func process() {
        let now = monotonicSeconds()
        let due = waiting.filter { $0.value.due <= now }.sorted { $0.value.due < $1.value.due }
        for (id, item) in due where fetching < Self.maxFetching {
            waiting[id] = nil
            guard history.keeps(item.remote), let port else { continue }
            remember(id, at: now)
            fetching += 1
            fetches += 1
            let remote = item.remote
            port.fetchAsSent(remote) { [weak self] result in
                self?.server.loop.post { [weak self] in
                    guard let self else { return }
                    self.fetching -= 1
                    if case .success(let payload) = result { self.history.indexRemote(payload, remote) }
                }
            }
        }
    }

    private func remember(_ id: ActivityID, at time: Double) {
        if fetchedAt.updateValue(time, forKey: id) == nil { order.append(id) }
        while order.count > Self.maxRemembered { fetchedAt[order.removeFirst()] = nil }
    }
}
