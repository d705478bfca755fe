// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

// The process's clocks, one definition for every layer: CLOCK_MONOTONIC for
// deadlines, timeouts and ages (it never jumps), CLOCK_REALTIME only where
// a time crosses machines (beacons carry it).

/// Seconds on CLOCK_MONOTONIC.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Milliseconds since the Unix epoch on CLOCK_REALTIME.
public func wallMilliseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return UInt64(ts.tv_sec) * 1000 + UInt64(ts.tv_nsec) / 1_000_000
}

/// CLOCK_MONOTONIC in nanoseconds: the clock timerfd deadlines use.
public enum Monotonic {
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// `now() + seconds`, saturating; negative seconds give now.
    public static func after(seconds: Double) -> UInt64 {
        let start = now()
        guard seconds > 0 else { return start }
        let ns = seconds * 1e9
        guard ns < Double(UInt64.max - start) else { return UInt64.max }
        return start + UInt64(ns)
    }
}
