// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where every host callback waits until the host's main thread asks for
/// it. The library's own threads post jobs here; `dispatch()` runs them on
/// the owner thread (the thread that made the queue), never under a lock.
/// `fd` is readable exactly while a job is queued, a timer is due or a
/// watched descriptor is readable.
public final class HostQueue: Sendable {
    public typealias Job = @Sendable () -> Void
    public struct TimerID: Hashable, Sendable { let raw: UInt64 }
    /// A descriptor watched for the host (`watch`).
    public struct WatchID: Hashable, Sendable { let fd: Int32 }

    private let wakeup: WakeupDescriptor
    /// Wakes a blocked `run` for `stop` without queueing anything, so the
    /// public fd keeps meaning "work is pending".
    private let stopSignal: Int32
    private let owner: pthread_t
    private let state = Locked(State())

    private struct State {
        var jobs: [Job] = []
        var timers: [Timer] = []  // sorted by deadline, then id
        var nextTimerID: UInt64 = 1
        /// Watched descriptors and what runs when one is readable.
        var watches: [Int32: Job] = [:]
        var dispatching = false
        var stopRequested = false
    }

    private struct Timer {
        let id: UInt64
        let deadline: UInt64
        let job: Job
    }

    /// Makes a queue owned by the calling thread.
    public init() throws(HandoffError) {
        wakeup = try WakeupDescriptor()
        stopSignal = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard stopSignal >= 0 else {
            throw HandoffError(.io, "cannot create an eventfd: \(String(cString: strerror(errno)))")
        }
        owner = pthread_self()
    }

    deinit { close(stopSignal) }

    /// The pollable descriptor. Owned by the queue: never close it.
    public var fd: Int32 { wakeup.fd }

    /// True on the thread that owns the queue.
    public var isOwnerThread: Bool { pthread_equal(owner, pthread_self()) != 0 }

    /// Queues a job for the next dispatch. Any thread.
    public func post(_ job: @escaping Job) {
        state.withLock { s in
            s.jobs.append(job)
            if s.jobs.count == 1 { wakeup.signal() }
        }
    }

    /// Queues a job to run at the first dispatch after `seconds`. Any thread.
    @discardableResult
    public func schedule(after seconds: Double, _ job: @escaping Job) -> TimerID {
        let deadline = Monotonic.after(seconds: seconds)
        return state.withLock { s in
            let id = s.nextTimerID
            s.nextTimerID += 1
            let index = s.timers.firstIndex { $0.deadline > deadline } ?? s.timers.count
            s.timers.insert(Timer(id: id, deadline: deadline, job: job), at: index)
            if index == 0 { wakeup.armTimer(at: deadline) }
            return TimerID(raw: id)
        }
    }

    /// Cancels a timer that has not run; harmless otherwise. Any thread.
    public func cancel(_ timer: TimerID) {
        state.withLock { s in
            guard let i = s.timers.firstIndex(where: { $0.id == timer.raw }) else { return }
            s.timers.remove(at: i)
            if i == 0 { wakeup.armTimer(at: s.timers.first?.deadline) }
        }
    }

    /// Watches `fd` for readability without a thread: it joins the set
    /// behind `fd`, and `handler` runs inside `dispatch`, on the owner
    /// thread, each time it finds `fd` readable. The handler must drain the
    /// descriptor (read it until EAGAIN), or the queue's fd stays readable.
    /// The caller keeps `fd` open until `unwatch`. Any thread.
    /// - Throws: `.io` when the kernel refuses it (an fd epoll cannot watch).
    public func watch(_ fd: Int32, _ handler: @escaping Job) throws(HandoffError) -> WatchID {
        try state.withLock { (s) throws(HandoffError) in
            try wakeup.add(fd)
            s.watches[fd] = handler
        }
        return WatchID(fd: fd)
    }

    /// Stops watching; its handler never runs again once this returns
    /// (unless from inside a dispatch already running it). Any thread.
    public func unwatch(_ watch: WatchID) {
        state.withLock { s in
            guard s.watches.removeValue(forKey: watch.fd) != nil else { return }
            wakeup.remove(watch.fd)
        }
    }

    /// Milliseconds until work is due: 0 when a job is queued or a timer is
    /// due, -1 when nothing is scheduled. Usable as a poll() timeout.
    public var nextTimeoutMilliseconds: Int32 {
        state.withLock { s in
            if !s.jobs.isEmpty { return 0 }
            guard let first = s.timers.first else { return -1 }
            let now = Monotonic.now()
            if first.deadline <= now { return 0 }
            let ms = (first.deadline - now + 999_999) / 1_000_000
            return Int32(clamping: ms)
        }
    }

    /// Runs the jobs queued and the timers due when it is called, in order,
    /// on the calling thread; work posted meanwhile waits for the next call.
    /// - Returns: how many jobs and timers ran.
    /// - Throws: `.wrongThread` off the owner thread; `.invalidState` when
    ///   called from inside a callback that `dispatch` is running.
    @discardableResult
    public func dispatch() throws(HandoffError) -> Int {
        guard isOwnerThread else {
            throw HandoffError(.wrongThread, "dispatch runs host callbacks on the application's main thread: call it from the thread that created the application")
        }
        let work: [Job]? = state.withLock { s in
            guard !s.dispatching else { return nil }
            s.dispatching = true
            var work = s.jobs
            s.jobs = []
            wakeup.clearSignal()
            let now = Monotonic.now()
            let due = s.timers.prefix { $0.deadline <= now }
            if !due.isEmpty {
                work += due.map(\.job)
                s.timers.removeFirst(due.count)
            }
            wakeup.armTimer(at: s.timers.first?.deadline)
            if !s.watches.isEmpty {
                work += wakeup.readyMembers().compactMap { s.watches[$0] }
            }
            return work
        }
        guard let work else {
            throw HandoffError(.invalidState, "dispatch was called from inside a callback it is running; return from the callback instead")
        }
        defer { state.withLock { $0.dispatching = false } }
        for job in work { job() }
        return work.count
    }

    /// Polls and dispatches until `stop()` or until `timeoutMilliseconds`
    /// pass (negative: no limit). A stop requested while not running ends
    /// the next run at once.
    /// - Returns: true when stopped, false when the time ran out.
    public func run(timeoutMilliseconds: Int32) throws(HandoffError) -> Bool {
        let end: UInt64? = timeoutMilliseconds < 0 ? nil : Monotonic.after(seconds: Double(timeoutMilliseconds) / 1000)
        while true {
            try dispatch()
            if state.withLock({ s in defer { s.stopRequested = false }; return s.stopRequested }) {
                var value: UInt64 = 0
                _ = read(stopSignal, &value, 8)
                return true
            }
            var wait = nextTimeoutMilliseconds
            if let end {
                let now = Monotonic.now()
                if now >= end { return false }
                let left = Int32(clamping: (end - now + 999_999) / 1_000_000)
                wait = wait < 0 ? left : min(wait, left)
            }
            wakeup.wait(milliseconds: wait, orUntilReadable: stopSignal)
        }
    }

    /// Ends a running (or the next) `run`. Any thread.
    public func stop() {
        state.withLock { $0.stopRequested = true }
        var one: UInt64 = 1
        _ = write(stopSignal, &one, 8)
    }
}
