// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The tool's main loop, on the main thread: polls the host queues (the
/// application's and the tool's own) and the signal pipe, and dispatches
/// their callbacks, until a callback calls `stop`, a signal arrives or the
/// time runs out. This is the poll() loop any host of libhandoff runs.
final class MainLoop {
    enum End: Equatable {
        case stopped
        case interrupted(Int32)
        case timedOut
    }

    private var queues: [HostQueue]
    /// Descriptors of the host's own (a bridge's stdin), with what to do
    /// when one is readable or closed.
    private var watched: [(fd: Int32, ready: () -> Void)] = []
    private var stopRequested = false

    init(_ queues: [HostQueue] = []) {
        self.queues = queues
    }

    func add(_ queue: HostQueue) { queues.append(queue) }

    /// Calls `ready` on the main thread when `fd` is readable (or at its
    /// end, or in error): the callee reads it or stops watching it.
    func watch(_ fd: Int32, _ ready: @escaping () -> Void) { watched.append((fd, ready)) }

    func unwatch(_ fd: Int32) { watched.removeAll { $0.fd == fd } }

    /// Ends `run` after the callback now running (main thread only).
    func stop() { stopRequested = true }

    /// Runs until stopped, interrupted or `timeout` seconds pass (nil: no limit).
    func run(timeout: Double?) -> End {
        let deadline = timeout.map { monotonicSeconds() + $0 }
        stopRequested = false
        while true {
            for queue in queues { _ = try? queue.dispatch() }
            if stopRequested { return .stopped }
            if let deadline, monotonicSeconds() >= deadline { return .timedOut }
            var fds = queues.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let signalFD = Signals.fd
            fds.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0))
            let sources = watched
            fds += sources.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), waitMilliseconds(deadline))
            if let number = Signals.take() { return .interrupted(number) }
            for (i, source) in sources.enumerated() where fds[queues.count + 1 + i].revents != 0 {
                source.ready()
                if stopRequested { return .stopped }
            }
        }
    }

    /// The poll timeout: the nearest queue timer or the deadline; -1 for none.
    private func waitMilliseconds(_ deadline: Double?) -> Int32 {
        var wait: Int32 = -1
        for queue in queues {
            let next = queue.nextTimeoutMilliseconds
            if next >= 0 && (wait < 0 || next < wait) { wait = next }
        }
        if let deadline {
            let left = Int32(min(max(0, (deadline - monotonicSeconds()) * 1000), 86_400_000).rounded(.up))
            if wait < 0 || left < wait { wait = left }
        }
        return wait
    }
}
