// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// The engine knows another path only through `PeerPath`: two engines
/// with no link between them (no multicast, no unicast peers) and a path
/// of the test's own that carries beacons between them and dials over
/// Unix socket pairs. Beacons, the verification, the FETCH and the CONFIRM
/// all cross it, with no relay code at all.
@Suite(.serialized) struct PeerPathEngineTests {
    /// One side of a path between two engines in this process.
    final class SocketPairPath: PeerPath, @unchecked Sendable {
        let kind = PeerPathKind.peer
        /// This side's address, as the other side hears it.
        let address: PeerPathAddress
        private let shared = Locked<(events: PeerPathEvents?, partner: SocketPairPath?, published: Int, dialed: Int)>(
            (nil, nil, 0, 0))

        init(tag: String) { address = PeerPathAddress(kind: .peer, tag: tag) }

        static func pair() -> (SocketPairPath, SocketPairPath) {
            let a = SocketPairPath(tag: "a"), b = SocketPairPath(tag: "b")
            a.shared.withLock { $0.partner = b }
            b.shared.withLock { $0.partner = a }
            return (a, b)
        }

        var counts: (published: Int, dialed: Int) { shared.withLock { ($0.published, $0.dialed) } }
        var state: PeerSourceState { PeerSourceState(kind: .peer, name: "pair \(address.tag)", condition: .ok) }

        func start(_ events: PeerPathEvents) -> Bool {
            shared.withLock { $0.events = events }
            events.connected()
            return true
        }

        private var partnerEvents: PeerPathEvents? {
            shared.withLock { $0.partner }?.shared.withLock { $0.events }
        }

        func publish(beacon packet: [UInt8]) {
            shared.withLock { $0.published += 1 }
            partnerEvents?.beacon(packet, address)
        }

        func dial(_ to: PeerPathAddress) throws(HandoffError) -> Int32 {
            guard let events = partnerEvents, to.kind == .peer else {
                throw HandoffError(.connectionUnavailable, "no device at \(to)")
            }
            var fds: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                             0, &fds) == 0 else { throw HandoffError(.io, "socketpair failed") }
            shared.withLock { $0.dialed += 1 }
            events.accepted(fds[1], address) {}
            return fds[0]
        }

        func peerLeft(_ deviceID: [UInt8]) {}
        func stop() { shared.withLock { $0.events = nil } }
    }

    static func engine(_ path: SocketPairPath, name: String) throws -> ContinuityEngine {
        var config = ContinuityConfiguration(account: testAccount, device: try DeviceIdentity.generate(name: name),
                                             beacons: BeaconTransportConfig(port: 0, multicast: false, peers: []))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.tailnetSocket = nil
        config.fetchTimeout = 2
        config.paths = [path]
        return try ContinuityEngine(configuration: config)
    }

    @Test func aHandoffCrossesAPathOfItsOwn() throws {
        let (pathA, pathB) = SocketPairPath.pair()
        let senderEngine = try Self.engine(pathA, name: "sender")
        let receiverEngine = try Self.engine(pathB, name: "receiver")
        let senderDelegate = EngineDelegate(), receiverDelegate = EngineDelegate()
        let sender = try Application(manifest: try manifest(), delegate: senderDelegate, continuity: senderEngine)
        let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
        defer {
            sender.stopContinuity()
            receiver.stopContinuity()
        }
        let activity = try UserActivity(activityType: "com.example.app.edit")
        activity.title = "Over a path"
        try activity.setUserInfo(["doc": .string("p-1")])
        try sender.becomeCurrent(activity)

        #expect(try pump([sender, receiver], seconds: 20) { receiverDelegate.available.count == 1 })
        let remote = try #require(receiverDelegate.available.first)
        // Heard and verified on that path only, shown as its kind and tag.
        let channels = receiverEngine.status.remotes.flatMap(\.channels)
        #expect(channels == ["peer:a"])
        #expect(receiverEngine.peerSources.last == pathB.state)

        try receiver.continueActivity(id: remote.activityID)
        #expect(try pump([sender, receiver], seconds: 20) { receiverDelegate.restoredInfo != nil })
        #expect(receiverDelegate.restoredInfo == ["doc": .string("p-1")])
        #expect(pathA.counts.published > 0 && pathB.counts.dialed >= 1)
    }
}
