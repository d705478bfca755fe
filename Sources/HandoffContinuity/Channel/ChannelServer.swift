// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Accepts channel connections from the account's other devices.
///
/// One admission thread accepts connections and runs every pending TLS
/// handshake non-blocking (its `Reactor`), at most `limits.maxPendingHandshakes` at
/// once, each within `limits.firstBytesTimeout` for its first bytes and
/// `limits.handshakeTimeout` in all. While the slots are taken newcomers
/// wait in the kernel's accept backlog; `AdmissionPolicy` chooses who gives
/// way. After a handshake succeeds, `onConnection` runs on a thread of the
/// connection's own and owns it: it loops on receive/send and returns, and
/// the connection is closed (with a close_notify) when it returns. At most
/// `limits.maxConnections` authenticated connections (so threads) are alive
/// at once, `limits.connectionsPerSource` from one source address; the
/// server closes an idle one (see `ChannelConnection.markIdle`) to make
/// room. docs/PROTOCOL.md §6 "Limits and lifecycle" states the rules.
public final class ChannelServer: Sendable {
    /// The port listened on (the ephemeral one chosen when asked for 0).
    public let port: UInt16
    /// The address listened on: `[::]` (both families) unless the host has
    /// no IPv6 and `::` fell back to `0.0.0.0`.
    public let address: SocketAddress
    private let core: ChannelServerCore

    /// Listens on `address` (port 0: an ephemeral port, see `port`). `::`
    /// listens on IPv6 and IPv4 alike (IPV6_V6ONLY off) and falls back to
    /// `0.0.0.0` on a host without IPv6.
    /// Each authenticated connection runs `onConnection` on a thread of
    /// `threads`, which an owner that must outlive them waits on.
    /// Throws `.invalidArgument` for a bad address, key or limits, `.io`
    /// when the address cannot be bound.
    /// `revisions` other than the release's own are for tests that play an
    /// older or newer device.
    public init(listeningOn address: SocketAddress, psk: [UInt8], limits: ChannelLimits = ChannelLimits(),
                threads: ThreadGroup = ThreadGroup(), revisions: ClosedRange<Int> = ProtocolRevision.spoken,
                onConnection: @escaping @Sendable (ChannelConnection) -> Void) throws(HandoffError) {
        let limits = try limits.validated()
        let context = try TLSContext(role: .server, psk: psk, revisions: revisions)
        let listener = try openListener(address, backlog: limits.acceptBacklog)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0, let bound = SocketAddress(storage: storage) else {
            let code = errno
            Glibc.close(listener)
            throw HandoffError(.io, "could not read the port the channel listens on (\(errnoText(code)))")
        }
        let reactor: Reactor
        do {
            reactor = try Reactor()
        } catch {
            Glibc.close(listener)
            throw HandoffError(.io, "could not create the channel's wake-up descriptors (\(errnoText(error.code)))")
        }
        port = bound.port
        self.address = bound
        core = ChannelServerCore(listener: listener, reactor: reactor, context: context, limits: limits, threads: threads,
                                 onConnection: onConnection)
        let core = self.core
        guard let thread = startJoinableThread(named: "hoff-admission", { core.admissionLoop() }) else {
            core.closeListener()
            throw HandoffError(.io, "the system refused a thread for the channel's listener: too many threads?")
        }
        core.setAdmissionThread(thread)
    }

    deinit {
        core.stop()
    }

    /// Closes the listener, aborts pending handshakes and open connections
    /// (their threads fail promptly; `onConnection` is not called for a
    /// handshake still running), and joins the admission thread; the
    /// connection threads end by themselves (wait on the `threads` given).
    /// Idempotent; may be called from `onConnection`.
    public func stop() {
        core.stop()
    }

    /// Takes a stream socket that another transport accepted (a relay pipe's
    /// end, `RelayStreamBridge.pair()`) as if the listener had: the same
    /// handshake deadlines, pending slots and admission (§6 "Limits and
    /// lifecycle"), `peer.host` as its source. `authenticated` runs on the
    /// admission thread once its handshake completes (the relay then never
    /// sheds the pipe). Owns `fd` from here on: closed when refused (no
    /// slot, or the server stopped). Any thread.
    public func adopt(fd: Int32, peer: SocketAddress, authenticated: (@Sendable () -> Void)? = nil) {
        core.adopt(fd: fd, peer: peer, authenticated: authenticated)
    }

    /// Connections handshaking and authenticated connections alive: for tests.
    var counts: (pending: Int, active: Int) { core.counts }

    /// What the admission thread's loop did: for tests (no turns while idle).
    var loopCounts: Reactor.Counts { core.reactor.counts }
}

/// The server's state, shared by the admission thread and the connection
/// threads (which keep it alive, not the ChannelServer, so dropping the
/// server stops it).
private final class ChannelServerCore: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a Locked); pending handshakes
    // and the listener's watch belong to the admission thread alone; the
    // listener is closed only after that thread, its one user, is joined.
    let listener: Int32
    /// The admission thread's loop. Kept as long as the core (which every
    /// connection thread keeps), so a late wake never writes into a
    /// descriptor number that now belongs to another file.
    let reactor: Reactor
    let context: TLSContext
    let limits: ChannelLimits
    let onConnection: @Sendable (ChannelConnection) -> Void
    /// Where the connection threads run.
    let threads: ThreadGroup

    private struct Active {
        var connection: ChannelConnection
        var source: String
    }

    private struct State {
        var stopped = false
        var admissionThread: pthread_t?
        var pendingCount = 0
        var active: [Int: Active] = [:]
        /// The admission thread waits for an authenticated connection to
        /// become idle (all are taken and busy): the next one to do so wakes it.
        var waitingForIdle = false
        /// Sockets handed over by `adopt` not yet taken by the admission thread.
        var adoptedWaiting = 0
    }
    private let state = Locked(State())

    /// A handshake in progress, owned by the admission thread.
    private struct Pending {
        var id: Int
        var socket: TLSSocket
        var source: String
        var since: Double
        var watch: Reactor.Watch?
        /// Told when the handshake completes (an adopted relay pipe).
        var authenticated: (@Sendable () -> Void)?

        func candidate() -> AdmissionPolicy.Pending {
            let traffic = socket.traffic
            let progress: AdmissionPolicy.Progress = traffic.sent > 0 ? .proven : traffic.received > 0 ? .partial : .silent
            return AdmissionPolicy.Pending(id: id, source: source, progress: progress, received: traffic.received, since: since)
        }
    }
    private var pending: [Pending] = []
    private var nextID = 0
    /// The admission thread's: the listener's watch (parked while there is
    /// no room), the deadline timer and what it is armed for, and the
    /// out-of-descriptors back-off.
    private var listening: Reactor.Watch?
    private var deadlineTimer: Reactor.Timer?
    private var armedDeadline: Double?
    private var backingOff = false
    private var backOffTimer: Reactor.Timer?
    /// How long the listener is parked when accept runs out of descriptors.
    static let outOfDescriptorsBackOff = 0.1

    init(listener: Int32, reactor: Reactor, context: TLSContext, limits: ChannelLimits, threads: ThreadGroup,
         onConnection: @escaping @Sendable (ChannelConnection) -> Void) {
        self.threads = threads
        self.listener = listener
        self.reactor = reactor
        self.context = context
        self.limits = limits
        self.onConnection = onConnection
    }

    var counts: (pending: Int, active: Int) {
        state.withLock { ($0.pendingCount, $0.active.count) }
    }

    /// Hands an adopted socket to the admission thread (a job on its loop).
    func adopt(fd: Int32, peer: SocketAddress, authenticated: (@Sendable () -> Void)?) {
        let queued = state.withLock { s -> Bool in
            // At most a pending set's worth waits: more could not be admitted anyway.
            guard !s.stopped, s.adoptedWaiting < limits.maxPendingHandshakes else { return false }
            s.adoptedWaiting += 1
            return true
        }
        guard queued else { return _ = Glibc.close(fd) }
        // Strong: the job owns `fd` until it runs (or the loop's end hands it back).
        reactor.post { self.takeAdopted(fd: fd, peer: peer, authenticated: authenticated) }
    }

    func setAdmissionThread(_ thread: pthread_t) {
        state.withLock { $0.admissionThread = thread }
    }

    func closeListener() {
        Glibc.close(listener)
    }

    func stop() {
        let (thread, active) = state.withLock { s -> (pthread_t?, [ChannelConnection]) in
            if s.stopped { return (nil, []) }
            s.stopped = true
            let thread = s.admissionThread
            s.admissionThread = nil
            return (thread, s.active.values.map(\.connection))
        }
        guard let thread else { return }
        reactor.stop()
        for connection in active { connection.close() }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)  // stopped from inside: the loop ends after this turn
        } else {
            pthread_join(thread, nil)
            closeListener()
        }
    }

    /// Makes the admission thread look again (room freed): its
    /// `beforeEachWait` re-evaluates the listener. Any thread, at any time
    /// (the reactor outlives every caller).
    private func poke() {
        reactor.wake()
    }

    /// A connection became idle: wakes the admission thread if it waits for that.
    private func connectionBecameIdle() {
        let wanted = state.withLock { s in
            defer { s.waitingForIdle = false }
            return s.waitingForIdle
        }
        if wanted { poke() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: Admission thread

    /// Runs the admission thread's loop until `stop`: the listener (while
    /// there is room), every pending handshake's socket, one timer at the
    /// earliest handshake deadline, adopted sockets posted as jobs.
    func admissionLoop() {
        listening = reactor.watch(listener, .readable) { [weak self] _ in self?.acceptWaiting() }
        deadlineTimer = reactor.timer { [weak self] in self?.deadlinePassed() }
        backOffTimer = reactor.timer { [weak self] in self?.backingOff = false }
        reactor.beforeEachWait { [weak self] in self?.beforeWait() }
        reactor.run()
        if let listening { reactor.unwatch(listening) }
        listening = nil
        for p in pending {
            if let watch = p.watch { reactor.unwatch(watch) }
            p.socket.close()
        }
        pending.removeAll()
        state.withLock { $0.pendingCount = 0 }
        if let deadlineTimer { reactor.release(deadlineTimer) }
        if let backOffTimer { reactor.release(backOffTimer) }
        // Adopted sockets not taken: their jobs, run off the loop, close them.
        for job in reactor.close() { job() }
    }

    /// Before each wait: the listener is polled only while a connection
    /// may be taken from the backlog (else it stays there, and what frees
    /// room wakes the loop); the timer is armed for the earliest deadline.
    private func beforeWait() {
        if let listening { reactor.update(listening, !backingOff && shouldPollListener() ? .readable : []) }
        let next = nextDeadline()
        guard next != armedDeadline, let deadlineTimer else { return }
        armedDeadline = next
        reactor.arm(deadlineTimer, after: next.map { $0 - monotonicSeconds() } ?? .infinity)
    }

    private func deadlinePassed() {
        armedDeadline = nil  // fired: armed again before the next wait if anything waits
        expireDeadlines()
    }

    /// Starts the handshake of an adopted socket, shedding a pending one
    /// for it as an accepted connection would; without a slot to take, the
    /// socket is closed (the relay's pipe ends; its opener retries), as it
    /// is once the server stopped.
    private func takeAdopted(fd: Int32, peer: SocketAddress, authenticated: (@Sendable () -> Void)?) {
        let stopped = state.withLock { s -> Bool in
            s.adoptedWaiting -= 1
            return s.stopped
        }
        guard !stopped, reactor.isLoopThread else { return _ = Glibc.close(fd) }
        if pending.count >= limits.maxPendingHandshakes {
            guard let victim = backlogVictim() else { return _ = Glibc.close(fd) }
            drop(id: victim)
        }
        let socket: TLSSocket
        do {
            socket = try TLSSocket(fd: fd, peer: peer, context: context)
        } catch {
            return  // TLSSocket closed the descriptor
        }
        start(Pending(id: 0, socket: socket, source: peer.host, since: monotonicSeconds(), authenticated: authenticated))
    }

    /// Whether to take connections from the backlog now: there is a free
    /// pending slot (or one the policy may shed) and room after
    /// authentication (or an idle connection to close for it). Without
    /// room, the next connection to end or become idle wakes the thread.
    private func shouldPollListener() -> Bool {
        let roomAfter = state.withLock { s in
            let room = s.active.count < limits.maxConnections || s.active.values.contains { $0.connection.idleSince != nil }
            s.waitingForIdle = !room
            return room
        }
        guard roomAfter else { return false }
        if pending.count < limits.maxPendingHandshakes { return true }
        return backlogVictim() != nil
    }

    private func backlogVictim() -> Int? {
        AdmissionPolicy.pendingVictimForBacklog(pending.map { $0.candidate() }, limit: limits.maxPendingHandshakes,
                                                now: monotonicSeconds(), grace: limits.pendingGrace)
    }

    /// The earliest handshake deadline; while the slots are full, also the
    /// earliest end of a holder's grace (it may be shed then, so the
    /// listener is looked at again). Nil: nothing pending, no wake-up.
    private func nextDeadline() -> Double? {
        let now = monotonicSeconds()
        var next: Double?
        for p in pending {
            next = min(next ?? .infinity, deadline(of: p))
            if pending.count >= limits.maxPendingHandshakes, p.since + limits.pendingGrace > now {
                next = min(next!, p.since + limits.pendingGrace)
            }
        }
        return next
    }

    /// When `p` is dropped if it has not finished: the first-bytes deadline
    /// until something arrives, then the handshake deadline.
    private func deadline(of p: Pending) -> Double {
        let whole = p.since + limits.handshakeTimeout
        return p.socket.traffic.received == 0 ? min(whole, p.since + limits.firstBytesTimeout) : whole
    }

    private func expireDeadlines() {
        let now = monotonicSeconds()
        let expired = pending.indices.filter { deadline(of: pending[$0]) <= now }
        for index in expired.reversed() { drop(at: index) }
    }

    private func drop(at index: Int) {
        let p = pending.remove(at: index)
        if let watch = p.watch { reactor.unwatch(watch) }
        p.socket.close()
        state.withLock { $0.pendingCount = pending.count }
    }

    private func drop(id: Int) {
        if let index = pending.firstIndex(where: { $0.id == id }) { drop(at: index) }
    }

    /// The socket of pending handshake `id` is ready (or failed): one step.
    private func ready(id: Int) {
        guard !isStopped, let index = pending.firstIndex(where: { $0.id == id }) else { return }
        step(at: index)
    }

    private func step(at index: Int) {
        let p = pending[index]
        let outcome: TLSSocket.HandshakeStep
        do {
            outcome = try p.socket.handshakeStep()
        } catch {
            drop(at: index)
            return
        }
        switch outcome {
        case .wantRead: if let watch = p.watch { reactor.update(watch, .readable) }
        case .wantWrite: if let watch = p.watch { reactor.update(watch, .writable) }
        case .done(let agreement):
            // Unwatched before its connection's thread may close it.
            if let watch = p.watch { reactor.unwatch(watch) }
            pending.remove(at: index)
            state.withLock { $0.pendingCount = pending.count }
            p.authenticated?()
            let connection = ChannelConnection(socket: p.socket, limits: limits, agreement: agreement,
                                               becameIdle: { [weak self] in self?.connectionBecameIdle() })
            admit(connection, id: p.id, source: p.source)
        }
    }

    /// Takes one connection from the backlog, shedding a pending one first
    /// when all slots are taken, and starts its handshake at once (its
    /// ClientHello has usually arrived while it waited).
    private func acceptWaiting() {
        guard !isStopped else { return }
        if pending.count >= limits.maxPendingHandshakes {
            guard let victim = backlogVictim() else { return }
            drop(id: victim)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // Non-blocking and close-on-exec from birth (CLinux wraps accept4).
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                clinux_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            }
        }
        guard fd >= 0 else {
            let code = errno
            if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                // Out of descriptors: the listener is parked for a while
                // instead of spinning on it (it stays readable); the
                // handshakes under way go on meanwhile.
                backingOff = true
                if let backOffTimer { reactor.arm(backOffTimer, after: Self.outOfDescriptorsBackOff) }
            }
            return
        }
        setNoDelay(fd)
        guard let peer = SocketAddress(storage: storage) else {
            Glibc.close(fd)
            return
        }
        let socket: TLSSocket
        do {
            socket = try TLSSocket(fd: fd, peer: peer, context: context)
        } catch {
            return  // TLSSocket closed the descriptor
        }
        start(Pending(id: 0, socket: socket, source: peer.host, since: monotonicSeconds()))
    }

    /// A handshake joins the pending ones (shedding one of its source's
    /// when that source holds more than its share) and takes its first step.
    private func start(_ p: Pending) {
        var newcomer = p
        nextID += 1
        newcomer.id = nextID
        let id = nextID
        newcomer.watch = reactor.watch(p.socket.fd, .readable) { [weak self] _ in self?.ready(id: id) }
        pending.append(newcomer)
        state.withLock { $0.pendingCount = pending.count }
        let candidates = pending.map { $0.candidate() }
        if let victim = AdmissionPolicy.pendingVictimForShare(candidates, newcomer: candidates.last!, share: limits.pendingPerSource,
                                                              now: monotonicSeconds(), grace: limits.pendingGrace) {
            drop(id: victim)
        }
        if let index = pending.firstIndex(where: { $0.id == newcomer.id }) { step(at: index) }
    }

    /// An authenticated connection joins the active ones (closing an idle
    /// one for it when the policy says so) and gets its thread.
    private func admit(_ connection: ChannelConnection, id: Int, source: String) {
        let decision: AdmissionPolicy.Decision = state.withLock { s in
            if s.stopped { return .refuse }
            let active = s.active.map { AdmissionPolicy.Authenticated(id: $0.key, source: $0.value.source, idleSince: $0.value.connection.idleSince) }
            let decision = AdmissionPolicy.admitAuthenticated(from: source, active: active, limit: limits.maxConnections,
                                                             share: limits.connectionsPerSource)
            if decision != .refuse { s.active[id] = Active(connection: connection, source: source) }
            return decision
        }
        switch decision {
        case .refuse:
            connection.close()
            return
        case .admitShedding(let victim):
            // Out of the count at once; its thread, idle in receive, wakes and ends.
            if let shed = state.withLock({ $0.active.removeValue(forKey: victim) }) { shed.connection.close() }
        case .admit:
            break
        }
        let started = threads.start(named: "hoff-connection") { [self] in
            onConnection(connection)
            _ = state.withLock { $0.active.removeValue(forKey: id) }
            connection.close()
            poke()  // room for a connection waiting in the backlog
        }
        if !started {
            _ = state.withLock { $0.active.removeValue(forKey: id) }
            connection.close()
        }
    }
}
