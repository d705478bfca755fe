// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
import Testing

/// The engine's threads (`hoff-scheduler`, `hoff-reach`, `hoff-beacons`)
/// each run a reactor, and with nothing to do they make no turn at all
/// (docs/agent.md §8): these count their turns, so a loop that spins, or
/// wakes when idle, fails here.
@Suite(.serialized) struct EngineLoopWakeTests {
    /// `read()` once it has not moved for 200 ms (at most 10 s of waiting).
    static func settled(_ read: () -> Int) -> Int {
        var last = read()
        for _ in 0..<50 {
            usleep(200_000)
            let now = read()
            if now == last { return now }
            last = now
        }
        return last
    }

    /// An engine on loopback beaconing to `peer`, its presence every
    /// `presenceInterval` seconds (0: none).
    static func engine(presenceInterval: Double, peer: UInt16) throws -> ContinuityEngine {
        var config = ContinuityConfiguration(
            account: testAccount, device: try DeviceIdentity.generate(name: "idle", role: .full),
            beacons: BeaconTransportConfig(port: 0, multicast: false, peers: [UDPAddress(host: "127.0.0.1", port: peer)!]))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.presenceInterval = presenceInterval
        return try ContinuityEngine(configuration: config)
    }

    // MARK: hoff-scheduler

    @Test func anIdleSchedulerMakesNoTurn() throws {
        let (held, port) = BeaconLoopback.holdPort()
        defer { close(held) }
        let engine = try Self.engine(presenceInterval: 0, peer: port)
        defer { engine.detach() }
        // The start: its presence beacon, then no deadline at all.
        #expect(BeaconLoopback.waitUntil { engine.transport.stats.packetsSent >= 1 })
        let waits = Self.settled { engine.schedulerCounts.waits }
        // Its first pass runs before its first wait; nothing wakes it since.
        #expect(waits <= 1)
        usleep(500_000)
        #expect(engine.schedulerCounts.waits == waits)
        #expect(engine.schedulerCounts.timerFires == 0)
    }

    /// Each deadline is one turn: the timer never fires before the time it
    /// stands for (which would find nothing due and wait again).
    @Test func eachPresenceDeadlineIsOneTurn() throws {
        let (held, port) = BeaconLoopback.holdPort()
        defer { close(held) }
        let engine = try Self.engine(presenceInterval: 0.05, peer: port)
        defer { engine.detach() }
        #expect(BeaconLoopback.waitUntil(seconds: 10) { engine.transport.stats.packetsSent >= 10 })
        let counts = engine.schedulerCounts
        let sent = engine.transport.stats.packetsSent
        // One presence per fire; the turns are those fires and the start's.
        #expect(counts.timerFires <= Int(sent) + 1)
        #expect(counts.waits <= counts.timerFires + counts.wakes + 2)
    }

    // MARK: hoff-reach

    /// A source refreshed on events only, and after network changes.
    final class OnEvents: PeerSource, @unchecked Sendable {
        let refreshes = Locked(0)
        let settle: Double?
        init(settle: Double?) { self.settle = settle }
        var addresses: [UDPAddress] { [] }
        var state: PeerSourceState { PeerSourceState(kind: .relay, name: "events", condition: .ok) }
        var refreshAfterNetworkChange: Double? { settle }
        func refresh(now: Double) -> Double? {
            refreshes.withLock { $0 += 1 }
            return nil
        }
    }

    @Test func anIdleReachThreadMakesNoTurn() throws {
        let source = OnEvents(settle: nil)
        let sources = PeerSources([source]) { _, _ in }
        defer { sources.stop() }
        #expect(sources.start())
        #expect(BeaconLoopback.waitUntil { source.refreshes.withLock { $0 } == 1 })
        let waits = Self.settled { sources.loopCounts?.waits ?? -1 }
        usleep(500_000)
        #expect(sources.loopCounts?.waits == waits)
        #expect(source.refreshes.withLock { $0 } == 1)
    }

    @Test func aBurstOfNetworkChangesIsOneRefresh() throws {
        let source = OnEvents(settle: 0.3)
        let sources = PeerSources([source]) { _, _ in }
        defer { sources.stop() }
        #expect(sources.start())
        #expect(BeaconLoopback.waitUntil { source.refreshes.withLock { $0 } == 1 })
        for _ in 0..<20 { sources.interfacesChanged() }
        #expect(BeaconLoopback.waitUntil(seconds: 10) { source.refreshes.withLock { $0 } == 2 })
        let waits = Self.settled { sources.loopCounts?.waits ?? -1 }
        usleep(500_000)
        #expect(source.refreshes.withLock { $0 } == 2)
        #expect(sources.loopCounts?.waits == waits)
        // The start's refresh, a few turns for the burst, the refresh's.
        #expect(waits <= 2 + 20 + 1)
    }

    // MARK: hoff-beacons

    @Test func anIdleBeaconReceiverMakesNoTurn() throws {
        let inbox = BeaconInbox()
        let transport = try BeaconTransport(config: BeaconTransportTests.unicastOnly, receive: inbox.callback)
        usleep(300_000)
        #expect(transport.loopCounts?.waits == 0)
        for _ in 0..<200 { BeaconLoopback.sendRaw(Array(repeating: 1, count: BeaconCodec.minPacketSize), to: transport.port) }
        #expect(inbox.wait(for: 200, seconds: 10) == 200)
        let waits = Self.settled { transport.loopCounts?.waits ?? -1 }
        // Batches of 64 at most, each one turn.
        #expect(waits >= 4 && waits <= 200)
        usleep(500_000)
        #expect(transport.loopCounts?.waits == waits)
        transport.stop()
        #expect(transport.loopCounts == nil)  // its descriptors closed with the sockets
    }
}
