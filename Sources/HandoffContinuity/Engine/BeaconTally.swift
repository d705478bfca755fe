// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What the engine's beacon receiver made of every datagram it got, by
/// kind, with the first few senders of each kind that needs a person's
/// attention: `handoff doctor` tells "nothing arrives" from "another
/// account's packets arrive", a second copy of a beacon (the other family
/// of a dual-stack link) from a replay, and both from a clock that is off.
/// Lifetime counts of one engine (STATUS `beacons`, docs/agent.md §3).
public struct BeaconTally: Sendable, Equatable {
    /// A device whose authentic beacons carry a timestamp outside the
    /// replay guard's window.
    public struct StaleSender: Sendable, Equatable {
        /// 32 hex digits.
        public var deviceID: String
        public var name: String
        public var host: String
        /// The sender's clock minus ours, in milliseconds, from its latest
        /// stale beacon: positive when the sender is ahead.
        public var skewMilliseconds: Int64

        public init(deviceID: String, name: String, host: String, skewMilliseconds: Int64) {
            self.deviceID = deviceID
            self.name = name
            self.host = host
            self.skewMilliseconds = skewMilliseconds
        }
    }

    /// Senders remembered per kind, at most.
    public static let sourcesKept = 8

    /// Datagrams that arrived on the beacon port.
    public var packets = 0
    /// Fresh beacons of the account from other devices.
    public var accepted = 0
    /// Packets that do not open under this account's key.
    public var foreign = 0
    /// Beacons carrying this device's own id (multicast loops back, or
    /// another process uses this device's identity).
    public var own = 0
    /// Copies of a beacon accepted recently (the other address family, or
    /// unicast answer and multicast). Normal.
    public var duplicates = 0
    /// Authentic beacons older than one already accepted from that device
    /// and not a copy of a recent one.
    public var replays = 0
    /// Authentic beacons whose timestamp is outside the window.
    public var stale = 0
    /// Hosts foreign packets came from (the first `sourcesKept`).
    public var foreignSources: [String] = []
    /// "NAME from HOST" of replayed beacons (the first `sourcesKept`).
    public var replaySources: [String] = []
    /// Devices whose beacons were stale (the first `sourcesKept` devices;
    /// each keeps its latest skew).
    public var staleSenders: [StaleSender] = []

    public init() {}

    mutating func countForeign(from host: String) {
        foreign += 1
        Self.remember(host, in: &foreignSources)
    }

    /// An authentic beacon of another device, as the replay guard judged it.
    mutating func count(_ verdict: ReplayGuard.Verdict, _ beacon: Beacon, from host: String, nowMilliseconds: UInt64) {
        switch verdict {
        case .accepted: accepted += 1
        case .duplicate: duplicates += 1
        case .replay:
            replays += 1
            Self.remember("\(beacon.deviceName) from \(host)", in: &replaySources)
        case .stale:
            stale += 1
            let t = beacon.timestamp
            let skew = t >= nowMilliseconds ? Int64(clamping: t - nowMilliseconds) : -Int64(clamping: nowMilliseconds - t)
            let sender = StaleSender(deviceID: hex(beacon.deviceID), name: beacon.deviceName, host: host, skewMilliseconds: skew)
            if let i = staleSenders.firstIndex(where: { $0.deviceID == sender.deviceID }) {
                staleSenders[i] = sender
            } else if staleSenders.count < Self.sourcesKept {
                staleSenders.append(sender)
            }
        }
    }

    private static func remember(_ source: String, in list: inout [String]) {
        if list.count < sourcesKept, !list.contains(source) { list.append(source) }
    }

    /// The counts by name, as STATUS `counters` carries them.
    var counters: [String: Int64] {
        ["beaconPackets": Int64(packets), "beaconsAccepted": Int64(accepted), "beaconsForeign": Int64(foreign),
         "beaconsOwn": Int64(own), "beaconDuplicates": Int64(duplicates), "beaconsReplayed": Int64(replays),
         "beaconsStale": Int64(stale), "beaconsRefused": Int64(replays + stale)]
    }
}
