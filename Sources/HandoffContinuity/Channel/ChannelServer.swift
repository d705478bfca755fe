import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Accepts channel connections from the account's other devices.
///
/// One accept thread takes connections; each runs its TLS handshake on its
/// own thread, at most `limits.maxPendingHandshakes` at once and each
/// within `limits.handshakeTimeout` (more are closed as soon as accepted).
/// After a handshake succeeds, `onConnection` runs on that same thread and
/// owns the connection: it loops on receive/send and returns, and the
/// connection is closed when it returns. At most `limits.maxConnections`
/// authenticated connections are alive at once.
public final class ChannelServer: Sendable {
    /// The port listened on (the ephemeral one chosen when asked for 0).
    public let port: UInt16
    private let core: ChannelServerCore

    /// Listens on `address` (port 0: an ephemeral port, see `port`).
    /// Throws `.invalidArgument` for a bad address, key or limits, `.io`
    /// when the address cannot be bound.
    public init(listeningOn address: SocketAddress, psk: [UInt8], limits: ChannelLimits = ChannelLimits(),
                onConnection: @escaping @Sendable (ChannelConnection) -> Void) throws(HandoffError) {
        let limits = try limits.validated()
        let resolved = try address.resolved()
        let context = try TLSContext(role: .server, psk: psk)
        let listener = try openListener(resolved, address: address)
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
        core = ChannelServerCore(listener: listener, wake: wake, context: context, limits: limits, onConnection: onConnection)
        let core = self.core
        guard let thread = startJoinableThread({ core.acceptLoop() }) else {
            core.closeDescriptors()
            throw HandoffError(.io, "the system refused a thread for the channel's listener: too many threads?")
        }
        core.setAcceptThread(thread)
    }

    deinit {
        core.stop()
    }

    /// Closes the listener, aborts pending handshakes and open connections
    /// (their threads fail promptly and `onConnection` is not called for a
    /// handshake still running), and joins the accept thread. Idempotent;
    /// may be called from `onConnection`.
    public func stop() {
        core.stop()
    }

    /// Connections handshaking and authenticated connections alive: for tests.
    var counts: (pending: Int, active: Int) { core.counts }
}

/// The server's state, shared by the accept thread and the connection threads
/// (which keep it alive, not the ChannelServer, so dropping the server stops it).
private final class ChannelServerCore: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (a Locked); the descriptors
    // are closed only after the accept thread, their one user, is joined.
    let listener: Int32
    let wake: Int32
    let context: TLSContext
    let limits: ChannelLimits
    let onConnection: @Sendable (ChannelConnection) -> Void

    private struct State {
        var stopped = false
        var acceptThread: pthread_t?
        var nextID = 0
        var handshaking: [Int: TLSSocket] = [:]
        var active: [Int: ChannelConnection] = [:]
    }
    private let state = Locked(State())

    init(listener: Int32, wake: Int32, context: TLSContext, limits: ChannelLimits, onConnection: @escaping @Sendable (ChannelConnection) -> Void) {
        self.listener = listener
        self.wake = wake
        self.context = context
        self.limits = limits
        self.onConnection = onConnection
    }

    var counts: (pending: Int, active: Int) {
        state.withLock { ($0.handshaking.count, $0.active.count) }
    }

    func setAcceptThread(_ thread: pthread_t) {
        state.withLock { $0.acceptThread = thread }
    }

    func closeDescriptors() {
        Glibc.close(listener)
        Glibc.close(wake)
    }

    func stop() {
        let (thread, handshaking, active) = state.withLock { s -> (pthread_t?, [TLSSocket], [ChannelConnection]) in
            if s.stopped { return (nil, [], []) }
            s.stopped = true
            let thread = s.acceptThread
            s.acceptThread = nil
            return (thread, Array(s.handshaking.values), Array(s.active.values))
        }
        guard let thread else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
        for socket in handshaking { socket.close() }
        for connection in active { connection.close() }
        pthread_join(thread, nil)
        closeDescriptors()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// The accept thread: waits on the listener and the wake-up descriptor.
    func acceptLoop() {
        var entries = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while !isStopped {
            entries[0].revents = 0
            entries[1].revents = 0
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                usleep(10_000)
                continue
            }
            if entries[1].revents != 0 { break }  // stop()
            if entries[0].revents != 0 { acceptOne() }
        }
    }

    private func acceptOne() {
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
        // Cheap refusal first: no SSL for a connection we will not serve.
        let full = state.withLock { s in
            s.stopped || s.handshaking.count >= limits.maxPendingHandshakes || s.active.count >= limits.maxConnections
        }
        if full {
            Glibc.close(fd)
            return
        }
        let socket: TLSSocket
        do {
            socket = try TLSSocket(fd: fd, peer: peer, context: context)
        } catch {
            return  // TLSSocket closed the descriptor
        }
        let id: Int? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.nextID += 1
            s.handshaking[s.nextID] = socket
            return s.nextID
        }
        guard let id else {
            socket.close()
            return
        }
        let started = startDetachedThread { [self] in
            serve(socket, id: id)
        }
        if !started {
            _ = state.withLock { $0.handshaking.removeValue(forKey: id) }
            socket.close()
        }
    }

    /// A connection's thread: the handshake, then the app's handler.
    private func serve(_ socket: TLSSocket, id: Int) {
        let group: String
        do {
            group = try socket.handshake(timeout: limits.handshakeTimeout)
        } catch {
            _ = state.withLock { $0.handshaking.removeValue(forKey: id) }
            socket.close()
            return
        }
        let connection = ChannelConnection(socket: socket, limits: limits, keyExchangeGroup: group)
        let admitted = state.withLock { s in
            s.handshaking.removeValue(forKey: id)
            guard !s.stopped, s.active.count < limits.maxConnections else { return false }
            s.active[id] = connection
            return true
        }
        guard admitted else {
            connection.close()
            return
        }
        onConnection(connection)
        _ = state.withLock { $0.active.removeValue(forKey: id) }
        connection.close()
    }
}

/// A bound, listening, non-blocking socket.
private func openListener(_ resolved: ResolvedSocketAddress, address: SocketAddress) throws(HandoffError) -> Int32 {
    let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else {
        throw HandoffError(.io, "could not create a socket to listen on \(address) (\(errnoText(errno)))")
    }
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    let bound = resolved.withSockaddr { bind(fd, $0, $1) }
    guard bound == 0 else {
        let code = errno
        Glibc.close(fd)
        let hint = code == EADDRINUSE ? "another program uses this port: choose another or 0"
            : code == EADDRNOTAVAIL ? "this device has no such address" : "check the address"
        throw HandoffError(.io, "could not listen on \(address) (\(errnoText(code))): \(hint)")
    }
    guard listen(fd, 64) == 0 else {
        let code = errno
        Glibc.close(fd)
        throw HandoffError(.io, "could not listen on \(address) (\(errnoText(code)))")
    }
    return fd
}

