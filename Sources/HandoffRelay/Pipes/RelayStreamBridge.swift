// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Joins a `RelayPipe` to a stream socket, so that the TLS channel runs
/// over the pipe unchanged (PROTOCOL.md §11 "Pipes", docs/agent.md §12):
/// `pair()` makes a non-blocking `socketpair(AF_UNIX, SOCK_STREAM)`; the
/// channel gets one end (`TLSSocket(fd:peer:context:)` drives TLS over any
/// stream socket), the relay's thread keeps this bridge on the other and
/// calls `pump` whenever the socket is ready (`pollEvents`) or the pipe has
/// moved. Never blocks. Back-pressure: nothing is read from the socket
/// while the pipe takes no more (`RelayPipe.writable`), and nothing more is
/// taken from the pipe while the socket has not taken what it was given.
/// Not thread-safe: the relay's thread only.
public struct RelayStreamBridge {
    /// The relay's end of the pair (owned: `close()` it).
    public let fd: Int32
    private var pending: [UInt8] = []
    private var readClosed = false
    private var writeShut = false
    private var closed = false

    /// A new pair: the channel's end (for `TLSSocket`) and the bridge on
    /// the other. Both non-blocking and close-on-exec.
    public static func pair() throws(HandoffError) -> (channelFD: Int32, bridge: RelayStreamBridge) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw HandoffError(.io, "could not make a socket pair for a relay pipe: \(String(cString: strerror(errno)))")
        }
        return (fds[0], RelayStreamBridge(fd: fds[1]))
    }

    init(fd: Int32) { self.fd = fd }

    /// What to poll the socket for: readable while the pipe takes bytes
    /// and the socket has not ended; writable while bytes wait for it.
    /// 0 means "do not poll this socket" (one that has ended reports
    /// POLLHUP for ever: the caller leaves it out).
    public func pollEvents(_ pipe: RelayPipe) -> Int16 {
        guard !closed else { return 0 }
        var events: Int16 = 0
        if !readClosed && pipe.writable > 0 { events |= Int16(POLLIN) }
        if !pending.isEmpty { events |= Int16(POLLOUT) }
        return events
    }

    /// Moves what it can both ways; true when anything moved. The socket's
    /// end of stream closes the pipe (CLOSE after its bytes); the pipe's
    /// end shuts the socket's writing side; a reset pipe, or a socket
    /// error, ends both.
    @discardableResult
    public mutating func pump(_ pipe: inout RelayPipe) -> Bool {
        guard !closed else { return false }
        var moved = false
        var buffer = [UInt8](repeating: 0, count: RelayPipeFrame.maxPayload)
        while !readClosed && pipe.writable > 0 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, pipe.writable), Int32(MSG_DONTWAIT)) }
            if n > 0 {
                _ = pipe.write(buffer[0..<n])
                moved = true
            } else if n == 0 {
                readClosed = true
                pipe.close()
                moved = true
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else if errno != EINTR {
                pipe.reset(.closed)
                shutDown()
                return true
            }
        }
        while true {
            if pending.isEmpty { pending = pipe.read(max: 65_536) }
            guard !pending.isEmpty else { break }
            let n = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                pending.removeFirst(n)
                moved = true
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                pipe.reset(.closed)
                shutDown()
                return true
            }
        }
        if pipe.atEnd && pending.isEmpty && !writeShut {
            shutdown(fd, Int32(SHUT_WR))
            writeShut = true
            moved = true
        }
        if case .reset = pipe.phase {
            shutDown()
            moved = true
        }
        return moved
    }

    /// Whether everything the pipe delivered has gone into the socket.
    public var isFlushed: Bool { pending.isEmpty || closed }

    /// After the pipe is forgotten: writes what is still pending into the
    /// socket, then shuts its writing side (the channel reads the end of
    /// the stream after the last byte). True once nothing is left.
    @discardableResult
    public mutating func flush() -> Bool {
        while !closed && !pending.isEmpty {
            let n = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                pending.removeFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return false
            } else {
                shutDown()
            }
        }
        if !closed && !writeShut {
            shutdown(fd, Int32(SHUT_WR))
            writeShut = true
        }
        return true
    }

    /// Ends the socket both ways (the channel sees the connection reset).
    private mutating func shutDown() {
        guard !closed else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        closed = true
    }

    /// Closes the relay's end. Call once, when the pipe is forgotten.
    public func close() { _ = Glibc.close(fd) }
}
