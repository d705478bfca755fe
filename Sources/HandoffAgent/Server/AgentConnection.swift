// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// One accepted local connection, as the loop sees it: its descriptor, who
/// is at the other end, and the messages queued for it. A message is
/// written when the socket takes it; what the socket does not take waits
/// in the queue (its watch then waits for writability too), and a queue that
/// would hold more than `maxQueued` closes the connection: nothing is
/// dropped silently. Loop thread only, but for `sendNow` (any thread),
/// which writes a message at once when nothing is queued before it: a
/// reply need not wait for the loop to wake up (docs/agent.md §8,
/// latency).
final class AgentConnection: @unchecked Sendable {
    // @unchecked: the outgoing side is behind `output`; the rest is
    // touched on the loop thread only.
    enum CloseReason: Equatable {
        /// The app closed it (or it failed under us).
        case peer
        /// It broke the protocol (the text says how).
        case malformed(String)
        /// Its first message was not HELLO.
        case noHello(String)
        case helloTimeout
        case queueFull
        /// The agent is stopping.
        case stopping
        /// Closed once an ERROR it had to read was sent.
        case refused
    }

    let fd: Int32
    let peer: LocalSocket.Credentials
    /// The peer's process as it was at accept (pidfd_open; -1 on a kernel
    /// without pidfds): what the agent reads of `/proc/PID` later is that
    /// process's only while it still runs, since a pid is reused once its
    /// process exits and the socket may live on in a child.
    private let pidFD: Int32
    /// Its place in the order connections were accepted.
    let token: UInt64
    private let loop: Reactor
    /// Its descriptor on the loop (`watch`); nil before, and once closed.
    private var watch: Reactor.Watch?
    private let maxQueued: Int
    /// Called once, when it closes (the server forgets it).
    var onClose: ((CloseReason) -> Void)?

    /// What goes out, and whether the descriptor is still ours: `sendNow`
    /// writes from other threads under the same lock, so it never writes
    /// past a queued message nor to a closed (and maybe reused) descriptor.
    private struct Output {
        var closed = false
        var queue: [(bytes: [UInt8], stream: ContinuationStream?)] = []
        var head = 0
        var watchingWrites = false
        var closeAfterFlush = false
        var queued: Int { queue.count - head }
    }
    private let output = Locked(Output())

    init(fd: Int32, peer: LocalSocket.Credentials, token: UInt64, loop: Reactor, maxQueued: Int) {
        self.fd = fd
        self.peer = peer
        self.pidFD = clinux_pidfd_open(peer.pid)
        self.token = token
        self.loop = loop
        self.maxQueued = maxQueued
    }

    /// Watches the descriptor on the loop: `readable` hears it readable,
    /// hung up or in error (a read then finds out which); room to write
    /// flushes the queue. Loop thread, once.
    func watch(readable: @escaping () -> Void) {
        watch = loop.watch(fd, .readable) { [unowned self] events in
            if !events.intersection([.readable, .hangUp, .error, .invalid]).isEmpty { readable() }
            if events.contains(.writable), !self.isClosed { self.flush() }
        }
    }

    var isClosed: Bool { output.withLock { $0.closed } }

    /// Whether the process that connected still runs, so `peer.pid` is
    /// still it (true where the kernel has no pidfds: nothing to tell).
    var peerStillRuns: Bool {
        guard pidFD >= 0 else { return true }
        var poller = pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 0
    }

    /// Messages waiting to be written.
    var queued: Int { output.withLock { $0.queued } }

    /// Any thread: writes one datagram (no descriptor) now if nothing is
    /// queued before it and the socket takes it without blocking. False
    /// when it was not sent: the caller queues it on the loop thread
    /// (`enqueue`), which keeps the order and handles a full or broken
    /// socket.
    func sendNow(_ bytes: [UInt8]) -> Bool {
        output.withLock { o in
            guard !o.closed, o.queued == 0 else { return false }
            return (try? LocalSocket.send(fd, bytes)) == true
        }
    }

    /// Queues one datagram (with the stream's socket, passed by
    /// SCM_RIGHTS; this side's copy is closed once sent) and writes what
    /// the socket takes.
    func enqueue(_ bytes: [UInt8], passing stream: ContinuationStream? = nil) {
        let taken: Bool? = output.withLock { o in
            guard !o.closed else { return nil }
            guard o.queued < maxQueued else { return false }
            o.queue.append((bytes, stream))
            return true
        }
        switch taken {
        case nil:
            stream?.close()
        case false?:
            stream?.close()
            close(.queueFull)
        case true?:
            if !output.withLock({ $0.watchingWrites }) { flush() }
        }
    }

    /// Writes queued messages until the socket is full (then its watch
    /// waits for room too) or the queue is empty.
    func flush() {
        enum After { case nothing, watchWrites, unwatchWrites, failed, refused }
        let after: After = output.withLock { o in
            while !o.closed, o.head < o.queue.count {
                let item = o.queue[o.head]
                let sent: Bool
                do {
                    sent = try LocalSocket.send(fd, item.bytes, passing: item.stream.map { $0.fileDescriptor })
                } catch {
                    return .failed
                }
                guard sent else { break }
                item.stream?.close()
                o.queue[o.head] = ([], nil)
                o.head += 1
            }
            if o.head == o.queue.count {
                o.queue.removeAll(keepingCapacity: o.queue.count <= 64)
                o.head = 0
            } else if o.head > 64 {
                o.queue.removeFirst(o.head)
                o.head = 0
            }
            guard !o.closed else { return .nothing }
            if o.queued == 0 && o.closeAfterFlush { return .refused }
            let want = o.queued > 0
            if want != o.watchingWrites {
                o.watchingWrites = want
                return want ? .watchWrites : .unwatchWrites
            }
            return .nothing
        }
        switch after {
        case .nothing: break
        case .watchWrites: if let watch { loop.update(watch, [.readable, .writable]) }
        case .unwatchWrites: if let watch { loop.update(watch, .readable) }
        case .failed: close(.peer)
        case .refused: close(.refused)
        }
    }

    /// Closes once what is queued is written (an ERROR the app must read).
    func closeWhenFlushed() {
        let now = output.withLock { o in
            o.closeAfterFlush = true
            return o.queued == 0
        }
        if now { close(.refused) }
    }

    /// Whether a datagram from the app waits unread (any thread).
    var hasUnreadInput: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) != 0
    }

    func receive() -> LocalSocket.Received {
        isClosed ? .closed : LocalSocket.receive(fd)
    }

    /// Idempotent. Streams still queued are closed with it. The server
    /// hears of it (counts, logs) before the descriptor closes, so an app
    /// that sees the end finds it counted.
    func close(_ reason: CloseReason) {
        let first = output.withLock { o in
            defer { o.closed = true }
            return !o.closed
        }
        guard first else { return }
        onClose?(reason)
        onClose = nil
        if let watch { loop.unwatch(watch) }
        watch = nil
        let streams: [ContinuationStream] = output.withLock { o in
            Glibc.close(fd)
            if pidFD >= 0 { Glibc.close(pidFD) }
            defer {
                o.queue.removeAll()
                o.head = 0
            }
            return o.queue[o.head...].compactMap(\.stream)
        }
        streams.forEach { $0.close() }
    }
}
