// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Continuity through the per-user agent (docs/agent.md §3): the second
/// implementation of `ContinuityService`, which runs no engine but forwards
/// each call over the agent's local socket. One connection per
/// application, one reader thread running a `Reactor`: the socket watched
/// (for room only while the outbox holds something), the requests'
/// deadlines and the reconnection on its timers, which app threads arm
/// without waking it. It sleeps without a deadline when nothing waits.
///
/// Threads: every method may be called from any thread. State is behind
/// one lock; messages are sent under it without blocking (what the socket
/// does not take waits in a bounded outbox the reader thread flushes), and
/// the endpoint and completions are called outside it: the endpoint's
/// events from the reader thread, in the order the agent sent them.
///
/// When the agent goes away (its socket closes, it sends something
/// malformed, or answers a request that was never made), requests in
/// flight fail with 4609, the remote activities it reported are withdrawn,
/// and the client reconnects with backoff (100 ms doubling to 5 s; reset
/// once a connection has lasted 5 s), then sends HELLO and the current
/// ADVERTISE again (unless `Options.onLost` is set: then that runs instead).
public final class AgentClient: ContinuityService, @unchecked Sendable {
    // @unchecked: mutable state is in `state`; the rest is immutable.

    public struct Options: Sendable {
        /// The agent's socket (`AgentSocketPath.resolve()`).
        public var socketPath: String
        /// The account this app uses: a WELCOME naming another one is
        /// refused, on reconnections too (nil: any account).
        public var accountID: String?
        /// The app's main thread has this long to answer PROVIDE and
        /// ACCEPT_STREAM; then the client answers 4610 itself.
        public var fetchTimeout: Double = 5
        /// As the embedded engine's connect timeout: part of how long a
        /// FETCH or OPEN_STREAM waits for the agent.
        public var connectTimeout: Double = 3
        /// How long connecting, HELLO and WELCOME may take.
        public var handshakeTimeout: Double = 5
        /// Sees every team's activities (the `handoff` command).
        public var observer = false
        /// The protocol revisions HELLO offers (tests speak as an older app).
        public var revisions = ProtocolRevision.spoken

        public init(socketPath: String, accountID: String?) {
            self.socketPath = socketPath
            self.accountID = accountID
        }

        /// Reconnection delays: the first, and the cap it doubles up to
        /// (tests shorten them).
        public var backoff = (initial: AgentClient.initialBackoff, max: AgentClient.maxBackoff)
        /// Added to the fetch and connect timeouts for how long a FETCH or
        /// OPEN_STREAM waits for the agent (tests shorten it).
        public var requestMargin: Double = 3
        /// Set: a lost connection is not made again; this runs once
        /// instead, on the reader thread, after what waited on it failed
        /// (4609) and its remote activities were withdrawn (AUTO mode goes
        /// back to an engine of its own: `FollowingContinuityService`).
        public var onLost: (@Sendable (String) -> Void)?

        /// How long a FETCH or OPEN_STREAM waits for the agent: one second
        /// more than the embedded engine waits for the other device
        /// (fetch + connect timeouts + 2 s), so the agent's own answer,
        /// 4610 included, comes first; this deadline only catches an agent
        /// that hangs. While the agent brings a document along for a
        /// FETCH (BRINGING, revision 4), each report moves its deadline to
        /// this long from then.
        public var requestTimeout: Double { fetchTimeout + connectTimeout + requestMargin }
    }

    /// Reconnection delays: the first, and the cap it doubles up to.
    static let initialBackoff = 0.1
    static let maxBackoff = 5.0
    /// Messages waiting for room in the socket; beyond, the agent is taken
    /// as stuck and the connection is dropped (and made again).
    static let outboxLimit = 256
    /// Remote activities tracked (the engine's remote table holds 256
    /// devices); more reported at once are ignored.
    static let reportedLimit = 256

    public let options: Options
    let hello: AgentHello
    let state: Locked<State>
    /// The reader thread's loop; kept until deinit, so a late post from an
    /// app thread never writes into a reused descriptor.
    let reactor: Reactor
    /// Fires at the earliest deadline of the requests both ways: app
    /// threads arm it without waking the reader, which would otherwise
    /// take the CPU just as the agent needs it (docs/agent.md §8).
    let requestTimer: Reactor.Timer
    /// Fires when a lost connection is to be made again.
    let reconnectTimer: Reactor.Timer
    /// The socket of the current connection, watched by the reader thread
    /// (its own: set and read there, or before it starts and after it ends).
    var socketWatch: Reactor.Watch?

    struct Connection {
        let fd: Int32
        let generation: UInt64
        let welcome: AgentWelcome
        let since: Double
        /// Set by a send that found the connection broken: the reader
        /// thread drops it.
        var failure: String?
    }

    struct State: @unchecked Sendable {
        weak var endpoint: (any ContinuityEndpoint)?
        var attached = false
        var stopped = false
        var advertisement: Advertisement?
        /// The last INDEX, sent again to an agent this client reconnects to.
        var indexed: (id: ActivityID, payload: [UInt8])?
        var connection: Connection?
        var generation: UInt64 = 0
        var welcome: AgentWelcome?
        var outbox: [[UInt8]] = []
        var requests = AgentRequests()
        var reported: [ActivityID: RemoteActivity] = [:]
        var reconnectAt: Double?
        var backoff: Double
        var thread: pthread_t?
        /// Connections made so far (the first included) and why the last
        /// one ended: for tests and diagnostics.
        var connections = 1
        var lastFailure: String?
        /// BRINGING reports that found a FETCH waiting (tests, diagnostics).
        var bringingReports = 0
        /// What `requestTimer` is armed for (nil: disarmed, or fired).
        var timerArmedFor: Double?
        /// A `settle` is posted to the reader thread and has not run yet.
        var settlePosted = false
        /// Interrupts a reconnection's handshake for `detach` (made for
        /// each reconnection, so the client holds it only meanwhile).
        var handshakeCancel: WakePipe?
    }

    /// The timers' way back to the client, which they must not keep alive.
    private final class Owner: @unchecked Sendable {
        weak var client: AgentClient?
    }

    /// Connects to the agent and waits for its WELCOME (at most
    /// `options.handshakeTimeout`). Nothing is reported to the app before
    /// `attach`.
    /// - Throws: as `AgentHandshake.connect`: `.connectionUnavailable` (no
    ///   agent), `.permission` (not this user's), `.invalidState` (another
    ///   account), `.io` (no wake-up descriptors).
    public init(options: Options, manifest: Manifest) throws(HandoffError) {
        self.options = options
        hello = AgentHello(revisions: options.revisions, manifest: manifest, pid: getpid(), observer: options.observer)
        do {
            reactor = try Reactor()
        } catch {
            throw HandoffError(.io, "cannot create the agent client's wake-up descriptors: \(error)")
        }
        let owner = Owner()
        requestTimer = reactor.timer { owner.client?.deadlinePassed() }
        reconnectTimer = reactor.timer { owner.client?.reconnectIfDue() }
        let (fd, welcome) = try AgentHandshake.connect(path: options.socketPath, hello: hello, accountID: options.accountID,
                                                       timeout: options.handshakeTimeout)
        var s = State(backoff: options.backoff.initial)
        s.generation = 1
        s.connection = Connection(fd: fd, generation: 1, welcome: welcome, since: monotonicSeconds())
        s.welcome = welcome
        state = Locked(s)
        owner.client = self
    }

    deinit {
        if let c = state.withLock({ $0.connection }) { close(c.fd) }
    }

    /// The agent's WELCOME on the latest connection: the device it speaks for.
    public var welcome: AgentWelcome? { state.withLock { $0.welcome } }

    /// Whether a connection to the agent is up now.
    public var isConnected: Bool { state.withLock { $0.connection != nil } }

    /// Connections made so far, the first included.
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Times the reader thread's loop has waited so far (its turns).
    var pollCount: Int { reactor.counts.waits }

    /// What the reader thread's loop did (tests: what woke it).
    var loopCounts: Reactor.Counts { reactor.counts }

    // MARK: ContinuityService

    /// Starts the reader thread: from now on the agent's events reach
    /// `endpoint`. Once; later calls only change the endpoint.
    public func attach(_ endpoint: any ContinuityEndpoint) {
        let started: Bool? = state.withLock { s in
            s.endpoint = endpoint
            guard !s.attached, !s.stopped else { return nil }
            s.attached = true
            // Under the lock, so `detach` always finds the thread to join.
            s.thread = startJoinableThread { [self] in self.run() }
            if s.thread == nil { s.stopped = true }
            return s.thread != nil
        }
        if started == false { closeForGood() }  // without a reader, nothing can be served
    }

    public func advertise(_ advertisement: Advertisement?) {
        let ad = advertisement.map(Self.fitted)
        state.withLock { s in
            s.advertisement = ad
            // Another activity is current: the kept INDEX is no longer its.
            if s.indexed?.id != ad?.activityID { s.indexed = nil }
            send(AgentFrame(.advertise(ad)), in: &s)
        }
    }

    public var takesOffers: Bool { true }

    /// OFFER, in order with ADVERTISE on the one socket. Not kept for a
    /// reconnection: the new agent session has none until the next offer.
    public func offer(_ activityID: ActivityID, payload: [UInt8]?) {
        state.withLock { s in _ = send(AgentFrame(.offer(activityID, payload)), in: &s) }
    }

    public var takesIndex: Bool { true }

    /// INDEX, in order with ADVERTISE; only to an agent that agreed on
    /// revision 3 or later (an older one keeps no history). Kept for a
    /// reconnection: the new agent hears it after the advertisement.
    public func index(_ activityID: ActivityID, payload: [UInt8]) {
        state.withLock { s in
            s.indexed = (activityID, payload)
            guard (s.connection?.welcome.revision ?? 0) >= Self.historyRevision else { return }
            _ = send(AgentFrame(.index(activityID, payload)), in: &s)
        }
    }

    /// The protocol revision that brought INDEX and FORGET.
    static let historyRevision = AgentMessage.Kind.index.revision

    /// FORGET: OK once the agent's history committed the deletion.
    public func forgetSaved(_ selection: SavedActivitySelection,
                            completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        let revision = state.withLock { $0.connection?.welcome.revision }
        if let revision, revision < Self.historyRevision {
            return completion(.failure(HandoffError(.connectionUnavailable,
                "the handoff agent speaks protocol revision \(revision) and keeps no history (revision \(Self.historyRevision) does): update it; nothing was deleted")))
        }
        request(.ok(completion), .forget(selection))
    }

    /// GRANT, to an agent that agreed on revision 4 or later.
    public func grantDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        if let refusal = documentAccessRefusal() { return completion(.failure(refusal)) }
        request(.path(completion), .grant(url))
    }

    /// REVOKE, as GRANT.
    public func revokeDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        if let refusal = documentAccessRefusal() { return completion(.failure(refusal)) }
        request(.ok(completion), .revoke(url))
    }

    private func documentAccessRefusal() -> HandoffError? {
        let revision = state.withLock { $0.connection?.welcome.revision }
        guard let revision, revision < AgentMessage.Kind.grant.revision else { return nil }
        return HandoffError(.invalidState,
            "the handoff agent speaks protocol revision \(revision) and cannot open documents through the document portal for a sandboxed app (revision \(AgentMessage.Kind.grant.revision) does): update it")
    }

    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        request(.fetch(remote.activityID, completion), .fetch(remote.activityID))
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        request(.openStream(completion), .openStream(remote.activityID))
    }

    /// The agent's STATUS (the `handoff` command's doctor and nearby).
    /// `completion` runs exactly once, on any thread.
    public func status(completion: @escaping @Sendable (Result<AgentStatus, HandoffError>) -> Void) {
        request(.status(completion), .statusRequest)
    }

    public func confirmContinued(_ remote: RemoteActivity) {
        state.withLock { s in _ = send(AgentFrame(.confirm(remote.activityID)), in: &s) }
    }

    /// Withdraws what is advertised, fails what waits for the agent (4609),
    /// closes the connection and joins the reader thread. Idempotent.
    public func detach() {
        let taken: ([AgentRequests.Outgoing], [ContinuationStream], pthread_t?)? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.stopped = true
            s.endpoint = nil
            s.reconnectAt = nil
            s.handshakeCancel?.signal()
            let (outgoing, streams) = s.requests.removeAll()
            return (outgoing, streams, s.thread)
        }
        guard let (outgoing, streams, thread) = taken else { return }
        reactor.stop()
        streams.forEach { $0.close() }
        let stopped = HandoffError(.connectionUnavailable, "continuity stopped before the agent answered")
        outgoing.forEach { $0.fail(stopped) }
        if let thread, pthread_equal(thread, pthread_self()) != 0 {
            // Called from an endpoint or completion on the reader thread:
            // its loop ends after this turn, then closes the connection.
            pthread_detach(thread)
            return
        }
        if let thread { pthread_join(thread, nil) }
        closeForGood()
    }

    /// The last words on the connection: what waits in the outbox (as far
    /// as the socket takes it without blocking), then the withdrawal of
    /// what was advertised; then it closes. Idempotent. Not while the
    /// reader thread runs (it unwatches the socket).
    func closeForGood() {
        if let watch = socketWatch {
            reactor.unwatch(watch)
            socketWatch = nil
        }
        state.withLock { s in
            guard let c = s.connection else { return }
            flush(in: &s)
            if s.advertisement != nil, s.outbox.isEmpty, s.connection?.failure == nil,
               let bytes = try? AgentFrame(.advertise(nil)).encoded() {
                _ = try? LocalSocket.send(c.fd, bytes)
            }
            close(c.fd)
            s.connection = nil
            s.outbox = []
        }
    }

    // MARK: Sending

    /// Registers a request and sends it, or fails it at once with 4609
    /// (no connection now, or `AgentRequests.limit` in flight).
    private func request(_ pending: AgentRequests.Outgoing, _ message: AgentMessage) {
        let refusal: HandoffError? = state.withLock { s in
            guard !s.stopped, s.connection != nil else {
                return HandoffError(.connectionUnavailable, "the handoff agent is not reachable now (\(options.socketPath)); it is being reconnected")
            }
            let deadline = monotonicSeconds() + options.requestTimeout
            guard let id = s.requests.add(pending, deadline: deadline) else {
                return HandoffError(.connectionUnavailable, "\(AgentRequests.limit) requests to the handoff agent are in flight already")
            }
            // The reader thread wakes by the deadline, without a poke now.
            armTimer(for: deadline, in: &s)
            send(AgentFrame(message, requestID: id), in: &s)
            return nil
        }
        if let refusal { pending.fail(refusal) }
    }

    /// Arms the request timer for `deadline` (monotonic seconds) unless it
    /// fires sooner already. Any thread, under the lock; never wakes the
    /// reader thread.
    func armTimer(for deadline: Double, in s: inout State) {
        if let armed = s.timerArmedFor, armed <= deadline { return }
        s.timerArmedFor = deadline
        reactor.arm(requestTimer, after: deadline - monotonicSeconds())
    }

    /// Disarms the request timer once nothing waits either way: no
    /// wake-up for it later.
    func disarmTimerIfNothingWaits(in s: inout State) {
        guard s.requests.nextDeadline == nil, s.timerArmedFor != nil else { return }
        s.timerArmedFor = nil
        reactor.arm(requestTimer, at: nil)
    }

    /// Sends a frame on the current connection, under the lock, without
    /// blocking: straight into the socket when nothing waits before it,
    /// else into the outbox. Nothing is sent without a connection. Returns
    /// whether the frame was sent or queued.
    @discardableResult
    func send(_ frame: AgentFrame, in s: inout State) -> Bool {
        guard !s.stopped, let c = s.connection, c.failure == nil else { return false }
        guard let bytes = try? frame.encoded() else { return false }
        if s.outbox.isEmpty {
            do throws(HandoffError) {
                if try LocalSocket.send(c.fd, bytes) { return true }
            } catch {
                s.connection?.failure = error.message
                requestSettle(in: &s)
                return false
            }
        }
        guard s.outbox.count < Self.outboxLimit else {
            s.connection?.failure = "the agent does not read what this app sends (\(Self.outboxLimit) messages wait)"
            requestSettle(in: &s)
            return false
        }
        s.outbox.append(bytes)
        if s.outbox.count == 1 { requestSettle(in: &s) }  // the reader thread waits for room
        return true
    }

    /// Sends what waits in the outbox while the socket takes it.
    func flush(in s: inout State) {
        guard let c = s.connection, c.failure == nil else { return }
        while let first = s.outbox.first {
            do throws(HandoffError) {
                guard try LocalSocket.send(c.fd, first) else { return }
            } catch {
                s.connection?.failure = error.message
                return
            }
            s.outbox.removeFirst()
        }
    }

    /// An advertisement as the engine would put it in a beacon (title cut
    /// to 256 bytes, a URL over 1024 bytes left out), so that it always
    /// fits the local protocol's string limits.
    static func fitted(_ ad: Advertisement) -> Advertisement {
        var ad = ad
        ad.title = ad.title.map { truncateUTF8($0, to: 256) }
        if let url = ad.webpageURL, url.absoluteString.utf8.count > 1024 { ad.webpageURL = nil }
        return ad
    }

    // MARK: Waking the reader thread

    /// Has the reader thread `settle` (a broken connection, output
    /// waiting): one job posted at a time. Under the lock; `send` posts
    /// only while not stopped, so never after the loop ended.
    func requestSettle(in s: inout State) {
        guard !s.settlePosted else { return }
        s.settlePosted = true
        reactor.post { [weak self] in self?.settle() }
    }
}
