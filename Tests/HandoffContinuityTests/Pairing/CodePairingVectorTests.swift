// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// docs/PROTOCOL.md §9's one-time-code vectors, read from the document and
/// recomputed by both state machines with the fixed code, scalars and
/// nonces.
@Suite struct CodePairingVectorTests {
    let doc = ProtocolVectorTests()

    func value(_ name: String) throws -> [UInt8] {
        try #require(doc.decodeHex(try doc.row(name, in: try doc.section(9))), "\(name) is not hex")
    }

    static let code = try! OneTimeCode(typed: "4711-0828")
    /// SPAKE2's x and y: RFC 9382's first vector's.
    static let x = SPAKE2Tests.hex("43dd0fd7215bdcb482879fca3220c6a968e66d70b1356cac18bb26c84a78d729")
    static let y = SPAKE2Tests.hex("dcb60106f276b02606d8ef0a328c02e4b629f84f89786af5befb0bc75b6e66be")

    /// Both machines as the document's run fixes them.
    static func machines() -> (PairingSponsorMachine, PairingJoinerMachine) {
        let run = { (start: Int, n: Int) in (start..<start + n).map { UInt8($0) } }
        let sponsor = PairingSponsorMachine(sessionID: run(0xc0, 16), accountKey: AccountFixtures.sequentialKey,
                                            deviceName: "laptop", method: .code(code), keyNonce: run(0xd0, 12), spakeSecret: x)
        let joiner = PairingJoinerMachine(sessionID: run(0xc0, 16), deviceName: "desktop", method: .code(code),
                                          acceptNonce: run(0xe0, 12), spakeSecret: y)
        return (sponsor, joiner)
    }

    @Test func documentedRunReproduced() throws {
        let code = Self.code
        var (sponsor, joiner) = Self.machines()
        #expect(P256().bytes(P256().scalar(reducing: code.password)) == (try value("code w")))
        let start = sponsor.start()
        #expect(start.encoded() == (try value("CODE_START frame")))
        let share = try joiner.receive(start)
        #expect(share.send.map { $0.encoded() } == [try value("CODE_SHARE frame")])
        let confirm = try sponsor.receive(share.send[0])
        #expect(confirm.send.map { $0.encoded() } == [try value("CODE_CONFIRM frame")])
        let accept = try joiner.receive(confirm.send[0])
        #expect(accept.send.map(\.payload) == [try value("code ACCEPT payload")])
        let key = try sponsor.receive(accept.send[0])
        #expect(key.send.map(\.payload) == [try value("code KEY payload")])
        #expect(try joiner.receive(key.send[0]).storeKey == AccountFixtures.sequentialKey)
        #expect(try sponsor.receive(joiner.keyStored().send[0]).paired == "desktop")
    }
}
