// SPDX-License-Identifier: MIT OR Apache-2.0

/// A point on CLOCK_MONOTONIC after which a wait gives up: what every
/// bounded wait (a handshake, a connect, a pairing step) counts down to.
public struct Deadline: Sendable {
    public let end: Double

    public init(after seconds: Double) {
        end = seconds.isInfinite ? .infinity : monotonicSeconds() + max(0, seconds)
    }

    /// At `end`, a `monotonicSeconds()` value.
    public init(at end: Double) {
        self.end = end
    }

    /// Milliseconds for poll(), rounded up; -1 for no deadline; nil once passed.
    public var pollTimeout: Int32? {
        if end == .infinity { return -1 }
        let left = end - monotonicSeconds()
        if left <= 0 { return nil }
        return Int32(min(Double(Int32.max), (left * 1000).rounded(.up)))
    }
}
