// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The admission thread's `Reactor`, counted (docs/agent.md §8): no turn
/// while nothing is pending, one timer at the earliest handshake deadline
/// (not a turn per pending connection per second), and a listener left
/// alone while no connection could be taken from the backlog (it stays
/// readable: watched, the loop would turn without end).
@Suite struct ChannelAdmissionLoopTests {
    @Test func anIdleServerDoesNotTurnAndASilentPeerCostsAFewTurns() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 3, firstBytes: 0.3)) { _ in }
        defer { server.stop() }
        usleep(200_000)  // an observation window, not a synchronisation
        #expect(server.loopCounts.waits == 0, "\(server.loopCounts)")
        let fd = ChannelTest.rawConnect(server.port)
        defer { close(fd) }
        #expect(ChannelTest.peerCloses(fd, within: 20))  // dropped at its first-bytes deadline
        #expect(ChannelTest.eventually { server.counts.pending == 0 })
        usleep(400_000)
        let counts = server.loopCounts
        // The accept, the deadline's timer, perhaps the peer's FIN: then asleep.
        #expect(counts.waits <= 4, "\(counts)")
        #expect(counts.timerFires == 1, "\(counts)")
    }

    @Test func withoutRoomTheListenerIsLeftAloneWhileTheNewcomerWaits() throws {
        let release = OneShot<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 20, maxConnections: 1)) { connection in
            _ = release.wait(seconds: 60)  // busy: never shed
            ChannelTest.echo(connection)
        }
        defer { release.fulfil(true); server.stop() }
        let busy = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key,
                                                 limits: ChannelTest.limits(handshakeTimeout: 20))
        defer { busy.close() }
        #expect(ChannelTest.eventually(20) { server.counts.active == 1 })
        // A newcomer's connection completes in the kernel's backlog.
        let newcomer = ChannelTest.rawConnect(server.port)
        defer { close(newcomer) }
        ChannelTest.rawSend(newcomer, [0x16, 0x03, 0x01, 0x00, 0x05])
        let before = server.loopCounts
        usleep(300_000)  // an observation window, not a synchronisation
        let after = server.loopCounts
        #expect(server.counts.pending == 0)  // still in the backlog
        #expect(after.waits - before.waits <= 1, "\(before) → \(after)")
    }
}
