// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// An authenticated, encrypted connection to another device of the account:
/// TCP, then standard TLS 1.3 with the account's channel key as external
/// PSK plus an (EC)DHE key exchange, carrying length-prefixed frames.
///
/// Every call blocks its thread for at most its timeout. One thread may
/// receive while another sends; `close()` may be called from any thread at
/// any time, and a call blocked on the connection then fails promptly with
/// `.connectionUnavailable`.
public final class ChannelConnection: Sendable {
    let socket: TLSSocket
    let limits: ChannelLimits
    private let inbox = FrameInbox()

    /// The other end's address.
    public var peer: SocketAddress { socket.peer }
    /// The (EC)DHE group the handshake used, e.g. "x25519": the proof that
    /// the session keys have forward secrecy. Never nil for an open
    /// connection (a handshake without one is refused).
    public let keyExchangeGroup: String?
    /// The protocol revision both ends speak (docs/PROTOCOL.md §10): what
    /// this connection may carry beyond revision 1.
    public let revision: Int

    /// Since when no exchange has been outstanding (nil while one is, and
    /// until the handler first calls `markIdle`): a server closes only idle
    /// connections to make room.
    private let idle = Locked<Double?>(nil)
    /// Called when the connection becomes idle: a server waiting for room
    /// looks again then (rather than on a period).
    private let becameIdle: @Sendable () -> Void

    init(socket: TLSSocket, limits: ChannelLimits, agreement: TLSSocket.Agreement,
         becameIdle: @escaping @Sendable () -> Void = {}) {
        self.socket = socket
        self.limits = limits
        self.keyExchangeGroup = agreement.group
        self.revision = agreement.revision
        self.becameIdle = becameIdle
    }

    /// Since when the connection has been idle, or nil while busy.
    var idleSince: Double? { idle.withLock { $0 } }

    /// The handler waits for the next request with nothing outstanding:
    /// the server may close this connection for a newcomer.
    func markIdle() {
        let became = idle.withLock { i in
            defer { if i == nil { i = monotonicSeconds() } }
            return i == nil
        }
        if became { becameIdle() }
    }

    /// An exchange is outstanding: the server leaves this connection alone.
    func markBusy() {
        idle.withLock { $0 = nil }
    }

    deinit {
        socket.close()
    }

    /// Connects within `limits.connectTimeout`, then runs the TLS 1.3 PSK
    /// handshake within `limits.handshakeTimeout`.
    ///
    /// Throws `.connectionUnavailable` (4609) when the peer refuses, cannot
    /// be reached, does not answer in time or resets the connection;
    /// `.handoffFailed` (4608) when the handshake fails, which with a
    /// running peer means it holds another account's key;
    /// `.invalidArgument` for a bad address, key or limits.
    public static func connect(to address: SocketAddress, psk: [UInt8], limits: ChannelLimits = ChannelLimits()) throws(HandoffError) -> ChannelConnection {
        try connect(to: address, psk: psk, limits: limits, identity: TLSContext.randomIdentity())
    }

    /// `connect` with a chosen PSK identity: only for tests (stock
    /// `openssl s_server` accepts exactly one identity).
    /// `revisions`: for tests that play an older or newer device.
    static func connect(to address: SocketAddress, psk: [UInt8], limits: ChannelLimits, identity: [UInt8],
                        revisions: ClosedRange<Int> = ProtocolRevision.spoken) throws(HandoffError) -> ChannelConnection {
        let limits = try limits.validated()
        let resolved = try address.resolved()
        let context = try TLSContext(role: .client, psk: psk, identity: identity, revisions: revisions)
        let fd = try openTCPConnection(to: resolved, address: address, timeout: limits.connectTimeout)
        return try handshake(TLSSocket(fd: fd, peer: address, context: context), limits: limits)
    }

    /// The TLS handshake on a socket not yet a connection (TCP, or a relay
    /// pipe's stream) within `limits.handshakeTimeout`; the socket is closed
    /// when it fails.
    static func handshake(_ socket: TLSSocket, limits: ChannelLimits) throws(HandoffError) -> ChannelConnection {
        do {
            let agreement = try socket.handshake(timeout: limits.handshakeTimeout)
            return ChannelConnection(socket: socket, limits: limits, agreement: agreement)
        } catch {
            socket.close()
            throw error
        }
    }

    /// Sends one frame within `timeout` seconds. A frame larger than
    /// `limits.maxFrameSize` is refused (`.invalidArgument`). When the
    /// timeout passes (`.timedOut`) or the peer has gone
    /// (`.connectionUnavailable`) the connection is closed: part of the frame
    /// may have left.
    public func send(_ frame: Frame, timeout: Double) throws(HandoffError) {
        guard frame.length <= limits.maxFrameSize else {
            throw HandoffError(.invalidArgument, "the frame holds \(frame.length) bytes and the channel's limit is \(limits.maxFrameSize): send large data in several frames")
        }
        try sendRaw(frame.encoded(), timeout: timeout)
    }

    /// Writes bytes as they are, unframed: for tests that play a hostile peer.
    func sendRaw(_ bytes: [UInt8], timeout: Double) throws(HandoffError) {
        let deadline = try Deadline(validating: timeout, "ChannelConnection.send")
        try socket.withUse(.send) { () throws(HandoffError) in
            try socket.write(bytes, until: deadline, timeoutMessage:
                "\(peer) did not take the frame within \(secondsText(timeout)) (it is not reading): the connection was closed")
        }
    }

    /// Receives the next frame, waiting at most `timeout` seconds.
    ///
    /// `.timedOut` leaves the connection open (a partly received frame is
    /// kept for the next call); `.connectionUnavailable` on end of stream,
    /// reset or close; `.malformedData` for a length prefix outside
    /// `1...limits.maxFrameSize`, refused before the payload is read or
    /// allocated, after which the connection is closed.
    public func receive(timeout: Double) throws(HandoffError) -> Frame {
        let deadline = try Deadline(validating: timeout, "ChannelConnection.receive")
        return try socket.withUse(.receive) { () throws(HandoffError) -> Frame in
            while true {
                switch inbox.nextFrame(maxFrameSize: limits.maxFrameSize) {
                case .frame(let frame):
                    return frame
                case .badLength(let length):
                    socket.close()
                    throw HandoffError(.malformedData, "\(peer) announced a frame of \(length) bytes; frames hold 1...\(limits.maxFrameSize) bytes: the connection was closed")
                case .needMore:
                    let count = try socket.read(into: inbox.scratch, capacity: FrameInbox.scratchSize, until: deadline, timeoutMessage:
                        "no frame arrived from \(peer) within \(secondsText(timeout)): the connection stays open")
                    inbox.append(count: count)
                }
            }
        }
    }

    /// Closes the connection (idempotent, any thread): a TLS close_notify,
    /// then TCP (no close_notify while another thread is sending, nor after
    /// the TLS connection failed). A thread blocked in `send` or `receive`
    /// on it fails promptly with `.connectionUnavailable`.
    public func close() {
        socket.close()
    }

    /// Closes after sending everything queued, reading and dropping what
    /// the peer still sends until it closes too (at most `timeout`): see
    /// `TLSSocket.closeLingering`. Only when no other thread uses it.
    func closeLingering(timeout: Double) {
        socket.closeLingering(timeout: timeout)
    }

    /// Ends the connection with a TCP reset, as a crashed peer would: for tests.
    func abort() {
        socket.abort()
    }

    // MARK: Raw bytes, after the frames (continuation streams)

    /// The bytes received after the last frame `receive` returned, handed
    /// over (and forgotten here) when a caller switches to `readRaw`.
    func takeBufferedBytes() throws(HandoffError) -> [UInt8] {
        try socket.withUse(.receive) { inbox.takeRemaining() }
    }

    /// What has arrived, at most `capacity` bytes, waiting at most
    /// `timeout` seconds for the first; as much as is there without waiting
    /// after that. Errors as `receive`.
    func readRaw(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, timeout: Double) throws(HandoffError) -> Int {
        let deadline = try Deadline(validating: timeout, "ChannelConnection.readRaw")
        return try socket.withUse(.receive) { () throws(HandoffError) -> Int in
            try socket.readBatch(into: buffer, capacity: capacity, until: deadline, timeoutMessage:
                "nothing arrived from \(peer) within \(secondsText(timeout))")
        }
    }

    /// Writes `count` bytes as they are, within `timeout` seconds. Errors
    /// as `send`.
    func writeRaw(_ bytes: UnsafeRawPointer, count: Int, timeout: Double) throws(HandoffError) {
        let deadline = try Deadline(validating: timeout, "ChannelConnection.writeRaw")
        try socket.withUse(.send) { () throws(HandoffError) in
            try socket.write(bytes, count: count, until: deadline, timeoutMessage:
                "\(peer) did not take the data within \(secondsText(timeout)) (it is not reading): the connection was closed")
        }
    }

    /// A long-lived connection notices a vanished peer: TCP keep-alive
    /// probes after `idle` seconds of silence, and sent data left
    /// unacknowledged for `unacknowledged` seconds ends it.
    func detectVanishedPeer(idle: Int32, unacknowledged: Int32) {
        var on: Int32 = 1, idle = idle, interval: Int32 = max(1, idle / 3), count: Int32 = 3
        var timeout = UInt32(unacknowledged) * 1000
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
        _ = setsockopt(socket.fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
        _ = setsockopt(socket.fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
        _ = setsockopt(socket.fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
        _ = setsockopt(socket.fd, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &timeout, size)
    }

}

/// Bytes received and not yet returned as frames. Only the thread inside
/// `withUse(.receive)` touches it, one at a time (the socket's lock orders
/// them).
private final class FrameInbox: @unchecked Sendable {
    // @unchecked: used by one receiving thread at a time, see above.
    /// A TLS record's largest plaintext: one SSL_read never returns more.
    static let scratchSize = 16_384

    enum Next {
        case frame(Frame)
        case badLength(UInt32)
        case needMore
    }

    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: scratchSize)
    private var bytes: [UInt8] = []
    private var start = 0
    /// N of the frame being received, once its prefix has been read and checked.
    private var expected: Int?

    deinit { scratch.deallocate() }

    /// Everything after the last returned frame (none is half-read then).
    func takeRemaining() -> [UInt8] {
        defer { bytes.removeAll(); start = 0; expected = nil }
        return Array(bytes[start...])
    }

    func append(count: Int) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: scratch, count: count))
    }

    func nextFrame(maxFrameSize: Int) -> Next {
        if expected == nil {
            guard bytes.count - start >= 4 else { return .needMore }
            let n = UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8 | UInt32(bytes[start + 3])
            guard n >= 1, UInt64(n) <= UInt64(maxFrameSize) else { return .badLength(n) }
            expected = Int(n)
            start += 4
        }
        guard let n = expected, bytes.count - start >= n else { return .needMore }
        let frame = Frame(type: bytes[start], payload: Array(bytes[(start + 1)..<(start + n)]))
        start += n
        expected = nil
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 2 * Self.scratchSize)
            start = 0
        } else if start >= 4 * Self.scratchSize {
            bytes.removeFirst(start)
            start = 0
        }
        return .frame(frame)
    }
}

/// A connected, non-blocking TCP socket to `resolved`, within `timeout`.
func openTCPConnection(to resolved: ResolvedSocketAddress, address: SocketAddress, timeout: Double) throws(HandoffError) -> Int32 {
    let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else {
        throw HandoffError(.connectionUnavailable, "could not create a socket to connect to \(address) (\(errnoText(errno)))")
    }
    setNoDelay(fd)
    let result = resolved.withSockaddr { Glibc.connect(fd, $0, $1) }
    var code = result == 0 ? 0 : errno
    if code == EINPROGRESS || code == EINTR {
        switch wait(fd, for: Int16(POLLOUT), until: Deadline(after: timeout)) {
        case .ready, .cancelled:
            break
        case .timedOut:
            Glibc.close(fd)
            throw HandoffError(.connectionUnavailable, "\(address) did not answer within \(secondsText(timeout)): check that the other device is on this network")
        case .error(let failure):
            Glibc.close(fd)
            throw HandoffError(.connectionUnavailable, "could not wait for the connection to \(address) (\(errnoText(failure)))")
        }
        var length = socklen_t(MemoryLayout<Int32>.size)
        code = 0
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
    }
    guard code == 0 else {
        Glibc.close(fd)
        switch code {
        case ECONNREFUSED:
            throw HandoffError(.connectionUnavailable, "nothing accepts connections at \(address) (connection refused): check that Handoff runs on the other device")
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL:
            throw HandoffError(.connectionUnavailable, "\(address) cannot be reached (\(errnoText(code))): check that both devices are on the same network")
        case ETIMEDOUT:
            throw HandoffError(.connectionUnavailable, "\(address) did not answer (\(errnoText(code))): check that the other device is on this network")
        case EINVAL, EAFNOSUPPORT:
            throw HandoffError(.invalidArgument, "cannot connect to \(address) (\(errnoText(code))): check the address")
        default:
            throw HandoffError(.connectionUnavailable, "could not connect to \(address) (\(errnoText(code)))")
        }
    }
    return fd
}

/// Frames are small requests and answers: send each at once (no Nagle).
func setNoDelay(_ fd: Int32) {
    var on: Int32 = 1
    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
}
