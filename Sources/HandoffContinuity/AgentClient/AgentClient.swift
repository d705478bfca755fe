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
/// application, one reader thread (poll on the socket and a wake pipe; it
/// sleeps without a timeout when nothing waits).
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
        /// that hangs.
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
    let wake: (read: Int32, write: Int32)
    /// Wakes the reader thread at the earliest deadline of the app's
    /// requests: arming it is a system call, where a poke would wake the
    /// reader just as the agent needs the CPU (docs/agent.md §8).
    let timer: Int32

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
        /// Times the reader thread went to sleep in poll (idle: none).
        var polls = 0
        /// What `timer` is armed for (nil: disarmed, or fired).
        var timerArmedFor: Double?
    }

    /// Connects to the agent and waits for its WELCOME (at most
    /// `options.handshakeTimeout`). Nothing is reported to the app before
    /// `attach`.
    /// - Throws: as `AgentHandshake.connect`: `.connectionUnavailable` (no
    ///   agent), `.permission` (not this user's), `.invalidState` (another
    ///   account), `.io` (no pipe).
    public init(options: Options, manifest: Manifest) throws(HandoffError) {
        self.options = options
        hello = AgentHello(manifest: manifest, pid: getpid(), observer: options.observer)
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else {
            throw HandoffError(.io, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        wake = (fds[0], fds[1])
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fds[0])
            close(fds[1])
            throw HandoffError(.io, "cannot create a timer: \(reason)")
        }
        let (fd, welcome): (Int32, AgentWelcome)
        do {
            (fd, welcome) = try AgentHandshake.connect(path: options.socketPath, hello: hello, accountID: options.accountID,
                                                       timeout: options.handshakeTimeout)
        } catch {
            close(fds[0])
            close(fds[1])
            close(timer)
            throw error
        }
        var s = State(backoff: options.backoff.initial)
        s.generation = 1
        s.connection = Connection(fd: fd, generation: 1, welcome: welcome, since: monotonicSeconds())
        s.welcome = welcome
        state = Locked(s)
    }

    deinit {
        if let c = state.withLock({ $0.connection }) { close(c.fd) }
        close(wake.read)
        close(wake.write)
        close(timer)
    }

    /// The agent's WELCOME on the latest connection: the device it speaks for.
    public var welcome: AgentWelcome? { state.withLock { $0.welcome } }

    /// Whether a connection to the agent is up now.
    public var isConnected: Bool { state.withLock { $0.connection != nil } }

    /// Connections made so far, the first included.
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Times the reader thread has waited in poll so far.
    var pollCount: Int { state.withLock { $0.polls } }

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
    static let historyRevision = 3

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

    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        request(.fetch(completion), .fetch(remote.activityID))
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
            let (outgoing, streams) = s.requests.removeAll()
            return (outgoing, streams, s.thread)
        }
        guard let (outgoing, streams, thread) = taken else { return }
        poke()
        streams.forEach { $0.close() }
        let stopped = HandoffError(.connectionUnavailable, "continuity stopped before the agent answered")
        outgoing.forEach { $0.fail(stopped) }
        if let thread, pthread_equal(thread, pthread_self()) != 0 {
            // Called from an endpoint or completion on the reader thread:
            // its loop closes the connection once this returns.
            pthread_detach(thread)
            return
        }
        if let thread { pthread_join(thread, nil) }
        closeForGood()
    }

    /// The last words on the connection: what waits in the outbox (as far
    /// as the socket takes it without blocking), then the withdrawal of
    /// what was advertised; then it closes. Idempotent.
    func closeForGood() {
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

    /// Arms `timer` for `deadline` unless it fires sooner already.
    func armTimer(for deadline: Double, in s: inout State) {
        if let armed = s.timerArmedFor, armed <= deadline { return }
        s.timerArmedFor = deadline
        setTimer(deadline)
    }

    /// Arms the timer for `deadline` (CLOCK_MONOTONIC seconds), or
    /// disarms it for nil.
    func setTimer(_ deadline: Double?) {
        armMonotonicTimer(timer, atSeconds: deadline)
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
                poke()
                return false
            }
        }
        guard s.outbox.count < Self.outboxLimit else {
            s.connection?.failure = "the agent does not read what this app sends (\(Self.outboxLimit) messages wait)"
            poke()
            return false
        }
        s.outbox.append(bytes)
        poke()  // the reader thread waits for room
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

    func poke() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
