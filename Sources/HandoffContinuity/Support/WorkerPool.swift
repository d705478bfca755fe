// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A fixed number of threads taking jobs from a queue of bounded length:
/// work that strangers can cause (verifying a device heard in a beacon)
/// costs at most `threads` threads and `queueLimit` waiting jobs, however
/// many ask. Threads start on demand, up to `threads`, and stay until
/// `stop`.
public final class WorkerPool: Sendable {
    private struct State {
        var queue: [@Sendable () -> Void] = []
        var started = 0
        var idle = 0
        var running = 0
        var stopped = false
        /// Every thread ever started, for tests and diagnostics.
        var threadsStarted = 0
        /// The pool's threads now: `stop` called from one of them (a job
        /// whose end released the pool's owner) does not wait for itself.
        var workers: Set<pthread_t> = []
    }

    let threads: Int
    let queueLimit: Int
    /// What its threads are called (see `startJoinableThread`).
    let name: String?
    private let state = Awaitable(State())

    public init(threads: Int, queueLimit: Int, name: String? = nil) {
        precondition(threads >= 1 && queueLimit >= 1)
        self.threads = threads
        self.queueLimit = queueLimit
        self.name = name
    }

    /// Queues `job`; false (and `job` is not run) when the queue is full,
    /// the pool stopped, or no thread could be started for it.
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let startThread: Bool? = state.update { s in
            guard !s.stopped, s.queue.count < queueLimit else { return nil }
            s.queue.append(job)
            // A thread for each queued job no idle thread will take, up to `threads`.
            guard s.queue.count > s.idle, s.started < threads else { return false }
            s.started += 1
            s.threadsStarted += 1
            return true
        }
        guard let startThread else { return false }
        if startThread, !startDetachedThread(named: name, { [self] in work() }) {
            state.update { s in
                s.started -= 1
                s.threadsStarted -= 1
                if s.started == 0 { s.queue.removeAll() }
            }
            return false
        }
        return true
    }

    private func work() {
        let me = pthread_self()
        state.update { _ = $0.workers.insert(me) }
        while let job = nextJob() {
            job()
            state.update { $0.running -= 1 }
        }
        // Counted out only now: `stop` must not return while a thread of
        // the pool still holds OpenSSL state (see `ThreadGroup`).
        releaseThreadState()
        state.update { s in
            s.workers.remove(me)
            s.started -= 1
        }
    }

    /// Waits for a job; nil when the pool stopped (the thread ends).
    private func nextJob() -> (@Sendable () -> Void)? {
        state.update { $0.idle += 1 }
        return state.wait(until: { $0.stopped || !$0.queue.isEmpty }, seconds: .infinity) { s, _ in
            s.idle -= 1
            if s.stopped { return nil }
            s.running += 1
            return s.queue.removeFirst()
        }
    }

    /// Jobs waiting for a thread.
    var queued: Int { state.update { $0.queue.count } }
    /// Threads started since the pool was made (never more than `threads`
    /// alive at once).
    var threadsStarted: Int { state.update { $0.threadsStarted } }
    /// Threads alive now.
    var threadsAlive: Int { state.update { $0.started } }

    /// Drops the queued jobs (returns how many), lets the running ones
    /// finish and ends the threads; waits at most `seconds` for the running
    /// jobs and the threads to end. Called from one of the pool's own jobs,
    /// it waits for the others only.
    @discardableResult
    public func stop(waiting seconds: Double) -> Int {
        let me = pthread_self()
        let (dropped, own) = state.update { s in
            s.stopped = true
            defer { s.queue.removeAll() }
            return (s.queue.count, s.workers.contains(me) ? 1 : 0)
        }
        state.wait(until: { $0.running <= own && $0.started <= own }, seconds: seconds) { _, _ in }
        return dropped
    }
}
