// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The channel agrees on the protocol revision during the handshake
/// (ALPN, docs/PROTOCOL.md §10): the highest both ends speak, revision 1
/// with an end that announces none, and no connection when the two
/// ranges do not meet.
@Suite struct ChannelRevisionTests {
    func agreed(client: ClosedRange<Int>, server: ClosedRange<Int>) throws(HandoffError) -> (client: Int, server: Int?) {
        let seen = ChannelRecorder<Int>()
        let listener = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, revisions: server) { c in
            seen.append(c.revision)
        }
        defer { listener.stop() }
        let connection = try ChannelConnection.connect(to: SocketAddress(host: "127.0.0.1", port: listener.port), psk: ChannelTest.key,
                                                       limits: ChannelLimits(), identity: TLSContext.randomIdentity(),
                                                       revisions: client)
        defer { connection.close() }
        let end = monotonicSeconds() + 5
        while seen.count == 0 && monotonicSeconds() < end { usleep(2_000) }
        return (connection.revision, seen.all.first)
    }

    @Test func twoDevicesOfThisReleaseAgreeOnTheCurrentRevision() throws {
        let r = try agreed(client: ProtocolRevision.spoken, server: ProtocolRevision.spoken)
        #expect(r.client == ProtocolRevision.current && r.server == ProtocolRevision.current)
    }

    @Test(arguments: [(1...1, 1...2, 1), (1...2, 1...1, 1), (1...5, 1...2, 2), (1...2, 2...7, 2), (2...2, 1...2, 2)]
          as [(ClosedRange<Int>, ClosedRange<Int>, Int)])
    func theHighestBothSpeakIsChosen(client: ClosedRange<Int>, server: ClosedRange<Int>, expected: Int) throws {
        let r = try agreed(client: client, server: server)
        #expect(r.client == expected && r.server == expected)
    }

    /// A client that no longer speaks revision 1 refuses a server that
    /// announces nothing (or nothing it speaks).
    @Test func rangesThatDoNotMeetRefuseTheConnection() throws {
        let error = ChannelTest.failure { () throws(HandoffError) in _ = try agreed(client: 3...4, server: 1...2) }
        #expect(error?.code == .handoffFailed)
        #expect(error?.message.contains("protocol revision") == true, "\(String(describing: error))")
    }

    @Test func alpnIDsParseStrictly() {
        #expect(ProtocolRevision.revision(alpnID: Array("handoff/2".utf8)) == 2)
        #expect(ProtocolRevision.revision(alpnID: Array("handoff/12".utf8)) == 12)
        for bad in ["handoff/", "handoff/02", "handoff/-1", "handoff/1x", "handoff/99999", "h2", "Handoff/1", "handoff1"] {
            #expect(ProtocolRevision.revision(alpnID: Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(ProtocolRevision.alpnOffer(1...2) == [9] + Array("handoff/2".utf8) + [9] + Array("handoff/1".utf8))
        // A list whose length runs past its end, or with an empty id, chooses nothing.
        for bad: [UInt8] in [[10] + Array("handoff/2".utf8), [0], [9] + Array("handoff/2".utf8) + [0]] {
            #expect(bad.withUnsafeBufferPointer { ProtocolRevision.choose(fromOffer: $0) } == nil)
        }
    }

    @Test func agreementIsTheHighestCommonRevision() {
        #expect(ProtocolRevision.agreed(ours: 1...2, theirs: 1...1) == 1)
        #expect(ProtocolRevision.agreed(ours: 1...2, theirs: 1...9) == 2)
        #expect(ProtocolRevision.agreed(ours: 1...2, theirs: 3...9) == nil)
        #expect(ProtocolRevision.agreed(ours: 2...3, theirs: 1...1) == nil)
    }
}
