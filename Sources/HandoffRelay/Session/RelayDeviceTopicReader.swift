// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// Reads the messages of the account's device topics (PROTOCOL.md §11
/// "Beacons on the relay", "Gone"): tells a beacon packet from a gone
/// message by its size, opens it, and checks it belongs to the topic it
/// came on. Freshness and verification of a beacon stay the engine's
/// (§5), as for a beacon heard on UDP. Not thread-safe: one reader per
/// relay connection, on its thread.
public struct RelayDeviceTopicReader {
    public enum Message: Sendable, Equatable {
        case beacon(Beacon)
        case gone(RelayGoneMessage)
        /// This device's own topic: nothing to do.
        case own
    }

    /// Devices whose last gone message is remembered (least recently
    /// applied forgotten first): a bound on memory, not on correctness.
    public static let maxRemembered = 1024
    /// Authentic device-topic messages a second (and saved up), in all and
    /// per device tag (replayed copies of one device's beacons do not use
    /// up the rest); beyond, dropped (`over rate`). §5's own bounds follow.
    /// Messages that do not open are dropped before the rate is counted.
    public static let messagesPerSecond = 20.0
    public static let messageBurst = 40.0
    public static let messagesPerTag = 4.0
    public static let tagBurst = 8.0

    let topics: RelayTopics
    let beaconKey: [UInt8]
    let ownTag: String
    private var lastGone: [String: (connected: UInt64, order: UInt64)] = [:]
    private var order: UInt64 = 0
    private var rate: RateLimiter<String>

    public init(account: AccountKey, ownDeviceID: [UInt8], now: Double) {
        topics = RelayTopics(accountKey: account)
        beaconKey = account.derived.beaconKey
        ownTag = topics.deviceTag(ownDeviceID)
        rate = RateLimiter(perSource: Self.messagesPerTag, perSourceBurst: Self.tagBurst, overall: Self.messagesPerSecond,
                           overallBurst: Self.messageBurst, maxSources: Self.maxRemembered, now: now)
    }

    /// What a message of the device topic `tag` is, or why it is dropped.
    /// `now`: seconds on the caller's monotonic clock (the rate).
    public mutating func read(_ message: [UInt8], deviceTag tag: String, now: Double) -> Result<Message, RelayDropReason> {
        if tag == ownTag { return .success(.own) }
        if message.count > BeaconCodec.maxPacketSize { return .failure(.oversized) }
        // Opened first (AES-GCM on at most 1200 bytes, bounded by the
        // broker's rate): what does not open is dropped without touching
        // the rate, so made-up messages cannot use up the budget of the
        // account's own devices. The rate then bounds authentic copies.
        if message.count == RelayGoneMessage.sealedSize {
            guard let gone = RelayGoneMessage.open(message, key: topics.goneKey) else { return .failure(.notAuthentic) }
            guard topics.deviceTag(gone.deviceID) == tag else { return .failure(.topicMismatch) }
            guard rate.admit(tag, now: now) else { return .failure(.overRate) }
            // An older connection's Will, or the same one again (a replay): dropped.
            if let last = lastGone[tag], gone.connected <= last.connected { return .failure(.notAuthentic) }
            remember(tag, gone.connected)
            return .success(.gone(gone))
        }
        guard message.count >= BeaconCodec.minPacketSize, (message.count - AESGCM.overhead) % 64 == 0 else {
            return .failure(.malformed)
        }
        guard let beacon = BeaconCodec.open(message, key: beaconKey) else { return .failure(.notAuthentic) }
        guard topics.deviceTag(beacon.deviceID) == tag else { return .failure(.topicMismatch) }
        guard rate.admit(tag, now: now) else { return .failure(.overRate) }
        return .success(.beacon(beacon))
    }

    private mutating func remember(_ tag: String, _ connected: UInt64) {
        order += 1
        if lastGone[tag] == nil, lastGone.count >= Self.maxRemembered,
           let oldest = lastGone.min(by: { $0.value.order < $1.value.order })?.key {
            lastGone[oldest] = nil
        }
        lastGone[tag] = (connected, order)
    }
}
