// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// The engine's scheduler sleeps until a deadline that exists, with no
/// time limit when there is none (docs/agent.md §8). Each deadline still
/// fires by itself: a fake device sends one beacon and nothing more
/// happens, yet the engine withdraws, expires and reaps on its own (no
/// test calls `reap` or `sweep`).
@Suite(.serialized) struct EngineDeadlineTests {
    static func receiver(remoteLifetime: Double = 12, idleConnectionLifetime: Double = 10) throws -> ContinuityEngine {
        var config = ContinuityConfiguration(
            account: testAccount, device: try DeviceIdentity.generate(name: "receiver", role: .full),
            beacons: BeaconTransportConfig(port: 0, multicast: false))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.remoteLifetime = remoteLifetime
        config.idleConnectionLifetime = idleConnectionLifetime
        return try ContinuityEngine(configuration: config)
    }

    /// One advert from a fake device whose channel listens on `channel`.
    static func advertOnce(to engine: ContinuityEngine, channel: UInt16, expiration: UInt64? = nil) throws {
        let beacon = Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: wallMilliseconds(),
                            deviceID: Crypto.randomBytes(16), deviceName: "fake", role: .full, channelPort: channel,
                            activity: BeaconActivity(activityID: ActivityID().bytes, activityType: "com.example.app.edit",
                                                     title: nil, teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                                     webpageURL: nil, expiration: expiration, supportsContinuationStreams: false))
        try sendUDP(try BeaconCodec.seal(beacon, key: testAccount.derived.beaconKey), to: engine.beaconPort)
    }

    /// The fake device's channel: holds each connection open until `release`.
    static func channel(_ release: OneShot<Bool>) throws -> ChannelServer {
        try ChannelServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0), psk: testAccount.derived.channelPSK) { _ in
            _ = release.wait(seconds: 60)
        }
    }

    @Test func aDeviceHeardOnceIsWithdrawnWhenItsLifetimeEnds() throws {
        let release = OneShot<Bool>()
        let fake = try Self.channel(release)
        defer { release.fulfil(true); fake.stop() }
        let engine = try Self.receiver(remoteLifetime: 1)
        defer { engine.detach() }
        let delegate = EngineDelegate()
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        try Self.advertOnce(to: engine, channel: fake.port)
        #expect(try pump([app]) { delegate.events.contains("available") })
        #expect(try pump([app], seconds: 10) { delegate.events.contains("withdrawn") })
        // The device stays known (listed online) for the presence lifetime.
        #expect(engine.discovery.remoteDevices == 1)
    }

    @Test func anActivityIsWithdrawnWhenItExpires() throws {
        let release = OneShot<Bool>()
        let fake = try Self.channel(release)
        defer { release.fulfil(true); fake.stop() }
        let engine = try Self.receiver(remoteLifetime: 3600)
        defer { engine.detach() }
        let delegate = EngineDelegate()
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        try Self.advertOnce(to: engine, channel: fake.port, expiration: wallMilliseconds() + 1500)
        #expect(try pump([app]) { delegate.events.contains("available") })
        #expect(try pump([app], seconds: 10) { delegate.events.contains("withdrawn") })
        #expect(engine.discovery.remoteDevices == 1)  // the device is remembered; only its offer ended
    }

    @Test func aPooledConnectionIsClosedOnceIdleForItsLifetime() throws {
        let release = OneShot<Bool>()
        let fake = try Self.channel(release)  // never closes it by itself
        defer { release.fulfil(true); fake.stop() }
        let engine = try Self.receiver(idleConnectionLifetime: 1)
        defer { engine.detach() }
        let delegate = EngineDelegate()
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        try Self.advertOnce(to: engine, channel: fake.port)
        #expect(try pump([app]) { delegate.events.contains("available") })
        #expect(try pump([app], seconds: 10) { engine.discovery.pooledConnections == 0 })
    }

    @Test func aPooledConnectionIsClosedWhenItsPeerCloses() throws {
        let release = OneShot<Bool>()
        let fake = try Self.channel(release)
        defer { fake.stop() }
        let engine = try Self.receiver(idleConnectionLifetime: 3600)  // only the peer's close can end it
        defer { engine.detach() }
        let delegate = EngineDelegate()
        let app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        try Self.advertOnce(to: engine, channel: fake.port)
        #expect(try pump([app]) { delegate.events.contains("available") })
        #expect(engine.discovery.pooledConnections == 1)
        release.fulfil(true)  // the fake device's channel closes the connection
        #expect(try pump([app], seconds: 10) { engine.discovery.pooledConnections == 0 })
    }

    // MARK: When the next sweep is due

    @Test func theNextSweepIsTheEarliestLifetimeOrExpiration() throws {
        var table = RemoteTable()
        #expect(table.nextSweep(lifetime: 12, now: 100, wallMilliseconds: 5_000) == nil)
        let manifest = try manifest()
        func advert(_ device: Int, expiration: UInt64?) -> Beacon {
            Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: 1, deviceID: DiscoveryBoundsTests.device(device),
                   deviceName: "d", role: .full, channelPort: 9,
                   activity: BeaconActivity(activityID: Array(0..<16), activityType: "com.example.app.edit", title: nil,
                                            teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                            webpageURL: nil, expiration: expiration, supportsContinuationStreams: false))
        }
        _ = table.apply(advert(1, expiration: nil), from: "10.0.0.1", manifest: manifest, ownRole: .full, now: 100)
        _ = table.apply(advert(2, expiration: nil), from: "10.0.0.2", manifest: manifest, ownRole: .full, now: 103)
        let margin = RemoteTable.sweepMargin
        #expect(table.nextSweep(lifetime: 12, now: 104, wallMilliseconds: 5_000) == 112 + margin)
        // An expiration 2.5 s from now (wall clock) comes first.
        let wall = wallMilliseconds()
        _ = table.apply(advert(3, expiration: wall + 2_500), from: "10.0.0.3", manifest: manifest, ownRole: .full, now: 104)
        #expect(table.nextSweep(lifetime: 12, now: 104, wallMilliseconds: wall) == 104 + 2.5 + margin)
        // One already past is due at once.
        #expect(table.nextSweep(lifetime: 12, now: 104, wallMilliseconds: wall + 9_000) == 104 + margin)
    }
}
