// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
@testable import HandoffRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Devices that offer nothing are listed too (docs/PROTOCOL.md §5
/// "Presence"): an idle device answers a solicitation with a presence
/// beacon, is verified, listed online in the roster, and offline once it
/// leaves or goes silent. Two engines on loopback, real sockets.
@Suite(.serialized) struct PresenceEngineTests {
    static func engine(name: String, presenceLifetime: Double = 150, roster: DeviceRosterFile? = nil) throws -> ContinuityEngine {
        var config = ContinuityConfiguration(
            account: testAccount, device: try DeviceIdentity.generate(name: name, role: .full),
            beacons: BeaconTransportConfig(port: 0, multicast: false, peers: []))
        config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
        config.remoteLifetime = min(12, presenceLifetime)
        config.presenceLifetime = presenceLifetime
        config.roster = roster
        return try ContinuityEngine(configuration: config)
    }

    static func peer(_ a: ContinuityEngine, _ b: ContinuityEngine) {
        a.transport.setPeers([UDPAddress(host: "127.0.0.1", port: b.beaconPort)!])
        b.transport.setPeers([UDPAddress(host: "127.0.0.1", port: a.beaconPort)!])
    }

    static func row(_ engine: ContinuityEngine, _ other: ContinuityEngine) -> EngineStatus.RosterDevice? {
        engine.status.roster.first { $0.id == hex(other.configuration.device.idBytes) }
    }

    @Test func anIdleDeviceIsListedOnlineAfterASolicitationAndOfflineWhenItLeaves() throws {
        try AccountFixtures.withTemporaryDirectory { dir in
            let file = DeviceRosterFile(store: AccountStore(directory: dir), accountID: testAccount.derived.accountID)
            let a = try Self.engine(name: "A", roster: file)
            let b = try Self.engine(name: "B idle")
            // B attached first (it answers only then), offering nothing, and
            // before the two know each other: its start presence goes to a
            // socket of the test's, never to A, so A can only learn of B
            // from B's answer. Peered only once it went (the scheduler sends
            // it, later on a busy machine).
            let sink = try UDPSink()
            defer { sink.close() }
            b.transport.setPeers([UDPAddress(host: "127.0.0.1", port: sink.port)!])
            let idle = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: b)
            #expect(try pump([idle], seconds: 30) { sink.received() })
            Self.peer(a, b)
            let delegate = EngineDelegate()
            let app = try Application(manifest: try manifest(), delegate: delegate, continuity: a)
            // A's attach solicits; B answers with a presence beacon; A verifies it.
            #expect(try pump([app, idle]) { Self.row(a, b)?.online == true })
            #expect(b.discovery.answers >= 1)
            #expect(a.discovery.verifications >= 1)
            let online = try #require(Self.row(a, b))
            #expect(online.name == "B idle" && online.role == .full && online.lastSeen <= wallMilliseconds())
            #expect(a.status.remotes.first?.verified == true)
            // Never an activity: a presence offers nothing.
            #expect(delegate.events.isEmpty)
            // Written next to the account at its first verification.
            #expect(try pump([app]) { file.load().records[online.id]?.name == "B idle" })

            // B stops cleanly: its last beacon says it leaves; A shows it
            // offline at once, with when it was last seen.
            b.detach()
            #expect(try pump([app]) { Self.row(a, b)?.online == false })
            let offline = try #require(Self.row(a, b))
            #expect(offline.lastSeen >= online.lastSeen && a.status.remotes.isEmpty)
            // Written by the receive thread just after the table changed.
            #expect(try pump([app]) { file.load().records[online.id]?.lastSeen == offline.lastSeen })
            a.detach()
            // Another engine on that account directory lists B offline at once.
            let again = try Self.engine(name: "A again", roster: file)
            #expect(again.status.roster.map(\.id) == [online.id] && again.status.roster.first?.online == false)
            again.detach()
        }
    }

    /// A device that goes silent (crash, network gone) is offline after
    /// the presence lifetime, swept by A's scheduler without a poll.
    @Test func aSilentDeviceGoesOfflineAfterThePresenceLifetime() throws {
        let a = try Self.engine(name: "A", presenceLifetime: 1)
        let b = try Self.engine(name: "B")
        Self.peer(a, b)
        let idle = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: b)
        let app = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: a)
        #expect(try pump([app, idle]) { Self.row(a, b)?.online == true })
        b.transport.stop()  // silent: no leaving beacon reaches A
        #expect(try pump([app], seconds: 6) { Self.row(a, b)?.online == false })
        #expect(a.status.remotes.isEmpty && Self.row(a, b) != nil)
        b.detach()
        a.detach()
    }

    /// A device that offers something answers with its advert, not a
    /// presence; what it offers is withdrawn after 12 s unheard while the
    /// device stays known (online) for the presence lifetime.
    @Test func anActivityLivesTheRemoteLifetimeTheDeviceThePresenceLifetime() throws {
        var table = RemoteTable()
        let advert = Beacon(kind: .advert, timestamp: 1, sequence: 1, deviceID: Array(repeating: 1, count: 16), deviceName: "d",
                            role: .full, channelPort: 9,
                            activity: BeaconActivity(activityID: Array(0..<16), activityType: "com.example.app.edit",
                                                     teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app"))
        let id = hex(advert.deviceID)
        let channel = try #require(table.apply(advert, from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0).verify)
        #expect(table.verified(id, at: channel, true).count == 1)
        #expect(table.nextSweep(lifetime: 12, presenceLifetime: 150, now: 0, wallMilliseconds: 0)! < 12.1)
        var swept = table.sweep(now: 12.5, lifetime: 12, presenceLifetime: 150, wallMilliseconds: 0)
        #expect(swept.changes.count == 1 && swept.gone.isEmpty && table.entries[id]?.verified == true)
        #expect(table.nextSweep(lifetime: 12, presenceLifetime: 150, now: 12.5, wallMilliseconds: 0)! > 149)
        swept = table.sweep(now: 150.5, lifetime: 12, presenceLifetime: 150, wallMilliseconds: 0)
        #expect(swept.changes.isEmpty && swept.gone.keys.contains(id) && table.entries.isEmpty)

        // A presence from an unknown device asks for its verification;
        // a leaving one forgets it at once.
        let presence = Beacon(kind: .presence, timestamp: 1, sequence: 2, deviceID: Array(repeating: 2, count: 16),
                              deviceName: "p", role: .sendOnly, channelPort: 10, activity: nil)
        let applied = table.apply(presence, from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0)
        #expect(applied.changes.isEmpty && applied.verify == SocketAddress(host: "127.0.0.1", port: 10))
        let left = table.left(hex(presence.deviceID)), again = table.left(hex(presence.deviceID))
        #expect(left.entry != nil && again.entry == nil && table.entries.isEmpty)
    }
}

/// A UDP socket on loopback that only counts what reaches it.
final class UDPSink {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw HandoffError(.io, "no UDP socket on loopback") }
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Whether a datagram has arrived (it is taken).
    func received() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) >= 0
    }

    func close() { _ = Glibc.close(fd) }
}
