// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The one file descriptor a host polls: an epoll set holding an eventfd
/// (readable while jobs are queued), a timerfd (readable once the
/// earliest timer is due) and the descriptors the runtime watches for the
/// host (`HostQueue.watch`: a document's inotify fd), so that no thread of
/// the library's waits for them. Hosts add it to poll/epoll, GLib, asyncio or Qt
/// like any socket, as libuv's backend fd.
final class WakeupDescriptor: Sendable {
    let fd: Int32
    private let event: Int32
    private let timer: Int32

    init() throws(HandoffError) {
        let event = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard event >= 0, timer >= 0, fd >= 0 else {
            let reason = String(cString: strerror(errno))
            [event, timer, fd].filter { $0 >= 0 }.forEach { close($0) }
            throw HandoffError(.io, "cannot create the dispatch file descriptor: \(reason)")
        }
        for member in [event, timer] {
            var ev = epoll_event()
            ev.events = EPOLLIN.rawValue
            ev.data.fd = member
            if epoll_ctl(fd, EPOLL_CTL_ADD, member, &ev) != 0 {
                let reason = String(cString: strerror(errno))
                [event, timer, fd].forEach { close($0) }
                throw HandoffError(.io, "cannot set up the dispatch file descriptor: \(reason)")
            }
        }
        self.event = event
        self.timer = timer
        self.fd = fd
    }

    deinit {
        close(fd)
        close(event)
        close(timer)
    }

    /// Makes the fd readable (jobs are queued).
    func signal() {
        var one: UInt64 = 1
        _ = write(event, &one, 8)
    }

    /// Makes it unreadable again as far as jobs go.
    func clearSignal() {
        var value: UInt64 = 0
        _ = read(event, &value, 8)
    }

    /// Arms the timer for an absolute CLOCK_MONOTONIC deadline (ns), or
    /// disarms it for nil. Any expiry not yet consumed is consumed first.
    func armTimer(at deadline: UInt64?) {
        var expirations: UInt64 = 0
        _ = read(timer, &expirations, 8)
        armMonotonicTimer(timer, atNanoseconds: deadline)
    }

    /// Adds a descriptor to the set, level-triggered: the fd stays
    /// readable until its owner drains it.
    func add(_ member: Int32) throws(HandoffError) {
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.fd = member
        guard epoll_ctl(fd, EPOLL_CTL_ADD, member, &ev) == 0 else {
            throw HandoffError(.io, "cannot watch a descriptor for the application: \(String(cString: strerror(errno)))")
        }
    }

    func remove(_ member: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, member, &ev)
    }

    /// The watched descriptors that are readable now, without waiting (the
    /// eventfd and timerfd are left out).
    func readyMembers() -> [Int32] {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let n = epoll_wait(fd, &events, 16, 0)
        guard n > 0 else { return [] }
        return events[..<Int(n)].map(\.data.fd).filter { $0 != event && $0 != timer }
    }

    /// Waits until the fd or `extra` is readable, or `milliseconds` pass
    /// (-1: forever).
    func wait(milliseconds: Int32, orUntilReadable extra: Int32) {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: extra, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, milliseconds)
    }
}
