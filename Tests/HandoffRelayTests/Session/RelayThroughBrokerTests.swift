// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffModel
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The relay's parts together through a real `mosquitto` started by the
/// test (PROTOCOL.md §11): two devices, each with its `MQTTConnection`,
/// `RelayPipeTable` and `RelayStreamBridge`s, run the real TLS 1.3 PSK
/// channel over a pipe through the broker, while a second tenant of the
/// broker writes under their topics: its messages are dropped and
/// counted, never answered, and the channel works. As `hoff-relay` will,
/// one thread owns both devices' relay state.
@Suite(.serialized, .enabled(if: TestBroker.available, "mosquitto is not installed (scripts/install-deps.sh)"))
struct RelayThroughBrokerTests {
    static let account = try! AccountKey(bytes: Array(0..<32))
    static let psk = account.derived.channelPSK
    static let deviceA: [UInt8] = Array(0xA0...0xAF)
    static let deviceB: [UInt8] = Array(0xB0...0xBF)

    /// One device's relay side. @unchecked Sendable: set up on the test's
    /// thread, then used only by the relay thread until it is joined.
    final class Device: @unchecked Sendable {
        let connection: MQTTConnection
        var table: RelayPipeTable
        var reader: RelayDeviceTopicReader
        var bridges: [RelayPipeTable.Key: RelayStreamBridge] = [:]
        var accepted: [Int32] = []
        var readerDrops: [RelayDropReason: Int] = [:]

        init(_ broker: TestBroker, id: [UInt8]) throws {
            var options = MQTTConnection.Options(host: "127.0.0.1", port: broker.port)
            options.username = "ada"
            options.password = "correct horse"
            connection = try MQTTConnection(options)
            try connection.connect(timeout: 10)
            table = RelayPipeTable(account: RelayThroughBrokerTests.account, ownDeviceID: id, now: monotonicSeconds())
            reader = RelayDeviceTopicReader(account: RelayThroughBrokerTests.account, ownDeviceID: id, now: monotonicSeconds())
            for filter in table.topics.subscriptions(ownDeviceID: id) { try connection.subscribe(filter) }
        }

        /// A pipe to `peer`, and the channel's end of its socket pair.
        func open(to peer: [UInt8]) throws -> Int32 {
            let key = try table.open(to: table.topics.deviceTag(peer), now: monotonicSeconds())
            let (fd, bridge) = try RelayStreamBridge.pair()
            bridges[key] = bridge
            return fd
        }

        /// One turn of the relay's loop for this device.
        func turn() throws {
            try connection.pump(timeout: 0.002)
            let now = monotonicSeconds()
            for message in connection.take() {
                switch table.topics.parse(message.topic) {
                case .pipe?:
                    if case .accepted(let key) = table.receive(message.payload, topic: table.topics.parse(message.topic)!, now: now) {
                        let (fd, bridge) = try RelayStreamBridge.pair()
                        bridges[key] = bridge
                        accepted.append(fd)
                    }
                case .device(let tag)?:
                    if case .failure(let reason) = reader.read(message.payload, deviceTag: tag, now: now) {
                        readerDrops[reason, default: 0] += 1
                    }
                case nil:
                    readerDrops[.topicMismatch, default: 0] += 1
                }
            }
            for key in Array(bridges.keys) {
                _ = table.withPipe(key) { pipe in bridges[key]!.pump(&pipe) }
            }
            for (key, frame) in table.poll(now: now) {
                try connection.publish(table.topic(for: key), frame.encoded(), retain: false)
            }
            for key in table.takeForgotten() { bridges.removeValue(forKey: key)?.close() }
            for key in Array(bridges.keys) {
                _ = table.withPipe(key) { pipe in bridges[key]!.pump(&pipe) }
            }
        }
    }

    @Test func theChannelRunsThroughTheBrokerWhileAnotherTenantWritesUnderOurTopics() throws {
        let broker = try TestBroker(users: [("ada", "correct horse"), ("mallory", "other")])
        defer { broker.stop() }
        let a = try Device(broker, id: Self.deviceA)
        let b = try Device(broker, id: Self.deviceB)
        for _ in 0..<10 { try a.turn(); try b.turn() }  // the SUBACKs

        // The other tenant: junk and a blind DATA under B's pipe topics,
        // junk and a forged "gone" under B's device topic (which A reads).
        var options = MQTTConnection.Options(host: "127.0.0.1", port: broker.port)
        options.username = "mallory"
        options.password = "other"
        let mallory = try MQTTConnection(options)
        try mallory.connect(timeout: 10)
        let topics = a.table.topics
        let toB = topics.pipeTopic(to: topics.deviceTag(Self.deviceB), from: topics.deviceTag(Self.deviceA), pipe: .random())
        let blindPipe = RelayPipeID.random()
        let blind = topics.pipeTopic(to: topics.deviceTag(Self.deviceB), from: topics.deviceTag(Self.deviceA), pipe: blindPipe)
        for i in 0..<5 { try mallory.publish(toB, Array(repeating: UInt8(i), count: 40), retain: false) }
        try mallory.publish(blind, RelayPipeFrame(kind: .data, pipe: blindPipe, seq: 1, ack: 0, window: 9, payload: [1]).encoded(), retain: false)
        try mallory.publish(topics.deviceTopic(Self.deviceB), Array(repeating: 7, count: RelayGoneMessage.sealedSize), retain: false)
        try mallory.publish(topics.deviceTopic(Self.deviceB), Array(repeating: 7, count: 92), retain: false)
        for _ in 0..<10 { try mallory.pump(timeout: 0.01) }

        // The channel: A opens a pipe to B; B's accepted pipe goes to a server thread.
        let clientFD = try a.open(to: Self.deviceB)
        let stop = Locked(false)
        let serverFD = Locked<Int32?>(nil)
        let relayError = Locked<String?>(nil)
        let relay = startJoinableThread(named: "test-relay") {
            let end = monotonicSeconds() + 30
            while !stop.withLock({ $0 }) && monotonicSeconds() < end {
                do {
                    try a.turn()
                    try b.turn()
                } catch {
                    relayError.withLock { $0 = "\(error)" }
                    return
                }
                if let fd = b.accepted.first {
                    b.accepted.removeFirst()
                    serverFD.withLock { $0 = fd }
                }
            }
        }
        var joined = false
        func joinRelay() {
            guard !joined else { return }
            joined = true
            stop.withLock { $0 = true }
            if let relay { pthread_join(relay, nil) }
        }
        defer { joinRelay() }
        let serverError = Locked<HandoffError?>(nil)
        let server = startJoinableThread(named: "test-server") {
            var fd: Int32?
            for _ in 0..<3000 where fd == nil {
                fd = serverFD.withLock { $0 }
                if fd == nil { usleep(10_000) }
            }
            guard let fd else { serverError.withLock { $0 = HandoffError(.timedOut, "no pipe was accepted") }; return }
            do throws(HandoffError) {
                let peer = SocketAddress(path: PeerPathAddress(kind: .relay, tag: RelayTopics(accountKey: Self.account).deviceTag(Self.deviceA)))
                let connection = try ChannelConnection.accept(overStream: fd, peer: peer, psk: Self.psk)
                try connection.send(try connection.receive(timeout: 10), timeout: 10)
                _ = try? connection.receive(timeout: 10)
            } catch {
                serverError.withLock { $0 = error }
            }
        }
        let connection = try ChannelConnection.connect(overStream: clientFD, peer: SocketAddress(path: PeerPathAddress(kind: .relay, tag: topics.deviceTag(Self.deviceB))),
                                                       psk: Self.psk)
        let payload = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try connection.send(Frame(type: 0x02, payload: payload), timeout: 10)
        let echo = try connection.receive(timeout: 10)
        connection.close()
        if let server { pthread_join(server, nil) }
        joinRelay()

        #expect(echo.payload == payload)
        #expect(serverError.withLock { $0 } == nil)
        #expect(relayError.withLock { $0 } == nil)
        // The tenant's messages: dropped, counted, never answered.
        #expect(b.table.drops[.malformed, default: 0] == 5)
        #expect(b.table.drops[.unknownPipe, default: 0] == 1)
        #expect(a.readerDrops[.notAuthentic, default: 0] == 2)
        #expect(b.table.pipes.keys.allSatisfy { $0.pipe != blindPipe })
    }
}
