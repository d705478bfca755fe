// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// One per host process: the app's side of Handoff. It holds the manifest,
/// the delegate, the current activity and the responders, batches saves,
/// and runs every host callback through its `queue` on the thread that
/// created it (the application's main thread).
public final class Application: @unchecked Sendable {
    // @unchecked: mutable state sits behind `state`; the delegate is only
    // called on the main thread, inside dispatch.
    public let manifest: Manifest
    /// Host callbacks wait here; poll `queue.fd`, call `queue.dispatch()`.
    public let queue: HostQueue
    let delegate: any ApplicationDelegate
    let state = Locked(State())

    struct State: @unchecked Sendable {
        var continuity: (any ContinuityService)?
        /// What other devices offer, as last told to the delegate.
        var available: [ActivityID: RemoteActivity] = [:]
        /// Activation tokens of continuations chosen outside the app (the
        /// agent's CONTINUE), by activity, until that continuation ends.
        /// At most `maxActivationTokens` (the oldest goes).
        var activationTokens: [(ActivityID, String)] = []
        /// The token of the continuation whose callback runs now.
        var currentActivationToken: String?
        var current: UserActivity?
        var expiryTimer: HostQueue.TimerID?
        var advertised: Advertisement?
        var responders: [WeakResponder] = []
        /// Activities with a save queued, so many needsSave make one save.
        var pendingSaves: Set<ObjectIdentifier> = []
        /// Activities whose save runs now: their changes are advertised once,
        /// when the save ends.
        var savingNow: Set<ObjectIdentifier> = []
        /// Activities recently sent, by id, to tell their delegate when
        /// the other device confirms. Oldest first, bounded.
        var served: [ServedActivity] = []
        /// Activities continued here, by id, with the device they came
        /// from: where their continuation streams connect. Bounded.
        var continued: [(activity: UserActivity, remote: RemoteActivity)] = []
        /// The activity whose payload the service holds now (agent mode),
        /// at the revision it was encoded at (Application+Offering).
        var offered: (activity: UserActivity, revision: UInt64)?
        /// The activity offered last, for SERVED after it changed.
        var lastOffered: UserActivity?
        /// A job that offers the current activity again is queued.
        var offerQueued = false
        /// The activity and revision whose payload went to the history last.
        var indexed: (id: ActivityID, revision: UInt64)?
    }

    struct ServedActivity {
        let activity: UserActivity
        /// Fetches of it that the other device received and has not yet
        /// confirmed: each CONFIRM consumes one and tells the delegate, so
        /// a duplicate CONFIRM of one fetch is heard once. Bounded by
        /// `unconfirmedLimit`.
        var unconfirmed = 0
        var id: ActivityID { activity.activityID }
    }

    struct WeakResponder {
        weak var object: Responder?
    }

    /// How many sent activities are remembered for their confirmation and
    /// streams, and how many continued ones for their streams.
    static let servedLimit = 16
    /// How many fetches of one activity may await their CONFIRM (a
    /// receiver that never confirms cannot grow the count).
    static let unconfirmedLimit = 64
    static let continuedLimit = 16

    /// Creates the application on the calling thread, which becomes its
    /// main thread. The delegate is kept (strongly) until the application
    /// goes; the continuity service, if any, is attached now.
    public init(manifest: Manifest, delegate: any ApplicationDelegate,
                continuity: (any ContinuityService)? = nil) throws(HandoffError) {
        self.manifest = manifest
        self.delegate = delegate
        self.queue = try HostQueue()
        if let continuity { try start(continuity) }
    }

    deinit {
        stopContinuity()
    }

    /// Stops talking to other devices: withdraws what is advertised and,
    /// once the continuation streams have sent what their hosts wrote (a
    /// few seconds at most), closes every connection; a stream whose host
    /// had not half-closed is lost (the other side reads ECONNRESET). Idempotent; the
    /// application's deinit does it too. Any thread but a callback's.
    public func stopContinuity() {
        let service = state.withLock { s in
            defer { s.continuity = nil }
            return s.continuity
        }
        service?.detach()
    }

    /// The continuity service, once started.
    var continuity: (any ContinuityService)? { state.withLock { $0.continuity } }

    /// The continuity service, once started (nil before, and after
    /// `stopContinuity`): which one runs (engine or agent client).
    public var continuityService: (any ContinuityService)? { continuity }

    /// Starts talking to other devices through `service`: attaches it and
    /// advertises the current activity, if any. Once per application.
    /// - Throws: `.invalidState` when a service was already started.
    public func start(_ service: any ContinuityService) throws(HandoffError) {
        try state.withLock { (s) throws(HandoffError) in
            guard s.continuity == nil else {
                throw HandoffError(.invalidState, "continuity is already started for this application")
            }
            s.continuity = service
            s.advertised = nil
        }
        service.attach(self)
        readvertise()
    }

    // MARK: The current activity

    /// The activity being advertised while eligible, if any.
    public var currentActivity: UserActivity? { state.withLock { $0.current } }

    /// Makes `activity` the current one (Apple: becomeCurrent): it is
    /// offered to the person's other devices while it is eligible for
    /// Handoff and not expired. Any thread.
    /// - Throws: `.invalidState` for an invalidated activity.
    public func becomeCurrent(_ activity: UserActivity) throws(HandoffError) {
        guard !activity.isInvalidated else {
            throw HandoffError(.invalidState, "the activity was invalidated and never becomes current again; create a new one")
        }
        adopt(activity)
        let oldTimer = state.withLock { s in
            defer { s.current = activity; s.expiryTimer = nil }
            return s.expiryTimer
        }
        if let oldTimer { queue.cancel(oldTimer) }
        if let expiry = activity.expirationDate {
            let timer = queue.schedule(after: expiry.timeIntervalSinceNow) { [weak self] in self?.readvertise() }
            state.withLock { $0.expiryTimer = timer }
        }
        readvertise(touched: true)
    }

    /// Stops offering `activity` if it is current (Apple: resignCurrent);
    /// otherwise does nothing. Any thread.
    public func resignCurrent(_ activity: UserActivity) {
        let timer: HostQueue.TimerID?? = state.withLock { s in
            guard s.current === activity else { return .none }
            s.current = nil
            defer { s.expiryTimer = nil }
            return .some(s.expiryTimer)
        }
        guard case .some(let t) = timer else { return }
        if let t { queue.cancel(t) }
        readvertise()
    }

    /// Tells continuity what to offer now: the current activity if it is
    /// still eligible, unexpired and valid, else nothing. Only changes go
    /// out, except that `touched` (becomeCurrent, a save) sends what is
    /// offered again: the person used this app last, which the agent's
    /// most-recent policy must hear (docs/agent.md §4); an engine ignores
    /// an advertisement equal to its own.
    func readvertise(touched: Bool = false) {
        let change: Advertisement?? = state.withLock { s in
            let ad = s.current.flatMap(advertisement)
            guard ad != s.advertised || (touched && ad != nil) else { return .none }
            s.advertised = ad
            s.offered = nil  // an advertisement withdraws the offer
            return .some(ad)
        }
        if case .some(let ad) = change {
            continuity?.advertise(ad)
            offerCurrent(offering: ad != nil)
        } else if touched {
            // Became current or saved, not offered (not eligible for
            // Handoff): it may still be eligible for search.
            offerCurrent(offering: false)
        }
    }

    /// What to advertise for an activity, or nil when it may not be offered.
    func advertisement(for activity: UserActivity) -> Advertisement? {
        let s = activity.snapshot
        guard s.isEligibleForHandoff, !activity.isInvalidated, !activity.isExpired() else { return nil }
        return Advertisement(activityID: activity.activityID, activityType: activity.activityType, title: s.title,
                             bundleIdentifier: manifest.bundleIdentifier, teamIdentifier: manifest.teamIdentifier,
                             webpageURL: s.webpageURL, expirationDate: s.expirationDate,
                             supportsContinuationStreams: s.supportsContinuationStreams)
    }

    // MARK: Responders

    /// Registers a responder (held weakly): its `updateUserActivityState`
    /// runs when its activity is saved. Any thread.
    public func addResponder(_ responder: Responder) {
        state.withLock { s in
            s.responders.removeAll { $0.object == nil || $0.object === responder }
            s.responders.append(WeakResponder(object: responder))
        }
        responder.application = self
        if let activity = responder.userActivity { adopt(activity) }
    }

    /// Unregisters a responder. Any thread.
    public func removeResponder(_ responder: Responder) {
        state.withLock { s in s.responders.removeAll { $0.object == nil || $0.object === responder } }
        if responder.application === self { responder.application = nil }
    }

    /// Registered responders whose activity is `activity`, in registration order.
    func responders(of activity: UserActivity) -> [Responder] {
        state.withLock { s in s.responders.compactMap(\.object).filter { $0.userActivity === activity } }
    }

    // MARK: Driving the main loop (conveniences over `queue`)

    /// Runs pending callbacks on the main thread. See `HostQueue.dispatch`.
    @discardableResult
    public func dispatch() throws(HandoffError) -> Int { try queue.dispatch() }
}

extension Application: UserActivityOwner {
    /// Becomes the owner of an activity, so its needsSave and invalidate
    /// reach this application. A save already asked for is scheduled.
    func adopt(_ activity: UserActivity) {
        if activity.owner !== self { activity.owner = self }
        if activity.needsSave { activityNeedsSave(activity) }
    }

    public func activityNeedsSave(_ activity: UserActivity) {
        let first = state.withLock { $0.pendingSaves.insert(ObjectIdentifier(activity)).inserted }
        guard first else { return }
        queue.post { [weak self] in self?.runPendingSave(activity) }
    }

    public func activityWasInvalidated(_ activity: UserActivity) {
        resignCurrent(activity)
    }

    public func activityDidChange(_ activity: UserActivity) {
        withdrawOffer(of: activity)
        // What other devices show (title, page, eligibility) follows the
        // change at once, as Apple's Handoff does: only a change goes out.
        if state.withLock({ $0.current === activity && !$0.savingNow.contains(ObjectIdentifier(activity)) }) { readvertise() }
    }
}
