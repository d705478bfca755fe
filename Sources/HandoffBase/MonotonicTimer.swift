// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Arms the timerfd `timer` (made with CLOCK_MONOTONIC) for an absolute
/// deadline in nanoseconds, or disarms it for nil. A zero it_value would
/// disarm, so a due or past deadline becomes 1 ns and fires at once. The
/// one way every timerfd of the library (main loop, engine scheduler,
/// agent client) is armed.
public func armMonotonicTimer(_ timer: Int32, atNanoseconds deadline: UInt64?) {
    var spec = itimerspec()
    if let deadline {
        let ns = max(deadline, 1)
        spec.it_value.tv_sec = Int(ns / 1_000_000_000)
        spec.it_value.tv_nsec = Int(ns % 1_000_000_000)
    }
    _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
}

/// The same for a deadline in CLOCK_MONOTONIC seconds, rounded up so that
/// the clock read after the wake-up is not before the deadline.
public func armMonotonicTimer(_ timer: Int32, atSeconds deadline: Double?) {
    armMonotonicTimer(timer, atNanoseconds: deadline.map { UInt64(max(0, $0 * 1e9).rounded(.up)) })
}
