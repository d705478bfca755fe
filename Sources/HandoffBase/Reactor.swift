// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// One thread's wait: the fds it watches, one eventfd any thread writes to
/// wake it, one timerfd armed for the earliest timer (none: disarmed, so an
/// idle reactor never wakes). Level-triggered, like poll(2), which it uses.
///
/// A turn: the `beforeEachWait` hooks, then `poll(set, -1)`, then the
/// eventfd drained and the timerfd's expirations read, then the handlers of
/// ready watches (those still registered), then the due timers in deadline
/// order, then the jobs posted so far, FIFO.
///
/// Threads: watches and hooks belong to the loop thread (the one in `run`
/// or `runOnce`), or to any one thread while nothing runs; timers, `post`,
/// `wake`, `stop`, `close`, `counts` and `isLoopThread` to any thread.
/// Every handler, timer and job is called on the loop thread, with no lock
/// held.
///
/// Descriptors: the reactor owns its eventfd and timerfd, closed when it is
/// deinitialized (never earlier, so a late `wake` from another thread never
/// writes into a number that now belongs to another file). It never closes
/// a watched fd: its owner unwatches it, then closes it.
public final class Reactor: @unchecked Sendable {
    // @unchecked: `shared` is behind its mutex; `watches`, `hooks`,
    // `pollSet` and `dirty` are the loop thread's (see above).

    /// poll(2)'s event bits.
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        /// POLLIN: data (or a connection to accept, or end of file).
        public static let readable = Events(rawValue: Int16(POLLIN))
        /// POLLOUT: room to write.
        public static let writable = Events(rawValue: Int16(POLLOUT))
        /// POLLRDHUP: the peer shut its writing side down (stream sockets).
        public static let peerClosed = Events(rawValue: 0x2000)
        /// POLLHUP: hung up; reported whatever the interest, to non-parked watches.
        public static let hangUp = Events(rawValue: Int16(POLLHUP))
        /// POLLERR: an error is pending; reported whatever the interest.
        public static let error = Events(rawValue: Int16(POLLERR))
        /// POLLNVAL: the fd is not open. The watch is removed before its
        /// handler hears this, once.
        public static let invalid = Events(rawValue: Int16(POLLNVAL))
    }

    /// A registered fd. Tokens are never reused, so a stale `Watch` never
    /// names a later registration of the same fd number.
    public struct Watch: Hashable, Sendable { let token: UInt64 }

    /// A timer made by `timer(_:)`; ids are never reused.
    public struct Timer: Hashable, Sendable { let id: UInt64 }

    /// A job or timer handler: made on any thread, called on the loop thread.
    public typealias Job = @Sendable () -> Void

    /// What the reactor did, for tests and idle checks.
    public struct Counts: Sendable, Equatable {
        /// poll(2) calls: one per turn.
        public var waits = 0
        /// eventfd writes consumed (`wake`, `stop` and `post` into an empty queue).
        public var wakes = 0
        /// Timer handlers called.
        public var timerFires = 0
        /// Jobs run on the loop thread (not those run on a poster after `close`).
        public var jobs = 0
    }

    private struct TimerEntry {
        let handler: Job
        var deadline: UInt64?
        var period: UInt64?
        // Bumped by every arm and release: a due timer changed by an
        // earlier handler of the same turn is not called.
        var generation: UInt64 = 0
    }

    private struct Shared {
        var timers: [UInt64: TimerEntry] = [:]
        var nextTimer: UInt64 = 1
        var armed: UInt64?          // what the timerfd holds
        var jobs: [Job] = []
        var closed = false
        var stopping = false
        // From poll's return until this turn takes its jobs: a job the
        // loop thread posts meanwhile (from a handler or timer) runs this
        // turn, so it needs no wake-up.
        var jobsDueThisTurn = false
        var loopThread: pthread_t?  // set while run/runOnce runs
        var counts = Counts()
    }

    private struct WatchEntry {
        let fd: Int32
        var interest: Events
        let handler: (Events) -> Void
    }

    private let eventFD: Int32
    private let timerFD: Int32
    private let shared = Locked(Shared())

    private var watches: [UInt64: WatchEntry] = [:]
    private var nextToken: UInt64 = 1
    private var hooks: [() -> Void] = []
    private var pollSet: [pollfd] = []
    private var pollTokens: [UInt64] = []   // pollSet[i + 2]'s watch
    private var dirty = true

    /// Makes the eventfd and the timerfd (close-on-exec, non-blocking);
    /// throws what failed.
    public init() throws(SystemError) {
        let eventFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard eventFD >= 0 else { throw SystemError("eventfd") }
        let timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timerFD >= 0 else {
            let error = SystemError("timerfd_create")
            Glibc.close(eventFD)
            throw error
        }
        (self.eventFD, self.timerFD) = (eventFD, timerFD)
    }

    deinit {
        Glibc.close(eventFD)
        Glibc.close(timerFD)
    }

    // MARK: Watches (loop thread, or before run). Userland only: no system call.

    /// Watches `fd` for `interest`; `handler` hears the ready events, on the
    /// loop thread, each turn they hold (level-triggered). From the next
    /// wait on. The reactor does not own `fd`: unwatch it before closing it.
    public func watch(_ fd: Int32, _ interest: Events, _ handler: @escaping (Events) -> Void) -> Watch {
        checkLoopThread()
        let token = nextToken
        nextToken += 1
        watches[token] = WatchEntry(fd: fd, interest: interest, handler: handler)
        dirty = true
        return Watch(token: token)
    }

    /// Changes what `watch` waits for, from the next wait on (and this
    /// turn's later events are filtered by it); `[]` parks it (not polled at
    /// all, so not even a hang-up is heard). An unknown watch is ignored.
    public func update(_ watch: Watch, _ interest: Events) {
        checkLoopThread()
        guard watches[watch.token] != nil, watches[watch.token]!.interest != interest else { return }
        watches[watch.token]!.interest = interest
        dirty = true
    }

    /// Forgets `watch`: its handler is not called again, not even for an
    /// event this turn already reported. Does not close its fd. An unknown
    /// watch is ignored.
    public func unwatch(_ watch: Watch) {
        checkLoopThread()
        if watches.removeValue(forKey: watch.token) != nil { dirty = true }
    }

    /// Calls `body` on the loop thread before each wait (libuv's "prepare"):
    /// the place to flush sd-bus, recompute interest, re-arm a pull-style
    /// timeout. A body that re-arms a timer for "now" every time makes the
    /// reactor spin: re-arm only what changed.
    public func beforeEachWait(_ body: @escaping () -> Void) {
        checkLoopThread()
        hooks.append(body)
    }

    // MARK: Timers, jobs, wake-ups (any thread)

    /// A timer that calls `handler` on the loop thread when due; made
    /// disarmed. Any thread.
    public func timer(_ handler: @escaping Job) -> Timer {
        shared.withLock { s in
            let id = s.nextTimer
            s.nextTimer += 1
            s.timers[id] = TimerEntry(handler: handler)
            return Timer(id: id)
        }
    }

    /// Arms `timer` for `deadline` (CLOCK_MONOTONIC nanoseconds; a past one
    /// fires at the next turn), repeating every `period` ns when given (the
    /// next deadline is the previous one plus `period`; periods missed
    /// while the loop was busy fire once); nil disarms. Any thread, and it
    /// never wakes the loop: the timerfd is re-armed (one timerfd_settime)
    /// only when the earliest deadline changes, and a timerfd wakes the
    /// poll by itself. A released or unknown timer is ignored; a period of
    /// 0 traps.
    public func arm(_ timer: Timer, at deadline: UInt64?, every period: UInt64? = nil) {
        precondition(period != 0, "Reactor.arm: a period of 0")
        shared.withLock { s in
            guard s.timers[timer.id] != nil else { return }
            s.timers[timer.id]!.deadline = deadline
            s.timers[timer.id]!.period = deadline == nil ? nil : period
            s.timers[timer.id]!.generation &+= 1
            rearm(&s)
        }
    }

    /// Arms `timer` once, `seconds` from now (0 or less, or NaN: the next
    /// turn; +infinity, or beyond the clock's range: disarmed). Any thread.
    public func arm(_ timer: Timer, after seconds: Double) {
        arm(timer, at: Reactor.deadline(after: seconds))
    }

    /// Disarms and forgets `timer`: its handler is not called again, not
    /// even if it is due in the current turn. Any thread.
    public func release(_ timer: Timer) {
        shared.withLock { s in
            guard s.timers.removeValue(forKey: timer.id) != nil else { return }
            rearm(&s)
        }
    }

    /// Runs `job` on the loop thread, after the jobs posted before it
    /// (FIFO), in the turn after this one at the latest (this one, when a
    /// handler or timer of the loop posts it). The eventfd is written only
    /// when the queue was empty, and not for a job this turn still takes:
    /// a burst of posts is one wake-up. After `close()`, runs `job` at once
    /// on the caller's thread. Any thread.
    public func post(_ job: @escaping Job) {
        let runHere = shared.withLock { s -> Bool in
            if s.closed { return true }
            s.jobs.append(job)
            if s.jobs.count == 1, !(s.jobsDueThisTurn && Reactor.isCurrent(s.loopThread)) { signal() }
            return false
        }
        if runHere { job() }
    }

    /// Makes the current or next wait return: one turn, `beforeEachWait`
    /// hooks included. Any thread; async-signal-safe (one write(2), no lock).
    public func wake() {
        signal()
    }

    /// Makes `run` return after the current turn (the next turn, if it is
    /// waiting, which this wakes; if nothing runs, the next `run` returns
    /// after one turn). Any thread.
    public func stop() {
        let onLoop = shared.withLock { s -> Bool in
            s.stopping = true
            return Reactor.isCurrent(s.loopThread)
        }
        if !onLoop { signal() }
    }

    // MARK: Running (the caller's thread)

    /// Runs turns on the caller's thread until `stop()`. Not reentrant: a
    /// handler must not call `run` or `runOnce`.
    public func run() {
        enter()
        defer { leave() }
        while true {
            turn(timeout: -1)
            let stopping = shared.withLock { s -> Bool in
                defer { s.stopping = false }
                return s.stopping
            }
            if stopping { return }
        }
    }

    /// One turn on the caller's thread, its wait bounded by `timeout`
    /// seconds (infinity: none; 0: a peek). True when the wait saw an fd
    /// ready (its own eventfd or timerfd included), false when it timed out.
    /// For tests (the timeout is a safety bound) and nested waits; leaves a
    /// pending `stop()` for `run`.
    @discardableResult
    public func runOnce(timeout: Double = .infinity) -> Bool {
        enter()
        defer { leave() }
        let ms: Int32
        if timeout.isNaN || timeout <= 0 {
            ms = 0
        } else if timeout >= Double(Int32.max) / 1000 {
            ms = -1
        } else {
            ms = Int32((timeout * 1000).rounded(.up))
        }
        return turn(timeout: ms)
    }

    /// Stops taking jobs: from now on `post` runs each job at once on its
    /// caller's thread. Returns the jobs still queued, not run (the caller
    /// runs or drops them). Closes no descriptor (`deinit` does). For an
    /// owner shutting down after `run` returned; any thread.
    public func close() -> [Job] {
        shared.withLock { s in
            s.closed = true
            defer { s.jobs.removeAll() }
            return s.jobs
        }
    }

    /// Whether the caller is the thread in `run` or `runOnce`. Any thread.
    public var isLoopThread: Bool {
        shared.withLock { s in Reactor.isCurrent(s.loopThread) }
    }

    /// What the reactor did so far. Any thread.
    public var counts: Counts {
        shared.withLock { $0.counts }
    }

    // MARK: Inside

    /// The deadline `seconds` from now, as `arm(_:after:)` takes it.
    static func deadline(after seconds: Double) -> UInt64? {
        let start = now()
        guard !seconds.isNaN, seconds > 0 else { return start }
        let ns = (seconds * 1e9).rounded(.up)
        guard ns < Double(UInt64.max / 2) else { return nil }   // ~292 years: never
        return start + UInt64(ns)
    }

    /// CLOCK_MONOTONIC in ns, the timerfd's clock.
    static func now() -> UInt64 { Monotonic.now() }

    /// `timer`'s next deadline, nil when disarmed or unknown (tests).
    func deadline(of timer: Timer) -> UInt64? {
        shared.withLock { $0.timers[timer.id]?.deadline }
    }

    private static func isCurrent(_ thread: pthread_t?) -> Bool {
        thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func checkLoopThread() {
        precondition(shared.withLock { s in s.loopThread == nil || Reactor.isCurrent(s.loopThread) },
                     "Reactor: watches and hooks belong to the loop thread while it runs")
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(eventFD, &one, 8)
    }

    /// Sets the timerfd to the earliest deadline when that changed (a past
    /// one is due at once: `armMonotonicTimer`). Under the lock, so concurrent arms reach the kernel in state order.
    private func rearm(_ s: inout Shared) {
        var earliest: UInt64?
        for entry in s.timers.values {
            if let d = entry.deadline, earliest == nil || d < earliest! { earliest = d }
        }
        guard earliest != s.armed else { return }
        s.armed = earliest
        armMonotonicTimer(timerFD, atNanoseconds: earliest)
    }

    private func enter() {
        shared.withLock { s in
            precondition(s.loopThread == nil, "Reactor: run or runOnce while it already runs")
            s.loopThread = pthread_self()
        }
    }

    private func leave() {
        shared.withLock { $0.loopThread = nil }
    }

    private func rebuild() {
        pollSet = [pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)]
        pollTokens = []
        for token in watches.keys.sorted() {
            let entry = watches[token]!
            guard !entry.interest.isEmpty else { continue }
            pollSet.append(pollfd(fd: entry.fd, events: entry.interest.rawValue, revents: 0))
            pollTokens.append(token)
        }
        dirty = false
    }

    /// One turn (see the type's comment); true when poll saw an fd ready.
    @discardableResult
    private func turn(timeout: Int32) -> Bool {
        let hooks = self.hooks
        for hook in hooks { hook() }
        // A hook's stop() comes from the loop thread, so nothing wrote the
        // eventfd: this turn's wait must not block.
        let stopping = shared.withLock { $0.stopping }
        if dirty { rebuild() }
        for i in pollSet.indices { pollSet[i].revents = 0 }
        let n = poll(&pollSet, nfds_t(pollSet.count), stopping ? 0 : timeout)
        if n < 0 {
            let code = errno
            // EINTR (a signal), ENOMEM (transient): a turn with nothing ready.
            precondition(code == EINTR || code == ENOMEM || code == EAGAIN,
                         "Reactor: \(SystemError("poll", code: code))")
        }
        var woken: UInt64 = 0
        var ready: [(token: UInt64, events: Events)] = []
        if n > 0 {
            if pollSet[0].revents != 0 {
                var value: UInt64 = 0
                if read(eventFD, &value, 8) == 8 { woken = value }
            }
            if pollSet[1].revents != 0 {
                var expirations: UInt64 = 0
                _ = read(timerFD, &expirations, 8)
            }
            for i in pollSet.indices.dropFirst(2) where pollSet[i].revents != 0 {
                ready.append((pollTokens[i - 2], Events(rawValue: pollSet[i].revents)))
            }
        }
        shared.withLock { s in
            s.counts.waits += 1
            s.counts.wakes += Int(woken)
            s.jobsDueThisTurn = true
        }
        dispatch(ready)
        fireDueTimers()
        runJobs()
        return n > 0
    }

    private func dispatch(_ ready: [(token: UInt64, events: Events)]) {
        for (token, events) in ready {
            // Unwatched (or re-registered under a new token) by an earlier
            // handler of this turn: its event is stale.
            guard let entry = watches[token] else { continue }
            if events.contains(.invalid) {
                watches[token] = nil
                dirty = true
                entry.handler(.invalid)
                continue
            }
            guard !entry.interest.isEmpty else { continue }
            let heard = events.intersection(entry.interest.union([.hangUp, .error]))
            if !heard.isEmpty { entry.handler(heard) }
        }
    }

    private func fireDueTimers() {
        let now = Reactor.now()
        let due = shared.withLock { s -> [(id: UInt64, deadline: UInt64, generation: UInt64)] in
            var due: [(id: UInt64, deadline: UInt64, generation: UInt64)] = []
            for (id, entry) in s.timers {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                due.append((id, deadline, entry.generation))
                if let period = entry.period {
                    // Missed periods fire once: the first deadline after now.
                    let missed = (now - deadline) / period + 1
                    let (step, tooFar) = missed.multipliedReportingOverflow(by: period)
                    let (next, beyond) = deadline.addingReportingOverflow(step)
                    s.timers[id]!.deadline = tooFar || beyond ? nil : next
                } else {
                    s.timers[id]!.deadline = nil
                }
            }
            if !due.isEmpty { rearm(&s) }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for timer in due {
            let handler = shared.withLock { s -> Job? in
                guard let entry = s.timers[timer.id], entry.generation == timer.generation else { return nil }
                s.counts.timerFires += 1
                return entry.handler
            }
            handler?()
        }
    }

    private func runJobs() {
        let jobs = shared.withLock { s -> [Job] in
            defer { s.jobs.removeAll() }
            s.jobsDueThisTurn = false
            s.counts.jobs += s.jobs.count
            return s.jobs
        }
        for job in jobs { job() }
    }
}
