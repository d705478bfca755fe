// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The admission thread sleeps with no time limit while every
/// authenticated connection is taken and busy (docs/agent.md §8): the
/// connection that becomes idle wakes it, and the newcomer waiting in the
/// backlog then takes that connection's place.
@Suite struct ChannelServerWakeTests {
    @Test func aBusyConnectionBecomingIdleLetsTheWaitingNewcomerIn() throws {
        let release = OneShot<Bool>()
        let started = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 20, maxConnections: 1)) { connection in
            started.append(true)
            if started.count == 1 {
                _ = release.wait(seconds: 60)  // busy until released, then idle for a minute
                connection.markIdle()
                _ = try? connection.receive(timeout: 60)
                return
            }
            connection.markIdle()
            ChannelTest.echo(connection)
        }
        defer { release.fulfil(true); server.stop() }
        let first = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key,
                                                  limits: ChannelTest.limits(handshakeTimeout: 20))
        defer { first.close() }
        #expect(ChannelTest.eventually(20) { started.count == 1 })
        // The newcomer waits in the backlog: the one slot is busy.
        let newcomer = ChannelTest.onThread { () -> HandoffError.Code? in
            ChannelTest.failure { () throws(HandoffError) in
                let c = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key,
                                                      limits: ChannelTest.limits(handshakeTimeout: 20))
                try c.send(Frame(type: 1, payload: [1]), timeout: 5)
                _ = try c.receive(timeout: 10)
                c.close()
            }?.code
        }
        #expect(newcomer.wait(seconds: 1) == nil)  // still waiting (a count of replies: none yet)
        #expect(started.count == 1)
        release.fulfil(true)  // the first becomes idle (and would stay a minute)
        #expect(newcomer.wait(seconds: 20) == .some(nil))
        #expect(started.count == 2)
    }
}
