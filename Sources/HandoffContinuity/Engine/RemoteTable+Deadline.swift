// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

/// When `RemoteTable.sweep` next has something to do, so the scheduler
/// sleeps until then instead of sweeping on a period (docs/agent.md §8).
extension RemoteTable {
    static let sweepMargin = 0.002

    /// The earliest moment (monotonic seconds, the clock of `now`) at which
    /// an entry has gone unheard for longer than `lifetime` or what it
    /// offers has expired; nil when the table is empty. An expiration is a
    /// wall-clock time: it is placed on the monotonic clock as the clocks
    /// stand now (a beacon or sweep recomputes it, so a clock step is
    /// followed within a keep-alive interval). It is `margin` past the
    /// moment itself, so that the sweep's tests (strict, and in whole
    /// milliseconds for expirations) hold when the scheduler wakes.
    /// A device that offers nothing is due when it has been silent for
    /// `presenceLifetime` (nil: `lifetime`), when it goes offline.
    func nextSweep(lifetime: Double, presenceLifetime: Double? = nil, now: Double, wallMilliseconds: UInt64) -> Double? {
        var next: Double?
        for entry in entries.values {
            let offers = entry.offered != nil || entry.reported != nil
            var due = entry.lastHeard + (offers ? lifetime : max(lifetime, presenceLifetime ?? lifetime))
            if let expiration = entry.expiration {
                let left = expiration > wallMilliseconds ? Double(expiration - wallMilliseconds) / 1000 : 0
                due = min(due, now + left)
            }
            next = min(next ?? due, due)
        }
        return next.map { $0 + Self.sweepMargin }
    }
}
