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
/// handshake non-blocking (poll), at most `limits.maxPendingHandshakes` at
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
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = errno
            Glibc.close(listener)
            throw HandoffError(.io, "could not create the channel's wake-up descriptor (\(errnoText(code)))")
        }
        port = bound.port
        self.address = bound
        core = ChannelServerCore(listener: listener, wake: wake, context: context, limits: limits, threads: threads,
                                 onConnection: onConnection)
        let core = self.core
        guard let thread = startJoinableThread(named: "hoff-admission", { core.admissionLoop() }) else {
            core.closeDescriptors()
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
}

/// The server's state, shared by the admission thread and the connection
/// threads (which keep it alive, not the ChannelServer, so dropping the
/// server stops it).
private final class ChannelServerCore: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a Locked); pending handshakes
    // belong to the admission thread alone; the descriptors are closed only
    // after that thread, their one user, is joined.
    let listener: Int32
    let wake: Int32
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
        /// The listener and wake-up descriptors are closed: their numbers
        /// may belong to anything now.
        var descriptorsClosed = false
        var admissionThread: pthread_t?
        var pendingCount = 0
        var active: [Int: Active] = [:]
        /// The admission thread waits for an authenticated connection to
        /// become idle (all are taken and busy): the next one to do so wakes it.
        var waitingForIdle = false
        /// Sockets handed over by `adopt`, for the admission thread.
        var adopted: [(fd: Int32, peer: SocketAddress, authenticated: (@Sendable () -> Void)?)] = []
    }
    private let state = Locked(State())

    /// A handshake in progress, owned by the admission thread.
    private struct Pending {
        var id: Int
        var socket: TLSSocket
        var source: String
        var since: Double
        var wantsWrite = false
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

    init(listener: Int32, wake: Int32, context: TLSContext, limits: ChannelLimits, threads: ThreadGroup,
         onConnection: @escaping @Sendable (ChannelConnection) -> Void) {
        self.threads = threads
        self.listener = listener
        self.wake = wake
        self.context = context
        self.limits = limits
        self.onConnection = onConnection
    }

    var counts: (pending: Int, active: Int) {
        state.withLock { ($0.pendingCount, $0.active.count) }
    }

    /// Queues an adopted socket and wakes the admission thread.
    func adopt(fd: Int32, peer: SocketAddress, authenticated: (@Sendable () -> Void)?) {
        let queued = state.withLock { s -> Bool in
            // At most a pending set's worth waits: more could not be admitted anyway.
            guard !s.stopped, s.adopted.count < limits.maxPendingHandshakes else { return false }
            s.adopted.append((fd, peer, authenticated))
            return true
        }
        if queued { poke() } else { Glibc.close(fd) }
    }

    func setAdmissionThread(_ thread: pthread_t) {
        state.withLock { $0.admissionThread = thread }
    }

    func closeDescriptors() {
        state.withLock { $0.descriptorsClosed = true }
        Glibc.close(listener)
        Glibc.close(wake)
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
        poke()
        for connection in active { connection.close() }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)  // stopped from inside: the loop ends by itself
        } else {
            pthread_join(thread, nil)
            closeDescriptors()
        }
    }

    /// Makes the admission thread look again (stop, or room freed). A
    /// connection's thread may end after `stop` closed the descriptor:
    /// writing then would write into whatever reuses its number.
    private func poke() {
        state.withLock { s in
            guard !s.descriptorsClosed else { return }
            var one: UInt64 = 1
            _ = Glibc.write(wake, &one, 8)
        }
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

    /// Waits on the listener, the wake-up descriptor and every pending
    /// handshake; steps handshakes, enforces their deadlines and accepts.
    func admissionLoop() {
        defer {
            for p in pending { p.socket.close() }
            pending.removeAll()
            let adopted = state.withLock { s in
                s.pendingCount = 0
                defer { s.adopted = [] }
                return s.adopted
            }
            for a in adopted { Glibc.close(a.fd) }
        }
        while !isStopped {
            expireDeadlines()
            let listening = shouldPollListener()
            var entries = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: listening ? listener : -1, events: Int16(POLLIN), revents: 0)]
            for p in pending {
                entries.append(pollfd(fd: p.socket.fd, events: Int16(p.wantsWrite ? POLLOUT : POLLIN), revents: 0))
            }
            let ready = poll(&entries, nfds_t(entries.count), pollTimeout())
            if ready < 0 {
                if errno != EINTR { usleep(10_000) }
                continue
            }
            if entries[0].revents != 0 {
                var count: UInt64 = 0
                _ = Glibc.read(wake, &count, 8)
            }
            if isStopped { break }
            // Step the ready handshakes, last first so removals keep indices.
            for index in stride(from: pending.count - 1, through: 0, by: -1) where entries[index + 2].revents != 0 {
                step(at: index)
            }
            if listening && entries[1].revents != 0 { acceptWaiting() }
            takeAdopted()
        }
    }

    /// Starts the handshakes of adopted sockets, shedding a pending one
    /// for each as an accepted connection would; without a slot to take,
    /// the socket is closed (the relay's pipe ends; its opener retries).
    private func takeAdopted() {
        let adopted = state.withLock { s in
            defer { s.adopted = [] }
            return s.adopted
        }
        for a in adopted {
            if pending.count >= limits.maxPendingHandshakes {
                guard let victim = backlogVictim() else {
                    Glibc.close(a.fd)
                    continue
                }
                drop(id: victim)
            }
            let socket: TLSSocket
            do {
                socket = try TLSSocket(fd: a.fd, peer: a.peer, context: context)
            } catch {
                continue  // TLSSocket closed the descriptor
            }
            start(Pending(id: 0, socket: socket, source: a.peer.host, since: monotonicSeconds(), authenticated: a.authenticated))
        }
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

    private func pollTimeout() -> Int32 {
        let now = monotonicSeconds()
        var next = Double.infinity
        for p in pending {
            next = min(next, deadline(of: p))
            // Full: look again when a holder's grace ends and it may be shed.
            if pending.count >= limits.maxPendingHandshakes, p.since + limits.pendingGrace > now {
                next = min(next, p.since + limits.pendingGrace)
            }
        }
        if next == .infinity { return -1 }
        return Int32(min(60_000, max(1, ((next - now) * 1000).rounded(.up))))
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
        p.socket.close()
        state.withLock { $0.pendingCount = pending.count }
    }

    private func drop(id: Int) {
        if let index = pending.firstIndex(where: { $0.id == id }) { drop(at: index) }
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
        case .wantRead: pending[index].wantsWrite = false
        case .wantWrite: pending[index].wantsWrite = true
        case .done(let agreement):
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
                // Out of descriptors: back off instead of spinning on a
                // listener that stays readable.
                var entry = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 100)
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
