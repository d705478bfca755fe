// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport
import Testing

/// Topic names (PROTOCOL.md §11 "Topics"): opaque, per account and
/// device, unlinkable across a key rotation, parsed strictly.
@Suite struct RelayTopicsTests {
    static let device: [UInt8] = Array(0xA0...0xAF)
    static let other: [UInt8] = Array(0xD0...0xDF)
    static let topics = RelayTopics(accountKey: AccountFixtures.sequentialKey)

    @Test func topicsRevealNeitherTheDeviceIDNorTheAccountID() {
        let t = Self.topics
        let names = [t.deviceTopic(Self.device), t.pipeTopic(to: t.deviceTag(Self.device), from: t.deviceTag(Self.other), pipe: .random())]
            + t.subscriptions(ownDeviceID: Self.device)
        let secrets = [AccountEncoding.hex(Self.device), AccountFixtures.sequentialKey.derived.accountID,
                       AccountEncoding.hex(AccountFixtures.sequentialKey.bytes)]
        for name in names {
            for secret in secrets { #expect(!name.contains(secret)) }
        }
    }

    @Test func aRotatedKeyGivesUnrelatedTags() {
        let rotated = RelayTopics(accountKey: AccountFixtures.key(seed: 1))
        #expect(rotated.accountTag != Self.topics.accountTag)
        #expect(rotated.deviceTag(Self.device) != Self.topics.deviceTag(Self.device))
        #expect(rotated.goneKey != Self.topics.goneKey)
        #expect(Self.topics.deviceTag(Self.device) != Self.topics.deviceTag(Self.other))
    }

    @Test func topicsParseBackToWhatTheyName() {
        let t = Self.topics
        let pipe = RelayPipeID.random()
        let to = t.deviceTag(Self.device), from = t.deviceTag(Self.other)
        #expect(t.parse(t.deviceTopic(Self.device)) == .device(tag: to))
        #expect(t.parse(t.pipeTopic(to: to, from: from, pipe: pipe)) == .pipe(to: to, from: from, pipe: pipe))
    }

    @Test func topicsOfAnotherShapeOrAccountAreRefused() {
        let t = Self.topics
        let tag = t.deviceTag(Self.device)
        let a = t.accountTag
        let bad = [
            "", "hoff", "hoff/\(a)", "hoff/\(a)/d", "hoff/\(a)/d/\(tag)/x", "hoff/\(a)/x/\(tag)",
            "hoff/\(a)/d/\(tag.uppercased())", "hoff/\(a)/d/\(tag.dropLast())", "hoff/\(a)/d/\(tag)0",
            "HOFF/\(a)/d/\(tag)", "/hoff/\(a)/d/\(tag)", "hoff//d/\(tag)",
            "hoff/\(RelayTopics(accountKey: AccountFixtures.key(seed: 2)).accountTag)/d/\(tag)",
            "hoff/\(a)/p/\(tag)/\(tag)", "hoff/\(a)/p/\(tag)/\(tag)/\(tag)/x", "hoff/\(a)/p/\(tag)/\(tag)/zz",
            "hoff/\(a)/p/\(tag)/+/\(tag)", "hoff/\(a)/d/+",
        ]
        for topic in bad { #expect(t.parse(topic) == nil, "\(topic)") }
    }

    @Test func aDeviceSubscribesToItsPipesAndEveryDeviceTopic() {
        let t = Self.topics
        #expect(t.subscriptions(ownDeviceID: Self.device) == ["hoff/\(t.accountTag)/d/+", "hoff/\(t.accountTag)/p/\(t.deviceTag(Self.device))/#"])
    }

    @Test func pipeIDsAreSixteenBytesOfLowercaseHex() {
        #expect(RelayPipeID(hex: String(repeating: "ab", count: 16)) != nil)
        #expect(RelayPipeID(hex: String(repeating: "AB", count: 16)) == nil)
        #expect(RelayPipeID(hex: String(repeating: "ab", count: 15)) == nil)
        #expect(RelayPipeID(bytes: [1, 2]) == nil)
        #expect(RelayPipeID.random() != RelayPipeID.random())
    }
}
