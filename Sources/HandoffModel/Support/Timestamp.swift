// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A point in time: seconds since 1 January 2001 00:00:00 UTC (Apple's
/// reference date, what a property list date counts), as a Double.
///
/// What the library needs of Foundation's `Date`, with the same arithmetic
/// (so a value read, converted and written again keeps every bit), without
/// linking Foundation into libhandoff.so.
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Seconds from 1970 to the reference date.
    public static let secondsFrom1970ToReferenceDate: Double = 978_307_200

    public var timeIntervalSinceReferenceDate: Double

    public init(timeIntervalSinceReferenceDate seconds: Double) {
        timeIntervalSinceReferenceDate = seconds
    }

    public init(timeIntervalSince1970 seconds: Double) {
        timeIntervalSinceReferenceDate = seconds - Self.secondsFrom1970ToReferenceDate
    }

    /// Now, offset by `seconds`.
    public init(timeIntervalSinceNow seconds: Double) {
        timeIntervalSinceReferenceDate = seconds + Self.now.timeIntervalSinceReferenceDate
    }

    /// Now (the realtime clock).
    public init() { self = Self.now }

    public static var now: Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(timeIntervalSinceReferenceDate:
            Double(ts.tv_sec) - secondsFrom1970ToReferenceDate + 1.0e-9 * Double(ts.tv_nsec))
    }

    public var timeIntervalSince1970: Double { timeIntervalSinceReferenceDate + Self.secondsFrom1970ToReferenceDate }

    /// Seconds from now to this one (negative when it is past).
    public var timeIntervalSinceNow: Double { timeIntervalSinceReferenceDate - Self.now.timeIntervalSinceReferenceDate }

    /// Seconds from `other` to this one (negative when `other` is later).
    public func timeIntervalSince(_ other: Timestamp) -> Double {
        timeIntervalSinceReferenceDate - other.timeIntervalSinceReferenceDate
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.timeIntervalSinceReferenceDate < b.timeIntervalSinceReferenceDate
    }
}
