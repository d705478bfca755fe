// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The tool's main loop, on the main thread: one `Reactor` watching the
/// host queues' descriptors (the application's and the tool's own: each is
/// readable exactly while it has work, as any host of libhandoff watches
/// it), the signal pipe and the descriptors the command adds, and
/// dispatching their callbacks, until a callback calls `stop`, a signal
/// arrives or the time runs out.
final class MainLoop {
    enum End: Equatable {
        case stopped
        case interrupted(Int32)
        case timedOut
    }

    private let reactor: Reactor
    private var queues: [HostQueue]
    /// Descriptors of the host's own (a bridge's stdin), with what to do
    /// when one is readable or closed, and their watch while `run` runs.
    private var watched: [(fd: Int32, ready: () -> Void, watch: Reactor.Watch?)] = []
    private var end: End?

    init(_ queues: [HostQueue] = []) {
        do {
            reactor = try Reactor()
        } catch {
            // Two descriptors short: the command cannot wait for anything.
            preconditionFailure("cannot create the main loop: \(error)")
        }
        self.queues = queues
    }

    func add(_ queue: HostQueue) { queues.append(queue) }

    /// Calls `ready` on the main thread when `fd` is readable (or at its
    /// end, or in error): the callee reads it or stops watching it.
    func watch(_ fd: Int32, _ ready: @escaping () -> Void) {
        watched.append((fd, ready, running ? watchNow(fd, ready) : nil))
    }

    func unwatch(_ fd: Int32) {
        for entry in watched where entry.fd == fd { if let watch = entry.watch { reactor.unwatch(watch) } }
        watched.removeAll { $0.fd == fd }
    }

    /// Ends `run` after the callback now running (main thread only).
    func stop() { finish(.stopped) }

    private var running = false

    /// Runs until stopped, interrupted or `timeout` seconds pass (nil: no limit).
    func run(timeout: Double?) -> End {
        end = nil
        // What is due already, before the first wait (as a host does).
        for queue in queues { _ = try? queue.dispatch() }
        if let end { return end }
        var watches = queues.map { queue in
            reactor.watch(queue.fd, .readable) { [unowned self] _ in
                if self.end == nil { _ = try? queue.dispatch() }
            }
        }
        watches.append(reactor.watch(Signals.fd, .readable) { [unowned self] _ in
            if let number = Signals.take() { self.finish(.interrupted(number)) }
        })
        for i in watched.indices { watched[i].watch = watchNow(watched[i].fd, watched[i].ready) }
        // Called on this thread (the reactor's loop thread), released below.
        nonisolated(unsafe) let me = self
        let deadline = timeout.map { seconds -> Reactor.Timer in
            let timer = reactor.timer { me.finish(.timedOut) }
            reactor.arm(timer, after: seconds)
            return timer
        }
        running = true
        reactor.run()
        running = false
        for watch in watches { reactor.unwatch(watch) }
        for i in watched.indices {
            if let watch = watched[i].watch { reactor.unwatch(watch) }
            watched[i].watch = nil
        }
        if let deadline { reactor.release(deadline) }
        return end ?? .stopped
    }

    private func watchNow(_ fd: Int32, _ ready: @escaping () -> Void) -> Reactor.Watch {
        reactor.watch(fd, .readable) { [unowned self] _ in
            if self.end == nil { ready() }
        }
    }

    /// The first end stands; `run` returns after this turn's callbacks
    /// (those after it see the end and do nothing). Outside `run` (a
    /// callback of the first dispatch) it only ends the next `run` at once.
    private func finish(_ end: End) {
        if self.end == nil { self.end = end }
        if running { reactor.stop() }
    }
}
