// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport
import Testing

/// Device topics (PROTOCOL.md §11 "Beacons on the relay", "Gone"): sealed
/// beacons and gone messages, each only on its own device's topic.
@Suite struct RelayDeviceTopicTests {
    static let key = AccountFixtures.sequentialKey
    static let me: [UInt8] = Array(0x10...0x1F)
    static let peer: [UInt8] = Array(0xA0...0xAF)
    static let topics = RelayTopics(accountKey: key)

    static func beacon(from device: [UInt8]) throws -> [UInt8] {
        var b = VectorBeacon.make(.presence, sequence: 3)
        b.deviceID = device
        return try BeaconCodec.seal(b, key: key.derived.beaconKey)
    }

    static func gone(_ device: [UInt8], connected: UInt64, key: [UInt8] = topics.goneKey) -> [UInt8] {
        RelayGoneMessage(deviceID: device, connected: connected, session: Crypto.randomBytes(16)).sealed(key: key)
    }

    @Test func aGoneMessageIsNeverABeaconsSize() {
        #expect(RelayGoneMessage.sealedSize == 76)
        #expect(RelayGoneMessage.sealedSize < BeaconCodec.minPacketSize)
    }

    @Test func goneMessagesSealAndOpenOnlyUnderTheGoneKey() {
        let gone = RelayGoneMessage(deviceID: Self.peer, connected: 42, session: Array(repeating: 7, count: 16))
        let sealed = gone.sealed(key: Self.topics.goneKey)
        #expect(RelayGoneMessage.open(sealed, key: Self.topics.goneKey) == gone)
        #expect(RelayGoneMessage.open(sealed, key: Self.key.derived.beaconKey) == nil)
        var altered = sealed
        altered[20] ^= 1
        #expect(RelayGoneMessage.open(altered, key: Self.topics.goneKey) == nil)
        // Sealed with the right key but breaking the plaintext's rules.
        var plain = gone.encoded()
        plain[3] = 1
        #expect(RelayGoneMessage.open(AESGCM(key: Self.topics.goneKey).seal(plain, aad: RelayGoneMessage.associatedData),
                                      key: Self.topics.goneKey) == nil)
        plain = gone.encoded()
        plain[0] = 2
        #expect(RelayGoneMessage.parse(plain) == nil)
    }

    @Test func beaconsAndGoneMessagesAreReadOnTheirOwnTopicsOnly() throws {
        var reader = RelayDeviceTopicReader(account: Self.key, ownDeviceID: Self.me, now: 0)
        let peerTag = Self.topics.deviceTag(Self.peer), otherTag = Self.topics.deviceTag(Array(0xD0...0xDF))
        let beacon = try Self.beacon(from: Self.peer)
        guard case .success(.beacon(let b)) = reader.read(beacon, deviceTag: peerTag, now: 0) else {
            Issue.record("the peer's beacon on its topic was not read")
            return
        }
        #expect(b.deviceID == Self.peer)
        #expect(reader.read(beacon, deviceTag: otherTag, now: 0) == .failure(.topicMismatch))
        #expect(reader.read(Self.gone(Self.peer, connected: 5), deviceTag: otherTag, now: 0) == .failure(.topicMismatch))
        #expect(reader.read(beacon, deviceTag: Self.topics.deviceTag(Self.me), now: 0) == .success(.own))
    }

    @Test func anotherAccountsMessagesAreNotAuthentic() throws {
        var reader = RelayDeviceTopicReader(account: Self.key, ownDeviceID: Self.me, now: 0)
        let tag = Self.topics.deviceTag(Self.peer)
        let stranger = AccountFixtures.key(seed: 3)
        var b = VectorBeacon.make(.presence, sequence: 3)
        b.deviceID = Self.peer
        let foreignBeacon = try BeaconCodec.seal(b, key: stranger.derived.beaconKey)
        let foreignGone = Self.gone(Self.peer, connected: 5, key: RelayTopics(accountKey: stranger).goneKey)
        #expect(reader.read(foreignBeacon, deviceTag: tag, now: 0) == .failure(.notAuthentic))
        #expect(reader.read(foreignGone, deviceTag: tag, now: 0) == .failure(.notAuthentic))
    }

    @Test func malformedAndOversizedMessagesAreDropped() {
        var reader = RelayDeviceTopicReader(account: Self.key, ownDeviceID: Self.me, now: 0)
        let tag = Self.topics.deviceTag(Self.peer)
        // A second apart: within the per-tag rate.
        for (i, size) in [0, 1, 75, 77, 91, 93, 155, 1199].enumerated() {
            #expect(reader.read(Array(repeating: 0, count: size), deviceTag: tag, now: Double(i)) == .failure(.malformed), "\(size)")
        }
        #expect(reader.read(Array(repeating: 0, count: 1201), deviceTag: tag, now: 10) == .failure(.oversized))
        #expect(reader.read(Array(repeating: 0, count: 92), deviceTag: tag, now: 11) == .failure(.notAuthentic))
    }

    @Test func authenticCopiesAreRateLimitedPerTagAndMadeUpOnesUseNoBudget() throws {
        var reader = RelayDeviceTopicReader(account: Self.key, ownDeviceID: Self.me, now: 0)
        let tag = Self.topics.deviceTag(Self.peer)
        let beacon = try Self.beacon(from: Self.peer)
        // A flood of made-up messages on made-up tags: not authentic, and
        // the account's own device is still heard at once.
        let junk = (0..<500).map { i in reader.read(Array(repeating: UInt8(i & 0xFF), count: 220),
                                                   deviceTag: Self.topics.deviceTag(Array(repeating: UInt8(i % 256), count: 16)), now: 0) }
        #expect(junk.allSatisfy { $0 == .failure(.notAuthentic) || $0 == .failure(.malformed) })
        guard case .success(.beacon) = reader.read(beacon, deviceTag: tag, now: 0) else {
            Issue.record("the device's beacon was drowned by made-up messages")
            return
        }
        // Replayed authentic copies of one device: its own burst, no more.
        let copies = (0..<200).map { _ in reader.read(beacon, deviceTag: tag, now: 0) }
        #expect(copies.filter { $0 == .failure(.overRate) }.count == 200 - Int(RelayDeviceTopicReader.tagBurst) + 1)
        // A second later the rate admits more.
        guard case .success(.beacon) = reader.read(beacon, deviceTag: tag, now: 1) else {
            Issue.record("the rate did not refill")
            return
        }
    }

    @Test func anOlderConnectionsWillPlayedAgainIsDropped() {
        var reader = RelayDeviceTopicReader(account: Self.key, ownDeviceID: Self.me, now: 0)
        let tag = Self.topics.deviceTag(Self.peer)
        let first = Self.gone(Self.peer, connected: 1000), second = Self.gone(Self.peer, connected: 2000)
        guard case .success(.gone) = reader.read(first, deviceTag: tag, now: 0),
              case .success(.gone) = reader.read(second, deviceTag: tag, now: 0) else {
            Issue.record("genuine gone messages were not read")
            return
        }
        #expect(reader.read(first, deviceTag: tag, now: 0) == .failure(.notAuthentic))
        // The same Will again (a QoS 1 duplicate, or a replay after the
        // device came back): already applied, so dropped; it must not hide
        // the device again nor reset its pipes.
        #expect(reader.read(second, deviceTag: tag, now: 1) == .failure(.notAuthentic))
    }
}
