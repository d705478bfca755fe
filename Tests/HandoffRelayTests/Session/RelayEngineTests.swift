// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffModel
@testable import HandoffRuntime
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two engines with no path to each other but a real `mosquitto`: no
/// multicast, no unicast peers, so every beacon, the verification, the
/// FETCH, the CONFIRM and a continuation stream cross the broker
/// (PROTOCOL.md §11) through `RelaySession` and the agent's
/// `MQTTConnection`. Every wait is bounded.
@Suite(.serialized, .enabled(if: TestBroker.available, "mosquitto is not installed (scripts/install-deps.sh)"))
struct RelayEngineTests {
    static let account = try! AccountKey(bytes: Array(repeating: 9, count: 32))
    static let manifest = try! Manifest(bundleIdentifier: "com.example.relay", teamIdentifier: "TEAM1",
                                        activityTypes: ["com.example.relay.edit"])

    static func engine(_ broker: TestBroker, name: String, password: String = "correct horse",
                       account: AccountKey = account) throws -> (ContinuityEngine, RelaySession) {
        let device = try DeviceIdentity.generate(name: name)
        var config = ContinuityConfiguration(account: account, device: device,
                                             beacons: BeaconTransportConfig(port: 0, multicast: false, peers: []))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.tailnetSocket = nil
        let port = broker.port
        let relay = try RelaySession(account: account, deviceID: device.idBytes, brokerName: "127.0.0.1:\(port)") { will throws(HandoffError) in
            var o = MQTTConnection.Options(host: "127.0.0.1", port: port)
            o.username = "ada"
            o.password = password
            o.will = will
            return try MQTTConnection(o)
        }
        config.paths = [relay]
        return (try ContinuityEngine(configuration: config), relay)
    }

    @Test func aHandoffCrossesTheBrokerAlone() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let (senderEngine, senderRelay) = try Self.engine(broker, name: "sender")
        let (receiverEngine, receiverRelay) = try Self.engine(broker, name: "receiver")
        let senderDelegate = EngineDelegate(), receiverDelegate = EngineDelegate()
        let sender = try Application(manifest: Self.manifest, delegate: senderDelegate, continuity: senderEngine)
        let receiver = try Application(manifest: Self.manifest, delegate: receiverDelegate, continuity: receiverEngine)
        defer {
            sender.stopContinuity()
            receiver.stopContinuity()
        }
        let apps = [sender, receiver]
        #expect(try pump(apps, seconds: 30) { senderRelay.status.connection == .connected && receiverRelay.status.connection == .connected })

        let activity = try UserActivity(activityType: "com.example.relay.edit")
        activity.title = "Relayed draft"
        activity.supportsContinuationStreams = true
        let recorder = StreamRecorder()
        activity.delegate = recorder
        try activity.setUserInfo(["doc": .string("d-7")])
        try sender.becomeCurrent(activity)

        #expect(try pump(apps, seconds: 30) { receiverDelegate.available.count == 1 })
        let remote = try #require(receiverDelegate.available.first)
        #expect(remote.title == "Relayed draft")
        // Heard and verified through the relay only.
        let channels = receiverEngine.status.remotes.flatMap(\.channels)
        #expect(!channels.isEmpty && channels.allSatisfy { $0.hasPrefix("relay:") })

        try receiver.continueActivity(id: remote.activityID)
        #expect(try pump(apps, seconds: 30) { receiverDelegate.restored != nil })
        #expect(receiverDelegate.restored?.userInfo == ["doc": .string("d-7")])
        #expect(try pump(apps, seconds: 30) { recorder.continued == 1 })

        // A continuation stream of 2 MB, receiver to sender, through pipes.
        let restored = try #require(receiverDelegate.restored)
        let opened = Locked<Result<ContinuationStream, HandoffError>?>(nil)
        try restored.getContinuationStreams { result in opened.withLock { $0 = result } }
        #expect(try pump(apps, seconds: 30) { opened.withLock { $0 } != nil && recorder.streams.count == 1 })
        let mine = try #require(try opened.withLock { $0 }?.get())
        let theirs = try #require(recorder.streams.first)
        let payload = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let got = try relayTransfer(payload, from: mine.fileDescriptor, to: theirs.fileDescriptor, seconds: 60)
        #expect(got.count == payload.count)
        #expect(got == payload)
        #expect((receiverRelay.status.drops.values.reduce(0, +)) == 0)
    }

    /// The broker restarts (retained messages lost): both sessions come
    /// back with back-off, announce themselves, and the next handoff works.
    @Test func aBrokerRestartIsSurvived() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let (senderEngine, senderRelay) = try Self.engine(broker, name: "sender")
        let (receiverEngine, receiverRelay) = try Self.engine(broker, name: "receiver")
        let receiverDelegate = EngineDelegate()
        let sender = try Application(manifest: Self.manifest, delegate: EngineDelegate(), continuity: senderEngine)
        let receiver = try Application(manifest: Self.manifest, delegate: receiverDelegate, continuity: receiverEngine)
        defer {
            sender.stopContinuity()
            receiver.stopContinuity()
        }
        let apps = [sender, receiver]
        let connected = { senderRelay.status.connection == .connected && receiverRelay.status.connection == .connected }
        #expect(try pump(apps, seconds: 30, until: connected))
        try broker.restart()
        #expect(try pump(apps, seconds: 30) { receiverRelay.status.connection != .connected })
        #expect(try pump(apps, seconds: 60, until: connected))

        let activity = try UserActivity(activityType: "com.example.relay.edit")
        activity.title = "After the restart"
        try activity.setUserInfo(["n": .integer(2)])
        try sender.becomeCurrent(activity)
        #expect(try pump(apps, seconds: 30) { receiverDelegate.available.contains { $0.title == "After the restart" } })
        try receiver.continueActivity(id: activity.activityID)
        #expect(try pump(apps, seconds: 30) { receiverDelegate.restored != nil })
        #expect(receiverDelegate.restored?.userInfo == ["n": .integer(2)])
    }

    /// Another account on the same broker, allowed to write under this
    /// account's topics, sees nothing and injects nothing: its own
    /// device's beacons, forged beacons and gone messages, and a pipe it
    /// opens are dropped, counted, or refused by the channel's handshake.
    @Test func anotherAccountOnTheBrokerInjectsNothing() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let other = try AccountKey(bytes: Array(repeating: 4, count: 32))
        let (senderEngine, _) = try Self.engine(broker, name: "sender")
        let (receiverEngine, receiverRelay) = try Self.engine(broker, name: "receiver")
        let (strangerEngine, strangerRelay) = try Self.engine(broker, name: "stranger", account: other)
        let receiverDelegate = EngineDelegate(), strangerDelegate = EngineDelegate()
        let sender = try Application(manifest: Self.manifest, delegate: EngineDelegate(), continuity: senderEngine)
        let receiver = try Application(manifest: Self.manifest, delegate: receiverDelegate, continuity: receiverEngine)
        let stranger = try Application(manifest: Self.manifest, delegate: strangerDelegate, continuity: strangerEngine)
        defer { [sender, receiver, stranger].forEach { $0.stopContinuity() } }
        let apps = [sender, receiver, stranger]
        #expect(try pump(apps, seconds: 30) { receiverRelay.status.connection == .connected && strangerRelay.status.connection == .connected })
        let mine = try UserActivity(activityType: "com.example.relay.edit")
        mine.title = "mine"
        try sender.becomeCurrent(mine)
        let theirs = try UserActivity(activityType: "com.example.relay.edit")
        theirs.title = "theirs"
        try stranger.becomeCurrent(theirs)

        // Someone who reads our topics writes under them.
        var o = MQTTConnection.Options(host: "127.0.0.1", port: broker.port)
        o.username = "ada"
        o.password = "correct horse"
        let injector = try MQTTConnection(o)
        try injector.connect(timeout: 10)
        let topics = RelayTopics(accountKey: Self.account)
        let fakeTag = topics.deviceTag(Array(repeating: 0x66, count: 16))
        try injector.publish("hoff/\(topics.accountTag)/d/\(fakeTag)", Array(repeating: 0xA5, count: 220), retain: false)
        try injector.publish("hoff/\(topics.accountTag)/d/\(fakeTag)", Array(repeating: 0x5A, count: RelayGoneMessage.sealedSize), retain: false)
        let receiverTag = topics.deviceTag(receiverEngine.configuration.device.idBytes)
        let pipe = RelayPipeID.random()
        try injector.publish(topics.pipeTopic(to: receiverTag, from: fakeTag, pipe: pipe),
                             RelayPipeFrame(kind: .open, pipe: pipe, seq: 0, ack: 0, window: 65536, payload: []).encoded(), retain: false)
        try injector.publish(topics.pipeTopic(to: receiverTag, from: fakeTag, pipe: pipe),
                             RelayPipeFrame(kind: .data, pipe: pipe, seq: 1, ack: 0, window: 65536,
                                            payload: Array("not a ClientHello".utf8)).encoded(), retain: false)
        for _ in 0..<10 { try injector.pump(timeout: 0.05) }

        #expect(try pump(apps, seconds: 30) { receiverDelegate.available.contains { $0.title == "mine" } })
        #expect(try pump(apps, seconds: 30) { (receiverRelay.status.drops["not authentic"] ?? 0) >= 2 })
        // The made-up tag's OPEN took no slot and no socket: dropped before the table.
        #expect(try pump(apps, seconds: 30) { (receiverRelay.status.drops["unknown pipe"] ?? 0) >= 1 })
        #expect(receiverRelay.status.pipes <= 2)  // the sender's verification and fetch pipes at most
        // Long enough for the stranger's beacons (a keep-alive every 4 s... here the burst) to have arrived.
        _ = try pump(apps, seconds: 3) { false }
        #expect(!receiverDelegate.available.contains { $0.title == "theirs" })
        #expect(!strangerDelegate.available.contains { $0.title == "mine" })
        #expect(receiverEngine.status.remotes.map(\.name) == ["sender"])
    }

    @Test func aWrongPasswordIsAClearStateAndNoSpin() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let (engine, relay) = try Self.engine(broker, name: "wrong", password: "battery staple")
        let app = try Application(manifest: Self.manifest, delegate: EngineDelegate(), continuity: engine)
        defer { app.stopContinuity() }
        #expect(try pump([app], seconds: 30) { relay.status.connection == .refused })
        let status = relay.status
        #expect(status.message?.contains("refused the credentials") == true)
        #expect(status.retryIn == RelayBackoff.longest)
        #expect(engine.peerSources.last?.kind == .relay && engine.peerSources.last?.condition == .unavailable)
    }
}

/// Moves `payload` into `from` while reading `to`, both non-blocking
/// enough (poll), until all arrived or `seconds` pass.
func relayTransfer(_ payload: [UInt8], from: Int32, to: Int32, seconds: Double) throws -> [UInt8] {
    var sent = 0
    var got: [UInt8] = []
    let end = monotonicSeconds() + seconds
    while got.count < payload.count && monotonicSeconds() < end {
        var fds = [pollfd(fd: sent < payload.count ? from : -1, events: Int16(POLLOUT), revents: 0),
                   pollfd(fd: to, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 2, 100) > 0 else { continue }
        if fds[0].revents & Int16(POLLOUT) != 0 {
            let n = payload[sent...].withUnsafeBytes { send(from, $0.baseAddress, min($0.count, 65536), Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 { sent += n }
        }
        if fds[1].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = read(to, &buffer, buffer.count)
            if n <= 0 { break }
            got += buffer[0..<n]
        }
    }
    return got
}
