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

/// Two applications with real engines on loopback sockets, in one process.
@Suite(.serialized) struct EngineTests {
    @Test func handoffBetweenTwoEngines() throws {
        let receiverDelegate = EngineDelegate()
        let receiverEngine = try loopbackEngine()
        let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
        let senderDelegate = EngineDelegate()
        let sender = try Application(manifest: try manifest(), delegate: senderDelegate,
                                     continuity: try loopbackEngine(peers: [receiverEngine.beaconPort]))
        let activity = try UserActivity(activityType: "com.example.app.edit")
        activity.title = "Draft"
        try activity.setUserInfo(["doc": .string("d-42"), "cursor": .integer(17)])
        try sender.becomeCurrent(activity)

        #expect(try pump([sender, receiver]) { receiverDelegate.events.contains("available") })
        let remote = try #require(receiverDelegate.available.first)
        #expect(remote.title == "Draft" && remote.activityID == activity.activityID && !remote.isWebOnly)
        try receiver.continueActivity(id: remote.activityID)
        #expect(try pump([sender, receiver]) { receiverDelegate.events.contains("continue") })
        #expect(receiverDelegate.restoredInfo == ["doc": .string("d-42"), "cursor": .integer(17)])

        sender.resignCurrent(activity)
        #expect(try pump([sender, receiver]) { receiverDelegate.events.contains("withdrawn") })
    }

    /// An app that resigns its activity and stops at once (`handoff
    /// publish` on SIGTERM): the withdrawal still goes out, though the
    /// scheduler that would have sent it stops; the receiver, which would
    /// keep the activity for 10 minutes unheard, hears it withdrawn.
    /// (Before the fix the scheduler lost the race every time.)
    @Test func aWithdrawalJustBeforeStoppingStillGoesOut() throws {
        for _ in 0..<3 {
            let receiverDelegate = EngineDelegate()
            var config = ContinuityConfiguration(
                account: testAccount, device: try DeviceIdentity.generate(name: "receiver"),
                beacons: BeaconTransportConfig(port: 0, multicast: false, peers: []))
            config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
            config.remoteLifetime = 600
            let receiverEngine = try ContinuityEngine(configuration: config)
            defer { receiverEngine.detach() }
            let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
            let senderEngine = try loopbackEngine(peers: [receiverEngine.beaconPort])
            let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: senderEngine)
            let activity = try UserActivity(activityType: "com.example.app.edit")
            try sender.becomeCurrent(activity)
            #expect(try pump([sender, receiver], seconds: 30) { receiverDelegate.events.contains("available") })
            sender.resignCurrent(activity)
            senderEngine.detach()
            #expect(try pump([receiver], seconds: 30) { receiverDelegate.events.contains("withdrawn") })
        }
    }

    @Test func wrongAccountSeesNothing() throws {
        let delegate = EngineDelegate()
        let engine = try loopbackEngine(account: AccountKey.generate())
        let receiver = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(),
                                     continuity: try loopbackEngine(peers: [engine.beaconPort]))
        try sender.becomeCurrent(try UserActivity(activityType: "com.example.app.edit"))
        #expect(try !pump([sender, receiver], seconds: 1) { !delegate.events.isEmpty })
    }

    @Test func aMalformedReplyIs4608() throws {
        // A fake sender: the right account's channel, but it answers a FETCH
        // with a frame of an unknown type.
        let fake = try ChannelServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0),
                                     psk: testAccount.derived.channelPSK) { connection in
            _ = try? connection.receive(timeout: 5)
            try? connection.send(Frame(type: 0x7F, payload: [1, 2, 3]), timeout: 5)
            _ = try? connection.receive(timeout: 1)
        }
        defer { fake.stop() }
        let delegate = EngineDelegate()
        let engine = try loopbackEngine()
        let receiver = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        let activityID = ActivityID()
        let beacon = Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: wallMilliseconds(),
                            deviceID: Crypto.randomBytes(16), deviceName: "fake", role: .full, channelPort: fake.port,
                            activity: BeaconActivity(activityID: activityID.bytes, activityType: "com.example.app.edit",
                                                     title: nil, teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                                     webpageURL: nil, expiration: nil, supportsContinuationStreams: false))
        try sendUDP(try BeaconCodec.seal(beacon, key: testAccount.derived.beaconKey), to: engine.beaconPort)
        #expect(try pump([receiver]) { delegate.events.contains("available") })
        try receiver.continueActivity(id: activityID)
        #expect(try pump([receiver]) { delegate.events.contains { $0.hasPrefix("didFail") } })
        #expect(delegate.events.suffix(2) == ["willContinue", "didFail:4608"])
    }

    @Test func aHungSenderIs4610() throws {
        let delegate = EngineDelegate()
        let engine = try loopbackEngine()
        let receiver = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(),
                                     continuity: try loopbackEngine(peers: [engine.beaconPort], fetchTimeout: 0.3))
        try sender.becomeCurrent(try UserActivity(activityType: "com.example.app.edit"))
        #expect(try pump([receiver]) { delegate.events.contains("available") })  // the sender never dispatches
        try receiver.continueActivity(id: try #require(delegate.available.first).activityID)
        #expect(try pump([receiver]) { delegate.events.contains { $0.hasPrefix("didFail") } })
        #expect(delegate.events.last == "didFail:4610")
    }

    @Test func undeclaredTypeWithAWebPageIsWebOnly() throws {
        let delegate = EngineDelegate()
        let engine = try loopbackEngine()
        let receiver = try Application(manifest: try manifest(types: []), delegate: delegate, continuity: engine)
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(),
                                     continuity: try loopbackEngine(peers: [engine.beaconPort]))
        let activity = try UserActivity(activityType: "com.example.app.edit")
        try activity.setWebpageURL(URLReference(string: "https://example.com/doc/42")!)
        try sender.becomeCurrent(activity)
        #expect(try pump([sender, receiver]) { delegate.events.contains("available-web") })
        try receiver.continueActivity(id: activity.activityID)
        #expect(try pump([sender, receiver]) { delegate.events.contains { $0.hasPrefix("web:") } })
        #expect(delegate.events.last == "web:https://example.com/doc/42")
        #expect(!delegate.events.contains("willContinue"))
    }
}

func sendUDP(_ packet: [UInt8], to port: UInt16) throws {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let sent = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    #expect(sent == packet.count)
}
