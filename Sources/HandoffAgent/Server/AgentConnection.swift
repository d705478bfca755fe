import CLinux
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// One accepted local connection, as the loop sees it: its descriptor, who
/// is at the other end, and the messages queued for it. A message is
/// written when the socket takes it; what the socket does not take waits
/// in the queue (the loop then watches for writability), and a queue that
/// would hold more than `maxQueued` closes the connection: nothing is
/// dropped silently. Loop thread only.
final class AgentConnection {
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
    let token: EventLoop.Token
    private let loop: EventLoop
    private let maxQueued: Int
    /// Called once, when it closes (the server forgets it).
    var onClose: ((CloseReason) -> Void)?

    private(set) var isClosed = false
    private var queue: [(bytes: [UInt8], stream: ContinuationStream?)] = []
    private var head = 0
    private var watchingWrites = false
    private var closeAfterFlush = false

    init(fd: Int32, peer: LocalSocket.Credentials, token: EventLoop.Token, loop: EventLoop, maxQueued: Int) {
        self.fd = fd
        self.peer = peer
        self.token = token
        self.loop = loop
        self.maxQueued = maxQueued
    }

    /// Messages waiting to be written.
    var queued: Int { queue.count - head }

    /// Queues one datagram (with the stream's socket, passed by
    /// SCM_RIGHTS; this side's copy is closed once sent) and writes what
    /// the socket takes.
    func enqueue(_ bytes: [UInt8], passing stream: ContinuationStream? = nil) {
        guard !isClosed else {
            stream?.close()
            return
        }
        guard queued < maxQueued else {
            stream?.close()
            close(.queueFull)
            return
        }
        queue.append((bytes, stream))
        if !watchingWrites { flush() }
    }

    /// Writes queued messages until the socket is full (then waits for
    /// EPOLLOUT) or the queue is empty.
    func flush() {
        while !isClosed, head < queue.count {
            let item = queue[head]
            let sent: Bool
            do {
                sent = try LocalSocket.send(fd, item.bytes, passing: item.stream.map { $0.fileDescriptor })
            } catch {
                close(.peer)
                return
            }
            guard sent else { break }
            item.stream?.close()
            queue[head] = ([], nil)
            head += 1
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        } else if head > 64 {
            queue.removeFirst(head)
            head = 0
        }
        guard !isClosed else { return }
        if queued == 0 && closeAfterFlush { return close(.refused) }
        let want = queued > 0
        if want != watchingWrites {
            watchingWrites = want
            loop.modify(fd, token: token, events: EPOLLIN.rawValue | (want ? EPOLLOUT.rawValue : 0))
        }
    }

    /// Closes once what is queued is written (an ERROR the app must read).
    func closeWhenFlushed() {
        closeAfterFlush = true
        if queued == 0 { close(.refused) }
    }

    func receive() -> LocalSocket.Received {
        isClosed ? .closed : LocalSocket.receive(fd)
    }

    /// Idempotent. Streams still queued are closed with it. The server
    /// hears of it (counts, logs) before the descriptor closes, so an app
    /// that sees the end finds it counted.
    func close(_ reason: CloseReason) {
        guard !isClosed else { return }
        isClosed = true
        onClose?(reason)
        onClose = nil
        loop.remove(fd)
        Glibc.close(fd)
        for item in queue[head...] { item.stream?.close() }
        queue.removeAll()
        head = 0
    }
}
