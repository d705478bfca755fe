// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What `wait(_:for:until:cancel:)` saw.
public enum WaitResult: Equatable, Sendable {
    /// The fd has one of the events, or a hang-up or an error (the next
    /// call on it says which).
    case ready
    /// The deadline passed first.
    case timedOut
    /// The cancel fd turned readable (it wins over a ready fd).
    case cancelled
    /// poll(2) failed with this errno (never EINTR: a signal waits on).
    case error(Int32)
}

/// One fd's bounded wait (a connect, a TLS step, room to send): until `fd`
/// is ready for `events` (poll bits), `cancel` is readable (below 0: none)
/// or `deadline` passes. A signal waits on for what is left; a deadline
/// already passed gives `.timedOut` without looking at the fd.
public func wait(_ fd: Int32, for events: Int16, until deadline: Deadline, cancel: Int32 = -1) -> WaitResult {
    var entries = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: cancel, events: Int16(POLLIN), revents: 0)]
    while let milliseconds = deadline.pollTimeout {
        let n = poll(&entries, 2, milliseconds)  // a negative fd (no cancel) is skipped
        if n < 0 {
            let code = errno
            if code == EINTR { continue }
            return .error(code)
        }
        if entries[1].revents != 0 { return .cancelled }
        if entries[0].revents != 0 { return .ready }
    }
    return .timedOut
}
