// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The agent's loop primitives: one epoll set, an eventfd that wakes it,
/// and jobs other threads post to run on the loop thread. Descriptors are
/// registered with a token (not their number, which the kernel reuses as
/// soon as one is closed). No timer of its own: the caller passes each
/// wait's timeout, -1 when nothing is due, so an idle loop sleeps.
final class EventLoop: @unchecked Sendable {
    // @unchecked: `epoll` and `wake` are immutable; `jobs` is locked.
    typealias Token = UInt64

    static let wakeToken: Token = 0
    private let epoll: Int32
    private let wake: Int32
    private let jobs = Locked<(queue: [@Sendable () -> Void], stopped: Bool)>(([], false))

    init() throws(HandoffError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard epoll >= 0, wake >= 0 else {
            let reason = String(cString: strerror(errno))
            [epoll, wake].filter { $0 >= 0 }.forEach { close($0) }
            throw HandoffError(.io, "cannot create the agent's event loop: \(reason)")
        }
        self.epoll = epoll
        self.wake = wake
        do {
            try add(wake, token: Self.wakeToken, events: EPOLLIN.rawValue)
        } catch {
            close(epoll)
            close(wake)
            throw error
        }
    }

    deinit {
        close(epoll)
        close(wake)
    }

    func add(_ fd: Int32, token: Token, events: UInt32) throws(HandoffError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw HandoffError(.io, "cannot watch descriptor \(fd): \(String(cString: strerror(errno)))")
        }
    }

    func modify(_ fd: Int32, token: Token, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    /// Before the descriptor is closed.
    func remove(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event)
    }

    /// Waits for events, at most `milliseconds` (-1: until one comes).
    /// The wake token is consumed here and reported like any other.
    func wait(milliseconds: Int32) -> [(token: Token, events: UInt32)] {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let n = epoll_wait(epoll, &events, Int32(events.count), milliseconds)
        guard n > 0 else { return [] }
        return events.prefix(Int(n)).map { e in
            if e.data.u64 == Self.wakeToken {
                var value: UInt64 = 0
                _ = read(wake, &value, 8)
            }
            return (e.data.u64, e.events)
        }
    }

    /// Wakes the loop (any thread, async-signal-safe).
    func poke() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Runs `job` on the loop thread, in the order posted; once the loop
    /// has stopped, on the caller's thread at once (it then finds every
    /// connection closed).
    func post(_ job: @escaping @Sendable () -> Void) {
        let queued = jobs.withLock { j in
            guard !j.stopped else { return false }
            j.queue.append(job)
            return true
        }
        if queued { poke() } else { job() }
    }

    /// The jobs posted so far (loop thread).
    func takeJobs() -> [@Sendable () -> Void] {
        jobs.withLock { j in
            defer { j.queue.removeAll() }
            return j.queue
        }
    }

    /// From now on `post` runs jobs at once; returns those still queued.
    func stopTakingJobs() -> [@Sendable () -> Void] {
        jobs.withLock { j in
            j.stopped = true
            defer { j.queue.removeAll() }
            return j.queue
        }
    }
}

