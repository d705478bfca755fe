// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
import HandoffRuntime
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// The engine sorts every datagram of its beacon port (`BeaconTally`):
/// what `handoff doctor` reads, through STATUS or from an engine of its own.
@Suite struct BeaconTallyTests {
    @Test func everyKindOfDatagramIsCountedWithItsSender() throws {
        let engine = try loopbackEngine()
        let app = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: engine)
        let key = testAccount.derived.beaconKey
        let other = DiscoveryBoundsTests.device(7)
        let now = wallMilliseconds()
        func feed(_ b: Beacon, from host: String, key: [UInt8] = key) throws {
            engine.received(try BeaconCodec.seal(b, key: key), from: UDPAddress(host: host, port: 40000)!)
        }
        var fresh = DiscoveryBoundsTests.advert(device: other, sequence: now * 1000)
        fresh.deviceName = "Laptop"
        try feed(fresh, from: "127.0.0.2")                          // accepted
        try feed(fresh, from: "::1")                                // the other family's copy
        var old = fresh
        old.sequence -= 100
        try feed(old, from: "127.0.0.9")                            // replayed
        var skewed = fresh
        skewed.sequence += 1
        skewed.timestamp = now + 600_000
        try feed(skewed, from: "127.0.0.2")                         // 10 min ahead: stale
        try feed(fresh, from: "127.0.0.3", key: AccountKey.generate().derived.beaconKey)  // another account
        var own = fresh
        own.deviceID = engine.configuration.device.idBytes
        try feed(own, from: "127.0.0.1")                            // this device's own
        engine.received([1, 2, 3], from: UDPAddress(host: "127.0.0.4", port: 1)!)          // garbage: foreign too

        let status = engine.status
        let t = status.beacons
        #expect(t.packets == 7 && t.accepted == 1 && t.duplicates == 1 && t.replays == 1 && t.stale == 1)
        #expect(t.foreign == 2 && t.own == 1)
        #expect(t.foreignSources == ["127.0.0.3", "127.0.0.4"] && t.replaySources == ["Laptop from 127.0.0.9"])
        #expect(t.staleSenders.count == 1 && t.staleSenders[0].name == "Laptop" && t.staleSenders[0].host == "127.0.0.2")
        #expect((590_000...610_000).contains(t.staleSenders[0].skewMilliseconds))
        #expect(status.counters["beaconsStale"] == 1 && status.counters["beaconsRefused"] == 2)
        let remote = try #require(status.remotes.first)
        #expect(remote.name == "Laptop" && remote.role == .full && remote.channels.count == 2)
        // STATUS carries the same: what the agent answers and the tool reads.
        let agentStatus = AgentStatus(engine: engine, device: engine.configuration.device, clients: 3)
        #expect(agentStatus.beacons == t && agentStatus.remotes[0].role == .full && agentStatus.clients == 3)
        let frame = AgentFrame(.status(agentStatus), requestID: 9)
        let decoded = try AgentFrame(decoding: try frame.encoded(), from: .agent)
        #expect(decoded.message == .status(agentStatus))
        _ = app
        engine.detach()
    }

    @Test func staleSendersAndSourcesAreBounded() {
        var t = BeaconTally()
        for n in 0..<50 {
            t.countForeign(from: "10.0.0.\(n)")
            let b = DiscoveryBoundsTests.advert(device: DiscoveryBoundsTests.device(n))
            t.count(.stale, b, from: "10.0.1.\(n)", nowMilliseconds: 0)
            t.count(.replay, b, from: "10.0.2.\(n)", nowMilliseconds: 0)
        }
        #expect(t.foreign == 50 && t.stale == 50 && t.replays == 50)
        #expect(t.foreignSources.count == BeaconTally.sourcesKept && t.staleSenders.count == BeaconTally.sourcesKept)
        #expect(t.replaySources.count == BeaconTally.sourcesKept)
    }
}
