// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// AUTO mode that follows the agent (docs/agent.md §3 "Choosing the
/// mode"): the app runs an engine of its own while no agent serves it, and
/// moves to the agent when one appears; when the agent goes, it moves back
/// to an engine. The app does nothing: the old path is stopped (what
/// waited on it fails cleanly; the remote activities it reported are
/// withdrawn), the current advertisement and offer are handed to the new
/// one, and only one engine or client runs at a time.
///
/// One thread (the follower) runs a `Reactor` that watches the socket's
/// folder (`AgentSocketWatch`); the agent lost and stop wake it, and a
/// refused connection is tried again on a one-shot timer. No deadline
/// while nothing changes, so no wake-ups (docs/agent.md §8). The agent's
/// client does not
/// reconnect: it tells the follower it lost the agent
/// (`AgentClient.Options.onLost`), which moves back to an engine.
///
/// Threads: every method may be called from any thread.
public final class FollowingContinuityService: ContinuityService, @unchecked Sendable {
    // @unchecked: mutable state is in `state`; the rest is immutable.

    /// Tries to connect when the socket appears: it is made before the
    /// agent listens, so a refusal is tried again a few times (after an
    /// event only: nothing repeats while idle).
    static let connectAttempts = 6
    static let firstRetryDelay = 0.05

    private let choice: ContinuityModeChoice
    private let manifest: Manifest
    private let makeEngine: @Sendable () throws(HandoffError) -> any ContinuityService
    private let watch: AgentSocketWatch?
    /// The follower's loop. Kept until deinit, so a late `agentLost` from
    /// the client's thread never writes into a reused descriptor.
    private let reactor: Reactor
    /// The follower thread's own (set up and used only there).
    private var pass = Pass()
    /// Held while a path is called with what it must keep in order
    /// (advertise, offer) and while paths are switched.
    private let order = Locked(())

    private struct State: @unchecked Sendable {
        weak var endpoint: (any ContinuityEndpoint)?
        var current: any ContinuityService
        var relay: FollowingRelay?
        var mode: ContinuityMode
        var advertisement: Advertisement?
        var offer: (ActivityID, [UInt8]?)?
        /// The current activity's last INDEX, handed to the agent when
        /// this moves to one (an engine drops it: it keeps no history).
        var indexed: (ActivityID, [UInt8])?
        var agentLost = false
        var stopped = false
        var thread: pthread_t?
        /// Moves between the paths so far, and tries to connect to the
        /// agent (tests, diagnostics).
        var moves = 0
        var connectTries = 0
    }
    private let state: Locked<State>

    /// Where the follower is between turns; the follower thread's alone.
    private struct Pass {
        /// A look at the socket is due (at start, after a change of its folder).
        var look = true
        /// The next connection attempt while the agent refuses (0: none under way).
        var attempt = 0
        var retry: Reactor.Timer?
    }

    /// Starts on the agent when it serves this app now, else on an engine
    /// (`makeEngine`, also called for each later move back).
    /// - Throws: `makeEngine`'s error when there is no agent; `.io` when
    ///   the follower's descriptors cannot be had.
    init(choice: ContinuityModeChoice, manifest: Manifest,
         makeEngine: @escaping @Sendable () throws(HandoffError) -> any ContinuityService) throws(HandoffError) {
        self.choice = choice
        self.manifest = manifest
        self.makeEngine = makeEngine
        do {
            reactor = try Reactor()
        } catch {
            throw HandoffError(.io, "cannot create the follower's wake-up descriptors: \(error)")
        }
        watch = choice.socketPath.flatMap { try? AgentSocketWatch(socketPath: $0) }
        let lost = LostBox()
        let first: any ContinuityService, mode: ContinuityMode
        if let client = try? choice.agentClient(manifest: manifest, onLost: lost.call) {
            (first, mode) = (client, .agent)
        } else {
            (first, mode) = (try makeEngine(), .embedded)
        }
        state = Locked(State(current: first, mode: mode))
        lost.owner = self
    }

    /// Where continuity runs now: `.agent` or `.embedded`.
    public var mode: ContinuityMode { state.withLock { $0.mode } }

    /// Moves between the agent and an engine so far.
    public var moves: Int { state.withLock { $0.moves } }

    /// Tries to connect to an agent that appeared, so far.
    var connectTries: Int { state.withLock { $0.connectTries } }

    /// What the follower's loop did (tests: no turns while nothing changes).
    var loopCounts: Reactor.Counts { reactor.counts }

    /// The client's `onLost`, made before the service exists.
    private final class LostBox: @unchecked Sendable {
        weak var owner: FollowingContinuityService?
        // The closure keeps the box (the client keeps the closure); the box
        // does not keep the service.
        var call: @Sendable (String) -> Void { { _ in self.owner?.agentLost() } }
    }

    private func agentLost() {
        state.withLock { $0.agentLost = true }
        reactor.post { [weak self] in self?.settle() }
    }

    // MARK: ContinuityService

    public func attach(_ endpoint: any ContinuityEndpoint) {
        let relay = FollowingRelay(endpoint)
        let current: (any ContinuityService)? = state.withLock { s in
            guard !s.stopped, s.relay == nil else { s.endpoint = endpoint; return nil }
            s.endpoint = endpoint
            s.relay = relay
            s.thread = startJoinableThread(named: "hoff-follow") { [self] in self.follow() }
            return s.current
        }
        current?.attach(relay)
    }

    public func advertise(_ advertisement: Advertisement?) {
        order.withLock { _ in
            let current = state.withLock { s in
                s.advertisement = advertisement
                s.offer = nil  // a new advertisement withdraws the offer
                // Another activity is current: its INDEX, if any, follows.
                if s.indexed?.0 != advertisement?.activityID { s.indexed = nil }
                return s.current
            }
            current.advertise(advertisement)
        }
    }

    public var takesOffers: Bool { true }

    public func offer(_ activityID: ActivityID, payload: [UInt8]?) {
        order.withLock { _ in
            let current = state.withLock { s in
                s.offer = payload == nil ? nil : (activityID, payload)
                return s.current
            }
            current.offer(activityID, payload: payload)
        }
    }

    public var takesIndex: Bool { true }

    /// To the agent when it follows one (an engine keeps no history);
    /// kept, and handed to the agent this service moves to.
    public func index(_ activityID: ActivityID, payload: [UInt8]) {
        order.withLock { _ in
            let current = state.withLock { s in
                s.indexed = (activityID, payload)
                return s.current
            }
            current.index(activityID, payload: payload)
        }
    }

    public func forgetSaved(_ selection: SavedActivitySelection,
                            completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        state.withLock { $0.current }.forgetSaved(selection, completion: completion)
    }

    public func grantDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        state.withLock { $0.current }.grantDocumentAccess(url, completion: completion)
    }

    public func revokeDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        state.withLock { $0.current }.revokeDocumentAccess(url, completion: completion)
    }

    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        state.withLock { $0.current }.fetch(remote, completion: completion)
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        state.withLock { $0.current }.openStream(remote, completion: completion)
    }

    public func confirmContinued(_ remote: RemoteActivity) {
        state.withLock { $0.current }.confirmContinued(remote)
    }

    /// Stops the follower, then the current path. Idempotent.
    public func detach() {
        let taken: ((any ContinuityService), pthread_t?)? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.stopped = true
            s.endpoint = nil
            return (s.current, s.thread)
        }
        guard let (current, thread) = taken else { return }
        reactor.stop()
        if let thread {
            if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        }
        // The follower may have moved meanwhile: stop what is current now.
        let last = state.withLock { $0.current }
        current.detach()
        if last !== current { last.detach() }
    }

    // MARK: Following

    /// The follower thread: its loop runs until `detach`, with nothing to
    /// wake it but the socket's folder changing, the agent lost and stop.
    private func follow() {
        let folder = watch.map { watch in
            reactor.watch(watch.fd, .readable) { [weak self] _ in
                guard let self, watch.drain() else { return }
                self.pass.look = true
                self.settle()
            }
        }
        pass.retry = reactor.timer { [weak self] in self?.connect() }
        reactor.post { [weak self] in self?.settle() }  // the look at start
        reactor.run()
        if let folder { reactor.unwatch(folder) }
        if let retry = pass.retry { reactor.release(retry) }
        _ = reactor.close()  // a later `agentLost` runs `settle` on its caller: stopped, it does nothing
    }

    /// Acts on what changed, on the follower thread: back to an engine when
    /// the agent was lost, to the agent when its socket is there.
    private func settle() {
        guard reactor.isLoopThread else { return }
        let (stopped, mode, lost) = state.withLock { ($0.stopped, $0.mode, $0.agentLost) }
        if stopped { return }
        if mode == .agent, lost {
            cancelRetry()
            moveToEngine()
            pass.look = true  // the agent may be back already
            return settle()
        }
        guard pass.look, pass.attempt == 0, mode == .embedded else {
            pass.look = false
            return
        }
        pass.look = false
        if watch?.socketExists == true { connect() }
    }

    /// One try to connect to the agent and move there. Refused while it
    /// starts listening: tried again on the retry timer, after a delay that
    /// doubles, `connectAttempts` times in all (`detach` ends the loop, so
    /// a stop cuts the delay short). Another account's agent, or not this
    /// user's, is not tried again: the app stays embedded.
    private func connect() {
        let attempt = pass.attempt
        if state.withLock({ s in s.connectTries += 1; return s.stopped }) { return cancelRetry() }
        let lost = LostBox()
        do {
            let client = try choice.agentClient(manifest: manifest, onLost: lost.call)
            lost.owner = self
            cancelRetry()
            move(to: client, mode: .agent)  // lost already: `agentLost` posted a `settle`
        } catch {
            guard error.code == .connectionUnavailable, attempt + 1 < Self.connectAttempts, let retry = pass.retry else {
                return cancelRetry()
            }
            pass.attempt = attempt + 1
            reactor.arm(retry, after: Self.firstRetryDelay * Double(1 << attempt))
        }
    }

    private func cancelRetry() {
        pass.attempt = 0
        if let retry = pass.retry { reactor.arm(retry, at: nil) }
    }

    /// The agent went: an engine of the app's own again. When none can be
    /// started, the lost client stays (its requests fail with 4609) and
    /// the socket is watched for the agent's return.
    private func moveToEngine() {
        state.withLock { $0.agentLost = false }
        guard let engine = try? makeEngine() else {
            state.withLock { $0.mode = .embedded }  // watch for the agent again
            return
        }
        move(to: engine, mode: .embedded)
    }

    /// Stops the old path, then attaches `next`, hands it the
    /// advertisement and offer and makes it current. Old first: the other
    /// devices hear its withdrawal before the new advertisement (both may
    /// speak for this device's identity), and two engines never run at
    /// once. The app's advertise and offer wait meanwhile (`order`).
    private func move(to next: any ContinuityService, mode: ContinuityMode) {
        let moved: Bool = order.withLock { _ in
            let taken: (FollowingRelay, any ContinuityService, FollowingRelay?)? = state.withLock { s in
                guard !s.stopped, let endpoint = s.endpoint else { return nil }
                return (FollowingRelay(endpoint), s.current, s.relay)
            }
            guard let (relay, previous, previousRelay) = taken else { return false }
            // What the old path reported goes before the new one reports anything.
            previousRelay?.retire()
            previous.detach()
            let (ad, offer, indexed) = state.withLock { s in (s.advertisement, s.offer, s.indexed) }
            next.attach(relay)
            next.advertise(ad)
            if let (id, payload) = offer { next.offer(id, payload: payload) }
            if let (id, payload) = indexed { next.index(id, payload: payload) }
            state.withLock { s in
                s.current = next
                s.relay = relay
                s.mode = mode
                s.moves += 1
            }
            return true
        }
        if !moved { next.detach() }
    }
}
