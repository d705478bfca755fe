// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
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
/// the pump itself holds one 256 KiB buffer per direction.
///
/// A connection that ends without END, or a host that stops reading,
/// fails the stream (it is lost): the connection is closed without END, and
/// the library's socket is closed with its reserve byte unread
/// (`LocalSocketPair`), so the host's reads fail with ECONNRESET once it
/// has what arrived, and its writes with EPIPE. A lost stream never reads
/// as a clean EOF. The last direction to finish closes the connection and
/// the library's socket.
final class StreamPump: @unchecked Sendable {
    // @unchecked: the mutable state is behind `state`; `connection` is
    // Sendable and `local` an immutable descriptor.
    private let connection: ChannelConnection
    private let local: Int32
    /// An eventfd `fail` signals, so that a direction blocked until the
    /// host's socket has room wakes for a failure too (-1 when none could
    /// be made: that wait then looks every `failureCheckSeconds`).
    private let failedSignal: Int32
    private let state = Locked(State())

    private let outboundDone = OneShot<Bool>()

    private struct State {
        var running = 2
        var failed = false
        /// The engine stopped before the host half-closed: the stream is
        /// lost, not ended (no END on the host's behalf).
        var cut = false
        /// `local` is closed: its number may belong to someone else now.
        var closed = false
    }

    /// How a vanished peer is noticed on an otherwise silent or blocked
    /// stream: keep-alive probes after this many idle seconds, and unacknowledged data for `unacknowledged` seconds ends it.
    static let keepAliveIdle: Int32 = 10
    static let unacknowledgedLimit: Int32 = 30

    private init(connection: ChannelConnection, local: Int32) {
        self.connection = connection
        self.local = local
        failedSignal = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    }

    /// Pumps until the stream has ended both ways, on the calling thread
    /// (inbound) and one new thread (outbound), and returns then.
    /// `buffered` holds bytes that arrived with the frame that switched the
    /// connection to stream mode. Takes ownership of `local` and of the
    /// connection; balances the caller's `registry.willStart()`.
    static func run(connection: ChannelConnection, local: Int32, buffered: [UInt8], registry: StreamRegistry) {
        connection.detectVanishedPeer(idle: keepAliveIdle, unacknowledged: unacknowledgedLimit)
        let pump = StreamPump(connection: connection, local: local)
        registry.add(pump)
        defer { registry.remove(pump) }
        if !registry.threads.start(named: "hoff-stream-out", { pump.outbound(); pump.outboundDone.fulfil(true) }) {
            pump.fail()
            pump.finished()  // the outbound direction that never ran
            pump.outboundDone.fulfil(true)
        }
        pump.inbound(buffered)
        _ = pump.outboundDone.wait(seconds: .infinity)
    }

    // MARK: Stopping (the engine's detach)

    /// The host may write no more: what it wrote is still sent, then END
    /// if it had half-closed (or closed) its end; if it had not, the
    /// stream is lost (it was cut mid-write), never ended on its behalf.
    func endHostInput() {
        state.withLock { s in
            guard !s.closed else { return }
            // RDHUP on our end: the host's half-close or close reached it.
            var entry = pollfd(fd: local, events: Self.pollReadHangUp, revents: 0)
            let hostDone = poll(&entry, 1, 0) == 1 && entry.revents & Self.pollReadHangUp != 0
            if !hostDone { s.cut = true }
            _ = shutdown(local, Int32(SHUT_RD))
        }
    }

    /// POLLRDHUP (Glibc exports it only with _GNU_SOURCE).
    private static let pollReadHangUp: Int16 = 0x2000

    /// Waits until the outbound direction is done, at most `seconds`.
    func waitOutbound(seconds: Double) {
        _ = outboundDone.wait(seconds: seconds)
    }

    /// Ends the stream now, both ways.
    func end() {
        fail()
    }

    // MARK: Outbound: host → channel

    /// Frames sent per batch: one recv from the host fills this many DATA
    /// frames, which go out in one write (fewer wake-ups for bulk data).
    static let framesPerBatch = 16
    /// What the pump holds per direction.
    static let batchBytes = framesPerBatch * (StreamFrame.headerSize + StreamFrame.maxDataPerFrame)

    private func outbound() {
        let header = StreamFrame.headerSize, slot = header + StreamFrame.maxDataPerFrame
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.batchBytes, alignment: 8)
        // The host's bytes land straight in each frame's payload slot.
        var slots = (0..<Self.framesPerBatch).map { i in
            iovec(iov_base: buffer + i * slot + header, iov_len: StreamFrame.maxDataPerFrame)
        }
        defer {
            buffer.deallocate()
            finished()
        }
        while true {
            // Past the reserve byte: blocks until the host writes,
            // half-closes or closes. What is read stays queued until sent.
            var message = msghdr()
            let n = slots.withUnsafeMutableBufferPointer { all -> Int in
                message.msg_iov = all.baseAddress!
                message.msg_iovlen = all.count
                return recvmsg(local, &message, Int32(MSG_PEEK))
            }
            if n < 0 && errno == EINTR { continue }
            if isFailed { return }
            if n < 0 {
                fail()  // e.g. ECONNRESET: the host's socket went abruptly
                return
            }
            if n == 0 && state.withLock({ $0.cut }) {
                fail()  // stopped before the host half-closed: lost, not ended
                return
            }
            // Full slots, then a partial one; n == 0: the host half-closed
            // (or closed) its socket, which becomes END.
            var length = 0, left = n
            repeat {
                let chunk = min(left, StreamFrame.maxDataPerFrame)
                StreamFrame.writeHeader(chunk > 0 ? StreamFrame.data : StreamFrame.end, payloadCount: chunk, to: buffer + length)
                length += header + chunk
                left -= chunk
            } while left > 0
            do {
                try connection.writeRaw(buffer, count: length, timeout: .infinity)
            } catch {
                fail()
                return
            }
            if n == 0 { return }
            // Sent: take the reserve and all but the last byte sent, which
            // stays behind as the new reserve.
            guard take(n, into: buffer) else {
                fail()
                return
            }
        }
    }

    /// Reads (and drops) `count` bytes that are known to be queued.
    private func take(_ count: Int, into buffer: UnsafeMutableRawPointer) -> Bool {
        var left = count
        while left > 0 {
            let n = recv(local, buffer, min(left, Self.batchBytes), Int32(MSG_DONTWAIT))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            left -= n
        }
        return true
    }

    // MARK: Inbound: channel → host

    private func inbound(_ buffered: [UInt8]) {
        defer { finished() }
        var parser = StreamFrameParser(maxFrameSize: connection.limits.maxFrameSize)
        let capacity = max(Self.batchBytes, buffered.count)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { scratch.deallocate() }
        var count = buffered.count
        buffered.withUnsafeBufferPointer { b in
            if let base = b.baseAddress { scratch.update(from: base, count: b.count) }
        }
        while true {
            if count > 0, forward(&parser, scratch, count) || isFailed { return }
            do {
                count = try connection.readRaw(into: scratch, capacity: capacity, timeout: .infinity)
            } catch {
                fail()  // the connection ended without END: the peer vanished
                return
            }
        }
    }

    /// Passes the payload of the frames in `bytes` to the host in one
    /// gathered write (no copy beyond the kernel's). True once the stream's
    /// END arrived (or it failed).
    private func forward(_ parser: inout StreamFrameParser, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) -> Bool {
        var chunks: [iovec] = []
        chunks.reserveCapacity(count / StreamFrame.maxDataPerFrame + 2)
        var ended = false
        parser.parse(UnsafeBufferPointer(start: bytes, count: count)) { event in
            switch event {
            case .data(let chunk):
                chunks.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: chunk.baseAddress!), iov_len: chunk.count))
                return true
            case .end:
                ended = true
                return false
            case .malformed:
                fail()
                return false
            }
        }
        guard sendAll(&chunks) else {
            fail()  // the host closed its socket: it reads no more
            return true
        }
        if ended { _ = shutdown(local, Int32(SHUT_WR)) }
        return ended || isFailed
    }

    /// Writes every chunk to the host's socket, blocking while it is full.
    private func sendAll(_ chunks: inout [iovec]) -> Bool {
        var first = 0
        while first < chunks.count {
            var message = msghdr()
            let n = chunks.withUnsafeMutableBufferPointer { all -> Int in
                message.msg_iov = all.baseAddress! + first
                message.msg_iovlen = min(all.count - first, 1024)  // IOV_MAX on Linux
                return sendmsg(local, &message, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN && waitForRoom() { continue }
                return false
            }
            // Skip what went out; a partly sent chunk keeps its rest.
            var sent = n
            while first < chunks.count && sent >= chunks[first].iov_len {
                sent -= chunks[first].iov_len
                first += 1
            }
            if sent > 0 {
                chunks[first].iov_base += sent
                chunks[first].iov_len -= sent
            }
        }
        return true
    }

    /// Waits until the host's socket has room; false once the stream
    /// failed. A failure cannot wake this wait through the host's socket
    /// (SHUT_WR would read as a clean EOF there), so `fail` signals
    /// `failedSignal`; without one it looks every `failureCheckSeconds`.
    private func waitForRoom() -> Bool {
        while !isFailed {
            let bound = failedSignal >= 0 ? Deadline(after: .infinity) : Deadline(after: Self.failureCheckSeconds)
            switch wait(local, for: Int16(POLLOUT), until: bound, cancel: failedSignal) {
            case .ready, .cancelled: return !isFailed
            case .timedOut, .error: continue
            }
        }
        return false
    }

    static let failureCheckSeconds = 0.2

    // MARK: Ending

    private var isFailed: Bool { state.withLock { $0.failed } }

    /// The stream cannot go on: the connection ends without END (the peer
    /// sees the loss) and both directions stop; `finished` then closes the
    /// library's socket with the reserve unread (the host's reads fail with
    /// ECONNRESET). Never SHUT_WR here: the host would read a clean EOF.
    private func fail() {
        let first = state.withLock { s in
            defer { s.failed = true }
            return !s.failed
        }
        guard first else { return }
        connection.close()  // wakes the inbound direction's read
        state.withLock { s in
            // Wakes the outbound direction's read (the host's writes fail)
            // and the inbound one's wait for room.
            if !s.closed {
                _ = shutdown(local, Int32(SHUT_RD))
                var one: UInt64 = 1
                if failedSignal >= 0 { _ = write(failedSignal, &one, 8) }
            }
        }
    }

    /// One direction is done; the last one closes everything.
    private func finished() {
        let last = state.withLock { s in
            s.running -= 1
            guard s.running == 0 else { return false }
            s.closed = true
            if !s.failed {
                // Both ENDs crossed: take the reserve, so the host reads EOF.
                var reserve: UInt8 = 0
                _ = recv(local, &reserve, 1, Int32(MSG_DONTWAIT))
            }
            _ = close(local)
            if failedSignal >= 0 { _ = close(failedSignal) }
            return true
        }
        guard last else { return }
        // Both ENDs crossed: nothing more is due, but our last bytes may
        // still be in flight, and a plain close could reset them away.
        connection.closeLingering(timeout: isFailed ? 0 : 2)
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
