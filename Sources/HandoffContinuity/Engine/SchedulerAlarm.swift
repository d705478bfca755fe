// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// What the engine's scheduler thread sleeps on, so that an idle engine
/// does not wake at all (docs/agent.md §8): a timer (timerfd) armed for
/// the earliest deadline that exists — none, no wake-up —, a pipe that any
/// thread pokes when it makes something due sooner, and the descriptors
/// of pooled connections, watched for their peer's close.
///
/// Any thread may arm the timer (the beacon receiver does, when a beacon
/// moves the next sweep): re-arming is a system call, not a wake-up. The
/// descriptors live as long as the alarm, which every poker holds: a late
/// poke never writes into a descriptor number that now belongs to another
/// file.
final class SchedulerAlarm: Sendable {
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let timer: Int32

    init() throws(HandoffError) {
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else {
            throw HandoffError(.io, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        let timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fds[0])
            close(fds[1])
            throw HandoffError(.io, "cannot create the scheduler's timer: \(reason)")
        }
        (wakeRead, wakeWrite, self.timer) = (fds[0], fds[1], timer)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
        close(timer)
    }

    /// Makes the next (or current) `wait` return at once.
    func poke() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    /// Arms the timer for `deadline` (CLOCK_MONOTONIC seconds, as
    /// `monotonicSeconds`), or disarms it for nil. A deadline already past
    /// fires at once.
    func arm(at deadline: Double?) {
        armMonotonicTimer(timer, atSeconds: deadline)
    }

    /// Sleeps, with no time limit, until poked, the timer fires or one of
    /// `watched` reports that its peer closed or failed (POLLRDHUP, HUP,
    /// ERR: readable data alone, such as a TLS ticket, does not wake it).
    /// Consumes the pokes and the timer's expiry. `readable` (the settings
    /// watch, when there is one) wakes it when it has something to read;
    /// the result says whether it did (the caller reads it).
    @discardableResult
    func wait(watching watched: [Int32] = [], readable: Int32 = -1) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timer, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: readable, events: Int16(POLLIN), revents: 0)]
        fds += watched.map { pollfd(fd: $0, events: Int16(pollReadHangUp), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), -1) > 0 else { return false }
        if fds[0].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &buffer, buffer.count) == buffer.count {}
        }
        if fds[1].revents != 0 {
            var expirations: UInt64 = 0
            _ = read(timer, &expirations, 8)
        }
        return fds[2].revents != 0
    }
}
