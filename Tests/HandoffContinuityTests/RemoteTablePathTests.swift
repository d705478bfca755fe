// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// Which path a continue takes (PROTOCOL.md §11 "Beacons on the relay"):
/// a device's direct channels heard lately, then the relay.
@Suite struct RemoteTablePathTests {
    static let relayHost = "relay:" + String(repeating: "ab", count: 16)
    static let device: [UInt8] = Array(repeating: 3, count: 16)
    static let activity: [UInt8] = Array(0..<16)

    func advert(sequence: UInt64) -> Beacon {
        Beacon(kind: .advert, timestamp: 1, sequence: sequence, deviceID: Self.device, deviceName: "d", role: .full, channelPort: 9,
               activity: BeaconActivity(activityID: Self.activity, activityType: "com.example.app.edit", title: "T",
                                        teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app", webpageURL: nil,
                                        expiration: nil, supportsContinuationStreams: false))
    }

    /// Heard first from `first` and verified there; `copies` hear the same beacon by other paths.
    func table(first: String, copies: [String], now: Double) throws -> RemoteTable {
        var t = RemoteTable()
        let (_, verify) = t.apply(advert(sequence: 1), from: first, manifest: try manifest(), ownRole: .full, now: now)
        _ = t.verified(hex(Self.device), at: try #require(verify), failure: nil, now: now)
        for host in copies { t.heardCopy(of: advert(sequence: 1), from: host, now: now) }
        return t
    }

    var id: ActivityID { ActivityID(bytes: Self.activity) }

    @Test func aDeviceHeardOnlyThroughTheRelayIsReachedThere() throws {
        let t = try table(first: Self.relayHost, copies: [], now: 0)
        #expect(t.channels(offering: id, now: 1, recent: 12) == [SocketAddress(host: Self.relayHost, port: 9)])
    }

    @Test func aDirectPathHeardLatelyComesBeforeTheRelayThatVerified() throws {
        let t = try table(first: Self.relayHost, copies: ["192.168.1.20"], now: 0)
        #expect(t.channels(offering: id, now: 5, recent: 12)
                    == [SocketAddress(host: "192.168.1.20", port: 9), SocketAddress(host: Self.relayHost, port: 9)])
        // Not heard on the link for longer than the lifetime: the relay only.
        #expect(t.channels(offering: id, now: 20, recent: 12) == [SocketAddress(host: Self.relayHost, port: 9)])
    }

    @Test func theVerifiedDirectChannelLeadsAndTheRelayIsTheFallback() throws {
        let t = try table(first: "fd00::20", copies: ["192.168.1.20", Self.relayHost], now: 0)
        #expect(t.channels(offering: id, now: 1, recent: 12)
                    == [SocketAddress(host: "fd00::20", port: 9), SocketAddress(host: "192.168.1.20", port: 9),
                        SocketAddress(host: Self.relayHost, port: 9)])
        // Long silent on the link: still the verified channel, then the relay.
        #expect(t.channels(offering: id, now: 60, recent: 12)
                    == [SocketAddress(host: Self.relayHost, port: 9), SocketAddress(host: "fd00::20", port: 9)])
    }

    @Test func nothingOffersNothing() throws {
        let t = RemoteTable()
        #expect(t.channels(offering: id, now: 0, recent: 12).isEmpty)
    }
}
