// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// Configured peers by number or name, and the union of every source's
/// addresses that the beacon sender uses (docs/PROTOCOL.md "Peer sources").
@Suite struct PeerSourceTests {
    @Test func aConfiguredPeerIsANumberOrAName() {
        #expect(ConfiguredPeer("192.168.1.20:52370") == .address(UDPAddress("192.168.1.20:52370")!))
        #expect(ConfiguredPeer("[::1]:52370") == .address(UDPAddress("[::1]:52370")!))
        #expect(ConfiguredPeer("ada.local:52370") == .name(PeerName(host: "ada.local", port: 52370)!))
        #expect(ConfiguredPeer("desk.tail1234.ts.net.:1") == .name(PeerName(host: "desk.tail1234.ts.net.", port: 1)!))
        for bad in ["ada.local", "ada.local:", "ada.local:0", "ada.local:65536", "a..b:1", "-a:1", "a b:1", "[ada]:1",
                    "1.2.3:52370", ":52370", "ada.local:+1", String(repeating: "a", count: 64) + ":1", "ä.local:1"] {
            #expect(ConfiguredPeer(bad) == nil, "\(bad)")
        }
    }

    @Test func aNameResolvesThroughTheSystemResolver() {
        // /etc/hosts: no traffic.
        let source = NamedPeerSource(PeerName(host: "localhost", port: 52370)!)
        #expect(source.state.condition == .pending && source.addresses.isEmpty)
        let next = source.refresh(now: 5)
        #expect(next == 5 + NamedPeerSource.resolveInterval)
        #expect(source.addresses.contains(UDPAddress("127.0.0.1:52370")!))
        #expect(source.state.condition == .ok && source.state.addresses.contains("127.0.0.1:52370"))
    }

    /// A source with `list` now and `later` after its first refresh.
    final class Fake: PeerSource, @unchecked Sendable {
        let list: Locked<[UDPAddress]>
        let later: [UDPAddress]?
        let refreshes = Locked(0)
        init(_ list: [UDPAddress], later: [UDPAddress]? = nil) {
            self.list = Locked(list)
            self.later = later
        }
        var addresses: [UDPAddress] { list.withLock { $0 } }
        var state: PeerSourceState { PeerSourceState(kind: .relay, name: "fake", condition: .ok) }
        func refresh(now: Double) -> Double? {
            refreshes.withLock { $0 += 1 }
            if let later { list.withLock { $0 = later } }
            return nil
        }
    }

    static func addresses(_ range: Range<Int>) -> [UDPAddress] {
        range.map { UDPAddress(host: "10.0.\($0 / 250).\($0 % 250 + 1)", port: 52370)! }
    }

    @Test func theUnionIsEachAddressOnceInSourceOrderAndBounded() {
        let a = Fake(Self.addresses(0..<200))
        let b = Fake(Self.addresses(100..<400))
        let union = PeerSources.union([a, b])
        #expect(union.count == PeerSources.maxAddresses)
        #expect(Array(union.prefix(200)) == Self.addresses(0..<200))
        #expect(Set(union).count == union.count)
    }

    @Test func theThreadRefreshesPublishesChangesAndStops() throws {
        let source = Fake([], later: Self.addresses(0..<2))
        let calls = Awaitable<[(Int, Bool)]>([])
        let sources = PeerSources([StaticPeerSource(UDPAddress("127.0.0.1:1")!), source]) { list, added in
            calls.update { $0.append((list.count, added)) }
        }
        // The static address counts from the start; the fake's after its refresh.
        #expect(sources.addresses == [UDPAddress("127.0.0.1:1")!])
        #expect(sources.start())
        let published = calls.wait(until: { !$0.isEmpty }, seconds: 20) { calls, _ in calls }
        #expect(published.first.map { $0.0 == 3 && $0.1 } == true)
        #expect(source.refreshes.withLock { $0 } == 1)
        #expect(sources.addresses.count == 3)
        sources.stop()
        sources.stop()  // idempotent
    }

    @Test func noThreadWhenNothingNeedsRefreshing() {
        let sources = PeerSources([StaticPeerSource(UDPAddress("127.0.0.1:1")!),
                                   LinkPeerSource(multicast: false) { nil }]) { _, _ in Issue.record("no change expected") }
        #expect(sources.start())
        #expect(sources.states.map(\.condition) == [.ok, .off])
        sources.stop()
    }

    /// An engine beacons to what its sources give: a host's own source
    /// (`additionalPeerSources`, the relay's seam) reaches the transport
    /// after its refresh, and its state is the engine's to report.
    @Test func anEngineBeaconsToItsSourcesUnion() throws {
        let later = [UDPAddress("127.0.0.1:9")!, UDPAddress("127.0.0.1:7")!]
        let extra = Fake([], later: later)
        var config = ContinuityConfiguration(account: testAccount, device: try DeviceIdentity.generate(name: "sources"),
                                             beacons: BeaconTransportConfig(port: 0, multicast: false,
                                                                            peers: [UDPAddress("127.0.0.1:7")!]))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.tailnetSocket = "/nonexistent/tailscaled.sock"  // an ephemeral port: no tailnet source
        config.additionalPeerSources = [extra]
        let engine = try ContinuityEngine(configuration: config)
        defer { engine.detach() }
        #expect(engine.peerSources.map(\.kind) == [.link, .peer, .relay])
        let end = monotonicSeconds() + 20
        while engine.transport.peers.count < 2 && monotonicSeconds() < end { usleep(10_000) }
        #expect(engine.transport.peers == [UDPAddress("127.0.0.1:7")!, UDPAddress("127.0.0.1:9")!])
        #expect(engine.status.sources.count == 3)
    }
}
