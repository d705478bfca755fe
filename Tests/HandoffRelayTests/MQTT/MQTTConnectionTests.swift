// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
@testable import HandoffRelay
import HandoffModel
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The relay's broker connection against a real `mosquitto` started by
/// each test (password auth on loopback): what the agent relies on —
/// retained messages reach later subscribers, QoS 1 messages arrive in
/// order, the Last Will is published when a client vanishes, and wrong
/// credentials give a clear error, not a hang. Every wait is bounded.
@Suite(.serialized, .enabled(if: TestBroker.available, "mosquitto is not installed (scripts/install-deps.sh)"))
struct MQTTConnectionTests {
    static func options(_ broker: TestBroker, user: String = "ada", password: String = "correct horse") -> MQTTConnection.Options {
        var o = MQTTConnection.Options(host: "127.0.0.1", port: broker.port)
        o.username = user
        o.password = password
        return o
    }

    /// Pumps until `count` messages arrived (bounded by rounds of at most 0.2 s).
    static func receive(_ connection: MQTTConnection, count: Int, rounds: Int = 100) throws -> [MQTTConnection.Message] {
        var messages: [MQTTConnection.Message] = []
        for _ in 0..<rounds where messages.count < count {
            try connection.pump(timeout: 0.2)
            messages += connection.take()
        }
        return messages
    }

    @Test func aRetainedMessageReachesALaterSubscriber() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let topics = RelayTopics(accountKey: try AccountKey(bytes: Array(0..<32)))
        let topic = topics.deviceTopic(Array(0xA0...0xAF))
        let beacon = Array(repeating: UInt8(0x5A), count: 220)

        let publisher = try MQTTConnection(Self.options(broker))
        try publisher.connect(timeout: 10)
        try publisher.publish(topic, beacon, retain: true)
        for _ in 0..<5 { try publisher.pump(timeout: 0.05) }

        let subscriber = try MQTTConnection(Self.options(broker))
        try subscriber.connect(timeout: 10)
        try subscriber.subscribe(topics.subscriptions(ownDeviceID: Array(0x10...0x1F))[0])
        let messages = try Self.receive(subscriber, count: 1)
        #expect(messages == [MQTTConnection.Message(topic: topic, payload: beacon, retained: true)])
        #expect(topics.parse(messages.first?.topic ?? "") == .device(tag: topics.deviceTag(Array(0xA0...0xAF))))
    }

    /// `subscribed` (the relay's "healthy" needs it) waits for every SUBACK.
    @Test func subscribedWaitsForEverySuback() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let topics = RelayTopics(accountKey: try AccountKey(bytes: Array(0..<32)))
        let connection = try MQTTConnection(Self.options(broker))
        try connection.connect(timeout: 10)
        #expect(!connection.subscribed)
        let filters = topics.subscriptions(ownDeviceID: Array(0x10...0x1F))
        for filter in filters { try connection.subscribe(filter) }
        #expect(!connection.subscribed)  // nothing read yet
        for _ in 0..<100 where !connection.subscribed { try connection.pump(timeout: 0.2) }
        #expect(connection.subscribed)
    }

    @Test func pipeFramesArriveInOrderAndOversizedOnesAreDroppedUncopied() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let topics = RelayTopics(accountKey: try AccountKey(bytes: Array(0..<32)))
        let me: [UInt8] = Array(0x10...0x1F), peer: [UInt8] = Array(0xA0...0xAF)
        let receiver = try MQTTConnection(Self.options(broker))
        try receiver.connect(timeout: 10)
        try receiver.subscribe(topics.subscriptions(ownDeviceID: me)[1])
        for _ in 0..<5 { try receiver.pump(timeout: 0.05) }  // the SUBACK

        let sender = try MQTTConnection(Self.options(broker))
        try sender.connect(timeout: 10)
        let pipe = RelayPipeID.random()
        let topic = topics.pipeTopic(to: topics.deviceTag(me), from: topics.deviceTag(peer), pipe: pipe)
        let frames = (0..<20).map { RelayPipeFrame(kind: .data, pipe: pipe, seq: UInt32($0 + 1), ack: 0, window: 65536,
                                                   payload: Array(repeating: UInt8($0), count: 1000 * ($0 % 5) + 1)).encoded() }
        for frame in frames { try sender.publish(topic, frame, retain: false) }
        for _ in 0..<5 { try sender.pump(timeout: 0.05) }
        #expect(throws: HandoffError.self) { try sender.publish(topic, Array(repeating: 1, count: MQTTConnection.maxMessageSize + 1), retain: false) }
        let first = try Self.receive(receiver, count: frames.count)
        // Another client sends one larger than any relay message:
        // libmosquitto's callback drops it, counted, and the next arrives.
        try TestFiles.write(broker.folder + "/big", String(repeating: "x", count: MQTTConnection.maxMessageSize + 1).utf8)
        let pub = try ChildProcess.start(TestBroker.publishTool, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", "ada",
                                                                 "-P", "correct horse", "-q", "1", "-t", topic, "-f", broker.folder + "/big"])
        #expect(pub.wait(timeout: 30) == 0)
        try sender.publish(topic, frames[0], retain: false)
        for _ in 0..<5 { try sender.pump(timeout: 0.05) }

        let messages = first + (try Self.receive(receiver, count: 1))
        #expect(messages.map(\.payload) == frames + [frames[0]])
        #expect(messages.allSatisfy { !$0.retained && $0.topic == topic })
        #expect(receiver.droppedMessages == 1)
    }

    /// MQTT 5's Maximum Packet Size: a message far over any relay
    /// message's size is not even sent to this client by the broker, so it
    /// is never allocated here (libmosquitto reads a whole packet before
    /// the callback could drop it); the connection goes on.
    @Test func theBrokerNeverSendsAHugeMessage() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let topic = "hoff/" + String(repeating: "a", count: 32) + "/p/" + String(repeating: "b", count: 32) + "/x"
        let receiver = try MQTTConnection(Self.options(broker))
        try receiver.connect(timeout: 10)
        try receiver.subscribe("hoff/#")
        for _ in 0..<5 { try receiver.pump(timeout: 0.05) }
        try TestFiles.write(broker.folder + "/huge", String(repeating: "x", count: 1 << 20).utf8)
        for file in ["huge"] {
            let pub = try ChildProcess.start(TestBroker.publishTool, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", "ada",
                                                                     "-P", "correct horse", "-q", "1", "-t", topic, "-f", broker.folder + "/" + file])
            #expect(pub.wait(timeout: 30) == 0)
        }
        let sender = try MQTTConnection(Self.options(broker))
        try sender.connect(timeout: 10)
        try sender.publish(topic, [1, 2, 3], retain: false)
        for _ in 0..<5 { try sender.pump(timeout: 0.05) }
        let messages = try Self.receive(receiver, count: 1)
        #expect(messages.map(\.payload) == [[1, 2, 3]])
        #expect(receiver.droppedMessages == 0)
    }

    @Test func theLastWillIsPublishedWhenAClientVanishes() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let account = try AccountKey(bytes: Array(0..<32))
        let topics = RelayTopics(accountKey: account)
        let device: [UInt8] = Array(0xA0...0xAF)
        let gone = RelayGoneMessage(deviceID: device, connected: 1_700_000_000_000, session: Array(0xE0...0xEF))
        var options = Self.options(broker)
        options.will = MQTTConnection.Will(topic: topics.deviceTopic(device), payload: gone.sealed(key: topics.goneKey))
        options.keepalive = 5

        let watcher = try MQTTConnection(Self.options(broker))
        try watcher.connect(timeout: 10)
        try watcher.subscribe(topics.subscriptions(ownDeviceID: Array(0x10...0x1F))[0])
        do {
            let vanishing = try MQTTConnection(options)
            try vanishing.connect(timeout: 10)
            try vanishing.pump(timeout: 0.05)
            // Vanish without DISCONNECT: close its socket under libmosquitto.
            Glibc.shutdown(vanishing.socket, Int32(SHUT_RDWR))
            _ = try? vanishing.pump(timeout: 0.05)
        }
        let messages = try Self.receive(watcher, count: 1)
        #expect(messages.count == 1)
        var reader = RelayDeviceTopicReader(account: account, ownDeviceID: Array(0x10...0x1F), now: 0)
        #expect(reader.read(messages.first?.payload ?? [], deviceTag: topics.deviceTag(device), now: 0) == .success(.gone(gone)))
    }

    @Test func wrongCredentialsGiveAClearErrorNotAHang() throws {
        let broker = try TestBroker(users: [("ada", "correct horse")])
        defer { broker.stop() }
        let wrong = try MQTTConnection(Self.options(broker, password: "wrong"))
        var failure: HandoffError?
        do { try wrong.connect(timeout: 10) } catch { failure = error }
        #expect(failure?.code == .permission)
        #expect(failure?.message.contains("refused the credentials of \"ada\"") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("127.0.0.1:\(broker.port)") == true)

        var anonymous = MQTTConnection.Options(host: "127.0.0.1", port: broker.port)
        anonymous.username = nil
        var refused: HandoffError?
        do { try MQTTConnection(anonymous).connect(timeout: 10) } catch { refused = error }
        #expect(refused?.code == .permission)
    }

    @Test func aSilentBrokerIsGivenUpOnAtTheTimeout() throws {
        // Something that accepts TCP and never speaks MQTT.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        var failure: HandoffError?
        do { try MQTTConnection(MQTTConnection.Options(host: "127.0.0.1", port: port)).connect(timeout: 1) } catch { failure = error }
        #expect(failure?.code == .connectionUnavailable)
        #expect(failure?.message == "the relay broker 127.0.0.1:\(port) did not answer within 1 s")
    }

    @Test func anAbsentBrokerIsUnavailableAtOnce() throws {
        let port = try TestBroker.freePort()
        var failure: HandoffError?
        do { try MQTTConnection(MQTTConnection.Options(host: "127.0.0.1", port: port)).connect(timeout: 10) } catch { failure = error }
        #expect(failure?.code == .connectionUnavailable)
        #expect(failure?.message.contains("cannot reach the relay broker 127.0.0.1:\(port)") == true, "\(String(describing: failure))")
    }
}
