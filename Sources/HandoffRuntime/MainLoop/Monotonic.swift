#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the clock timerfd deadlines use.
enum Monotonic {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// `now() + seconds`, saturating; negative seconds give now.
    static func after(seconds: Double) -> UInt64 {
        let start = now()
        guard seconds > 0 else { return start }
        let ns = seconds * 1e9
        guard ns < Double(UInt64.max - start) else { return UInt64.max }
        return start + UInt64(ns)
    }
}
