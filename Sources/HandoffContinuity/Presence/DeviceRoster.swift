// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The account's other devices this device has verified (their channel
/// completed a handshake with the account's key), with when each was last
/// seen: what `handoff devices`, STATUS `roster` and the tray list, online
/// or not (docs/agent.md §3, docs/PROTOCOL.md §5 "Presence"). Bounded: the
/// least recently seen device goes first when a new one does not fit.
public struct DeviceRoster: Sendable, Equatable {
    public struct Record: Sendable, Equatable {
        /// 32 hex digits.
        public var id: String
        public var name: String
        public var role: DeviceRole
        /// Milliseconds since the Unix epoch.
        public var lastSeen: UInt64

        public init(id: String, name: String, role: DeviceRole, lastSeen: UInt64) {
            self.id = id
            self.name = name
            self.role = role
            self.lastSeen = lastSeen
        }
    }

    /// Devices kept; an account rarely has more than a handful.
    public static let defaultCapacity = 64

    public let capacity: Int
    public private(set) var records: [String: Record] = [:]
    /// Which write this is (the engine numbers them so that a slower
    /// writer never puts back an older roster); not part of the file.
    var generation = 0

    public init(capacity: Int = DeviceRoster.defaultCapacity, records: [Record] = []) {
        self.capacity = max(1, capacity)
        for r in records.sorted(by: { $0.lastSeen > $1.lastSeen }) where self.records.count < self.capacity {
            self.records[r.id] = r
        }
    }

    /// Records a verified device seen at `lastSeen`. Returns whether what
    /// is worth keeping on disk changed (a new device, another name or
    /// role); a later `lastSeen` alone is not (written when it goes away).
    @discardableResult
    public mutating func saw(_ record: Record) -> Bool {
        var new = record
        if let old = records[record.id] {
            new.lastSeen = max(old.lastSeen, record.lastSeen)
            records[record.id] = new
            return old.name != new.name || old.role != new.role
        }
        if records.count >= capacity, let oldest = records.values.min(by: { $0.lastSeen < $1.lastSeen }) {
            records[oldest.id] = nil
        }
        records[record.id] = new
        return true
    }

    /// A known device heard at `lastSeen` (no name change): in memory only.
    public mutating func heard(_ id: String, at lastSeen: UInt64) {
        guard var r = records[id], lastSeen > r.lastSeen else { return }
        r.lastSeen = lastSeen
        records[id] = r
    }

    /// Sorted by name, then id.
    public var sorted: [Record] { records.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) } }
}
