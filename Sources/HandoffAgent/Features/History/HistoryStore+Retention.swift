// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// How much history is kept (docs/history.md "Bounds and retention").
public struct HistoryRetention: Sendable, Equatable {
    public static let daysRange = 1...3650
    public static let entriesRange = 100...100_000
    /// Entries last seen longer ago go.
    public var days = 30
    /// Beyond this many, the oldest go first.
    public var entries = 10_000
    /// Beyond this many bytes of payloads, the oldest go first.
    public var payloadBytes = 128 << 20

    public init(days: Int = 30, entries: Int = 10_000, payloadBytes: Int = 128 << 20) {
        self.days = days
        self.entries = entries
        self.payloadBytes = payloadBytes
    }

    var milliseconds: Int64 { Int64(days) * 86_400_000 }
}

/// Retention, at a cost of what goes, not of what stays: the count and
/// the payload bytes are `stats`' (kept by the triggers), the oldest are
/// walked on `entries_last_seen` from the old end.
extension HistoryStore {
    /// Applies `retention` at `now` (ms since the Unix epoch): too old,
    /// then too many, then too many bytes, oldest first. Returns how many went.
    @discardableResult
    public func prune(_ retention: HistoryRetention, now: Int64) throws(HandoffError) -> Int {
        let cutoff = now - retention.milliseconds
        var (n, bytes) = try totals()
        var ids: [Int64] = []
        // Oldest first, while one of the bounds is broken: what goes is a
        // prefix of this order, and the walk stops at the first that stays.
        try statement("SELECT id, last_seen, payload_size FROM entries ORDER BY last_seen, id").each { s in
            guard s.integer(1) < cutoff || n > retention.entries || bytes > Int64(retention.payloadBytes) else { return false }
            ids.append(s.integer(0))
            n -= 1
            bytes -= s.integer(2)
            return true
        }
        guard !ids.isEmpty else { return 0 }
        return try delete(ids: ids)
    }

    /// The entry count and payload bytes (`stats`).
    func totals() throws(HandoffError) -> (Int, Int64) {
        try statement("SELECT entries, payload_bytes FROM stats WHERE id = 1").rows { (Int($0.integer(0)), $0.integer(1)) }.first ?? (0, 0)
    }

    /// When the oldest entry expires under `retention` (ms since the Unix
    /// epoch); nil when the history is empty: the agent's one retention
    /// timer (docs/history.md "Bounds and retention").
    public func nextExpiry(_ retention: HistoryRetention) throws(HandoffError) -> Int64? {
        let oldest = try statement("SELECT min(last_seen) FROM entries").rows { s in s.isNull(0) ? nil : s.integer(0) }.first ?? nil
        return oldest.map { $0 + retention.milliseconds }
    }
}
