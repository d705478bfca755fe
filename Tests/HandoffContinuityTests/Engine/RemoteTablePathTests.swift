// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// Which path a continue takes (PROTOCOL.md §11 "Beacons on the relay"):
/// a device's direct channels heard lately, then the relay.
@Suite struct RemoteTablePathTests {
    static let relay = PeerPathAddress(kind: .relay, tag: String(repeating: "ab", count: 16))
    static let relayChannel = SocketAddress(path: relay, port: 9)
    static let device: [UInt8] = Array(repeating: 3, count: 16)
    static let activity: [UInt8] = Array(0..<16)

    func advert(sequence: UInt64) -> Beacon {
        Beacon(kind: .advert, timestamp: 1, sequence: sequence, deviceID: Self.device, deviceName: "d", role: .full, channelPort: 9,
               activity: BeaconActivity(activityID: Self.activity, activityType: "com.example.app.edit", title: "T",
                                        teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app", webpageURL: nil,
                                        expiration: nil, supportsContinuationStreams: false))
    }

    /// Where a beacon came from: an address on the link, or a device's
    /// address on another path.
    enum From {
        case host(String)
        case path(PeerPathAddress)

        var host: String { switch self { case .host(let h): h; case .path(let p): p.description } }
        var path: PeerPathAddress? { if case .path(let p) = self { p } else { nil } }
    }

    /// Heard first from `first` and verified there; `copies` hear the same beacon by other paths.
    func table(first: From, copies: [From], now: Double) throws -> RemoteTable {
        var t = RemoteTable()
        let (_, verify) = t.apply(advert(sequence: 1), from: first.host, over: first.path, manifest: try manifest(),
                                  ownRole: .full, now: now)
        _ = t.verified(hex(Self.device), at: try #require(verify), failure: nil, now: now)
        for from in copies { t.heardCopy(of: advert(sequence: 1), from: from.host, over: from.path, now: now) }
        return t
    }

    var id: ActivityID { ActivityID(bytes: Self.activity) }

    @Test func aDeviceHeardOnlyThroughTheRelayIsReachedThere() throws {
        let t = try table(first: .path(Self.relay), copies: [], now: 0)
        #expect(t.channels(offering: id, now: 1, recent: 12) == [Self.relayChannel])
    }

    @Test func aDirectPathHeardLatelyComesBeforeTheRelayThatVerified() throws {
        let t = try table(first: .path(Self.relay), copies: [.host("192.168.1.20")], now: 0)
        #expect(t.channels(offering: id, now: 5, recent: 12)
                    == [SocketAddress(host: "192.168.1.20", port: 9), Self.relayChannel])
        // Not heard on the link for longer than the lifetime: the relay only.
        #expect(t.channels(offering: id, now: 20, recent: 12) == [Self.relayChannel])
    }

    @Test func theVerifiedDirectChannelLeadsAndTheRelayIsTheFallback() throws {
        let t = try table(first: .host("fd00::20"), copies: [.host("192.168.1.20"), .path(Self.relay)], now: 0)
        #expect(t.channels(offering: id, now: 1, recent: 12)
                    == [SocketAddress(host: "fd00::20", port: 9), SocketAddress(host: "192.168.1.20", port: 9),
                        Self.relayChannel])
        // Long silent on the link: still the verified channel, then the relay.
        #expect(t.channels(offering: id, now: 60, recent: 12)
                    == [Self.relayChannel, SocketAddress(host: "fd00::20", port: 9)])
    }

    /// Paths are tried nearest first by their kind's stated preference,
    /// not by their names: a tailnet path before the relay although
    /// "relay" sorts before "tailnet".
    @Test func pathsAreTriedNearestFirst() throws {
        let tailnet = PeerPathAddress(kind: .tailnet, tag: "cd")
        let t = try table(first: .path(Self.relay), copies: [.path(tailnet)], now: 0)
        #expect(t.channels(offering: id, now: 1, recent: 12) == [SocketAddress(path: tailnet, port: 9), Self.relayChannel])
        #expect(PeerPathKind.link.preference < PeerPathKind.peer.preference)
        #expect(PeerPathKind.peer.preference < PeerPathKind.tailnet.preference)
        #expect(PeerPathKind.tailnet.preference < PeerPathKind.relay.preference)
    }

    /// A path is known by its typed address, never by a host's text: a
    /// datagram whose source reads like a relay peer is an address on the
    /// link, tried directly (never dialed through the relay).
    @Test func aHostThatReadsLikeAPathIsNoPath() throws {
        let t = try table(first: .host(Self.relay.description), copies: [], now: 0)
        let channels = t.channels(offering: id, now: 1, recent: 12)
        #expect(channels == [SocketAddress(host: Self.relay.description, port: 9)])
        #expect(channels.allSatisfy { $0.path == nil })
    }

    /// What STATUS and `handoff devices` show for a channel on the relay:
    /// "relay:<tag>", as before paths were typed.
    @Test func aPathChannelShowsAsKindAndTag() {
        #expect(Self.relayChannel.description == "relay:" + String(repeating: "ab", count: 16))
        #expect(Self.relayChannel.host == Self.relayChannel.description)
        #expect(RemoteTable.family(of: Self.relayChannel) == .path(.relay))
        #expect(RemoteTable.family(of: SocketAddress(host: "fd00::20", port: 9)) == .ipv6)
    }

    @Test func nothingOffersNothing() throws {
        let t = RemoteTable()
        #expect(t.channels(offering: id, now: 0, recent: 12).isEmpty)
    }
}
