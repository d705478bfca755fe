import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Carries one continuation stream between the library's end of the
/// host's socket pair and a channel connection in stream mode: outbound,
/// what the host writes goes out as DATA frames and its half-close as END;
/// inbound, DATA frames are written to the host and END becomes a
/// half-close. Each direction is one thread doing blocking I/O, so a slow
/// reader stops the writer through the kernel's buffers and TCP's window:
/// the pump itself holds one 16 KiB buffer per direction.
///
/// A connection that ends without END, or a host that stops reading,
/// fails the stream: both sides' host sockets are shut down (reads see
/// EOF, writes EPIPE). The last direction to finish closes the connection
/// and the library's socket.
final class StreamPump: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`; `connection` is
    // Sendable and `local` an immutable descriptor.
    private let connection: ChannelConnection
    private let local: Int32
    private let state = Locked(State())

    private struct State {
        var running = 2
        var failed = false
    }

    /// How a vanished peer is noticed on an otherwise silent or blocked
    /// stream: keep-alive probes after this many idle seconds, and unacknowledged data for `unacknowledged` seconds ends it.
    static let keepAliveIdle: Int32 = 10
    static let unacknowledgedLimit: Int32 = 30

    private init(connection: ChannelConnection, local: Int32) {
        self.connection = connection
        self.local = local
    }

    /// Pumps until the stream has ended both ways, on the calling thread
    /// (inbound) and one new thread (outbound), and returns then.
    /// `buffered` holds bytes that arrived with the frame that switched the
    /// connection to stream mode. Takes ownership of `local` and of the
    /// connection.
    static func run(connection: ChannelConnection, local: Int32, buffered: [UInt8]) {
        connection.detectVanishedPeer(idle: keepAliveIdle, unacknowledged: unacknowledgedLimit)
        let pump = StreamPump(connection: connection, local: local)
        let outboundDone = OneShot<Bool>()
        if !startDetachedThread({ pump.outbound(); outboundDone.fulfil(true) }) {
            pump.fail()
            pump.finished()  // the outbound direction that never ran
            outboundDone.fulfil(true)
        }
        pump.inbound(buffered)
        _ = outboundDone.wait(seconds: .infinity)
    }

    // MARK: Outbound: host → channel

    private func outbound() {
        let header = StreamFrame.headerSize
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: header + StreamFrame.maxDataPerFrame, alignment: 8)
        defer {
            buffer.deallocate()
            finished()
        }
        while true {
            let n = recv(local, buffer + header, StreamFrame.maxDataPerFrame, 0)
            if n < 0 && errno == EINTR { continue }
            if isFailed { return }
            if n < 0 {
                fail()  // e.g. ECONNRESET: the host's socket went abruptly
                return
            }
            // n == 0: the host half-closed (or closed) its socket: END.
            StreamFrame.writeHeader(n > 0 ? StreamFrame.data : StreamFrame.end, payloadCount: n, to: buffer)
            do {
                try connection.writeRaw(buffer, count: header + n, timeout: .infinity)
            } catch {
                fail()
                return
            }
            if n == 0 { return }
        }
    }

    // MARK: Inbound: channel → host

    private func inbound(_ buffered: [UInt8]) {
        defer { finished() }
        var parser = StreamFrameParser(maxFrameSize: connection.limits.maxFrameSize)
        let ended: Bool = buffered.withUnsafeBufferPointer { feed(&parser, $0) }
        if ended || isFailed { return }
        let capacity = 16_384
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { scratch.deallocate() }
        while true {
            let count: Int
            do {
                count = try connection.readRaw(into: scratch, capacity: capacity, timeout: .infinity)
            } catch {
                fail()  // the connection ended without END: the peer vanished
                return
            }
            if feed(&parser, UnsafeBufferPointer(start: scratch, count: count)) || isFailed { return }
        }
    }

    /// Passes received bytes on; true once the stream's END arrived (or it
    /// failed).
    private func feed(_ parser: inout StreamFrameParser, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var outcome = false
        parser.parse(bytes) { event in
            switch event {
            case .data(let chunk):
                guard sendAll(chunk) else {
                    fail()  // the host closed its socket: it reads no more
                    outcome = true
                    return false
                }
                return true
            case .end:
                _ = shutdown(local, Int32(SHUT_WR))
                outcome = true
                return false
            case .malformed:
                fail()
                outcome = true
                return false
            }
        }
        return outcome
    }

    private func sendAll(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < chunk.count {
            let n = send(local, chunk.baseAddress! + offset, chunk.count - offset, Int32(MSG_NOSIGNAL))
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
        }
        return true
    }

    // MARK: Ending

    private var isFailed: Bool { state.withLock { $0.failed } }

    /// The stream cannot go on: the connection ends without END (the peer
    /// sees the loss) and the host's socket is shut down both ways.
    private func fail() {
        let first = state.withLock { s in
            defer { s.failed = true }
            return !s.failed
        }
        guard first else { return }
        connection.close()
        _ = shutdown(local, Int32(SHUT_RDWR))
    }

    /// One direction is done; the last one closes everything.
    private func finished() {
        let last = state.withLock { s in
            s.running -= 1
            return s.running == 0
        }
        guard last else { return }
        connection.close()
        _ = close(local)
    }
}

/// Splits stream-mode bytes into DATA chunks and END, across reads,
/// without copying: a chunk points into the bytes given to `parse`.
struct StreamFrameParser {
    enum Event {
        case data(UnsafeBufferPointer<UInt8>)
        case end
        case malformed
    }

    let maxFrameSize: Int
    private var header: [UInt8] = []
    private var remaining = 0
    private var done = false

    init(maxFrameSize: Int) {
        self.maxFrameSize = maxFrameSize
        header.reserveCapacity(StreamFrame.headerSize)
    }

    /// Calls `handle` for each event in `bytes`; stops when it returns
    /// false, and for good after END or a malformed frame.
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ handle: (Event) -> Bool) {
        var i = 0
        while i < bytes.count && !done {
            if remaining > 0 {
                let take = min(remaining, bytes.count - i)
                remaining -= take
                if !handle(.data(UnsafeBufferPointer(rebasing: bytes[i..<(i + take)]))) { done = true }
                i += take
                continue
            }
            header.append(bytes[i])
            i += 1
            guard header.count == StreamFrame.headerSize else { continue }
            let n = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = header[4]
            header.removeAll(keepingCapacity: true)
            if type == StreamFrame.data && n >= 2 && n <= maxFrameSize {
                remaining = n - 1
            } else {
                done = true
                _ = handle(type == StreamFrame.end && n == 1 ? .end : .malformed)
            }
        }
    }
}
