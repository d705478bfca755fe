// SPDX-License-Identifier: MIT OR Apache-2.0
/// A token bucket: `rate` tokens a second, at most `burst` saved up
/// (`package`: the relay's pipes use it).
package struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: Double

    package init(rate: Double, burst: Double, now: Double) {
        self.rate = max(0, rate)
        self.burst = max(1, burst)
        tokens = self.burst
        last = now
    }

    /// Takes a token when there is one.
    package mutating func take(now: Double) -> Bool {
        tokens = min(burst, tokens + max(0, now - last) * rate)
        last = max(last, now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Seconds from `now` until a token is there (0: one is).
    package func secondsUntilToken(now: Double) -> Double {
        let there = min(burst, tokens + max(0, now - last) * rate)
        guard there < 1 else { return 0 }
        return rate > 0 ? (1 - there) / rate : .infinity
    }
}

/// Admits an action at most `perSource` a second for each source (saving
/// up `perSourceBurst`) and `overall` a second in all (saving up
/// `overallBurst`). Remembers at most `maxSources` sources, forgetting the
/// least recently seen first; a forgotten source starts with a full bucket,
/// which the overall bucket still caps. Not thread-safe: callers lock.
public struct RateLimiter<Source: Hashable> {
    let perSource: Double
    let perSourceBurst: Double
    let maxSources: Int
    private var total: TokenBucket
    private var sources: [Source: (bucket: TokenBucket, seen: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Actions refused so far.
    private(set) var refused: UInt64 = 0

    public init(perSource: Double, perSourceBurst: Double, overall: Double, overallBurst: Double,
         maxSources: Int = 256, now: Double) {
        self.perSource = perSource
        self.perSourceBurst = perSourceBurst
        self.maxSources = max(1, maxSources)
        total = TokenBucket(rate: overall, burst: overallBurst, now: now)
    }

    /// True when `source` may act now (and a token of each bucket is spent).
    public mutating func admit(_ source: Source, now: Double) -> Bool {
        clock += 1
        var entry = sources[source] ?? {
            if sources.count >= maxSources, let oldest = sources.min(by: { $0.value.seen < $1.value.seen })?.key {
                sources[oldest] = nil
            }
            return (TokenBucket(rate: perSource, burst: perSourceBurst, now: now), clock)
        }()
        entry.seen = clock
        // The source's bucket first: a noisy source does not drain the total.
        let ok = entry.bucket.take(now: now) && total.take(now: now)
        sources[source] = entry
        if !ok { refused += 1 }
        return ok
    }

    /// Seconds from `now` until `source` would be admitted (0: now).
    public func secondsUntilAdmitted(_ source: Source, now: Double) -> Double {
        max(sources[source]?.bucket.secondsUntilToken(now: now) ?? 0, total.secondsUntilToken(now: now))
    }

    var sourceCount: Int { sources.count }
}
