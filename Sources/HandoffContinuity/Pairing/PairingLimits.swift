// SPDX-License-Identifier: MIT OR Apache-2.0
/// The bounds of a pairing run (docs/PROTOCOL.md §9 "Limits" states each
/// one as enforced). Tests shorten the window; the rest rarely changes.
public struct PairingLimits: Sendable {
    /// Seconds a run lasts at most: it also ends after one success or one
    /// failed attempt.
    public var window: Double = 120
    /// Largest N of a pairing frame (type byte + payload).
    public static let maxFrameSize = 512
    /// Joiner: connections accepted that have not yet sent a valid COMMIT.
    public var maxPending: Int = 8
    /// Joiner: pending connections one source address may hold.
    public var pendingPerSource: Int = 4
    /// Joiner: a pending connection younger than this is never shed.
    public var pendingGrace: Double = 0.2
    /// Joiner: seconds from accept to the first byte.
    public var firstBytesTimeout: Double = 1
    /// Joiner: seconds from accept to a complete COMMIT.
    public var commitTimeout: Double = 2
    /// Seconds for SHARE after COMMIT and for REVEAL after SHARE.
    public var stepTimeout: Double = 5
    /// Sponsor: seconds for DONE after KEY.
    public var doneTimeout: Double = 10
    /// Sponsor: seconds to connect to a joiner.
    public var connectTimeout: Double = 3
    /// Sponsor: sessions remembered from beacons.
    public var maxSessions: Int = 64
    /// Sponsor: a session counts as present this long after its last beacon.
    public var sessionFreshness: Double = 5
    /// Sponsor: the same session is not tried again within this many seconds.
    public var sessionRetry: Double = 2
    /// Joiner: beacons at 0, 0.25, 0.75 s, then every `beaconInterval`.
    public var beaconInterval: Double = 1

    public init() {}

    /// When the joiner sends its beacon number `k` (from 0), in seconds
    /// from the start of its run (docs/PROTOCOL.md §9 "Pairing beacons").
    public func beaconTime(_ k: Int) -> Double {
        k < 3 ? [0, 0.25, 0.75][k] : 0.75 + Double(k - 2) * beaconInterval
    }
}
