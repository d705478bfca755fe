// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// What can be continued now (docs/agent.md §6): the activities other
/// devices offer that something here would continue (a running app, an
/// installed one, or the browser for its web page), each with what would.
/// One hub observer decides it; the notifications and the tray listen.
///
/// Threads: the hub's calls only post to the loop; `offers`, `listen` and
/// the listeners run on the loop thread.
///
/// Bounds: the hub's own (it holds what the engine offers); listeners are
/// the agent's few surfaces (`maxListeners`).
final class ContinuableOffers: ContinuityEndpoint, @unchecked Sendable {
    // @unchecked: touched on the loop thread only (the endpoint methods post).
    static let maxListeners = 4

    struct Offer {
        var remote: RemoteActivity
        var target: ContinueTarget
        var activityID: ActivityID { remote.activityID }
    }

    enum Change {
        /// New (`isNew`) or changed; what continues it may have changed too.
        case shown(Offer, isNew: Bool)
        /// No longer continuable (withdrawn, or nothing here continues it).
        case gone(ActivityID)
        /// Offered (new or changed, keep-alives included), and nothing here
        /// continues it: after `.gone` when it was continuable before. The
        /// notifications say so once ("No app here continues …").
        case notContinuable(RemoteActivity)
        /// The activity left (after `.gone` when it was continuable).
        case withdrawn(ActivityID)
    }

    struct Listener: Hashable {
        fileprivate let id: Int
    }

    private unowned let server: AgentServer
    private var port: HubPort?
    /// Oldest first.
    private(set) var offers: [Offer] = []
    private var listeners: [(id: Int, body: (Change) -> Void)] = []
    private var nextListener = 0

    init(server: AgentServer) {
        self.server = server
    }

    /// Starts hearing the hub. Loop thread; idempotent.
    func start() {
        guard port == nil else { return }
        let port = server.hub.makePort()
        self.port = port
        port.attach(self)
    }

    /// Lets go of the hub. Loop thread.
    func stop() {
        port?.detach()
        port = nil
    }

    /// The newest first (what a menu lists on top).
    var newestFirst: [Offer] { offers.reversed() }

    func offer(_ id: ActivityID) -> Offer? { offers.first { $0.activityID == id } }

    /// `body` hears every change from now on; nil past `maxListeners`.
    @discardableResult
    func listen(_ body: @escaping (Change) -> Void) -> Listener? {
        guard listeners.count < Self.maxListeners else { return nil }
        nextListener += 1
        listeners.append((nextListener, body))
        return Listener(id: nextListener)
    }

    func unlisten(_ listener: Listener) {
        listeners.removeAll { $0.id == listener.id }
    }

    // MARK: ContinuityEndpoint (an observer: every activity, ungated)

    var manifest: Manifest { EndpointHub.identity }
    var audience: ActivityAudience { .observer }

    func remoteActivityChanged(_ change: RemoteActivityChange) {
        server.loop.post { [weak self] in self?.apply(change) }
    }

    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        _ = reply(.failure(HandoffError(.handoffFailed, "the agent's observer advertises nothing")))
    }

    func activityWasContinued(_ activityID: ActivityID) {}
    /// Choices go through the server (`choose`).
    func continueChosen(_ remote: RemoteActivity) {}

    // MARK: Loop thread

    private func apply(_ change: RemoteActivityChange) {
        switch change {
        case .available(let remote), .updated(let remote):
            // Installed apps are looked at again only for a new activity.
            var rescan = false
            if case .available = change { rescan = true }
            guard let target = server.routing.continuer(of: remote, rescanning: rescan) else {
                remove(remote.activityID)
                tell(.notContinuable(remote))
                return
            }
            let offer = Offer(remote: remote, target: target)
            if let index = offers.firstIndex(where: { $0.activityID == remote.activityID }) {
                offers[index] = offer
                tell(.shown(offer, isNew: false))
            } else {
                offers.append(offer)
                tell(.shown(offer, isNew: true))
            }
        case .withdrawn(let remote):
            remove(remote.activityID)
            tell(.withdrawn(remote.activityID))
        }
    }

    private func remove(_ id: ActivityID) {
        guard let index = offers.firstIndex(where: { $0.activityID == id }) else { return }
        offers.remove(at: index)
        tell(.gone(id))
    }

    private func tell(_ change: Change) {
        for listener in listeners { listener.body(change) }
    }
}
