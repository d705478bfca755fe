// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// docs/PROTOCOL.md §9's test vectors, read from the document and
/// recomputed by both state machines with the fixed keys and nonces.
@Suite struct PairingVectorTests {
    let doc = ProtocolVectorTests()

    func value(_ name: String) throws -> [UInt8] {
        try #require(doc.decodeHex(try doc.row(name, in: try doc.section(9))), "\(name) is not hex")
    }

    static func machines() -> (PairingSponsorMachine, PairingJoinerMachine) {
        let run = { (start: Int, n: Int) in (start..<start + n).map { UInt8($0) } }
        let sponsor = PairingSponsorMachine(
            sessionID: run(0xc0, 16), accountKey: AccountFixtures.sequentialKey, deviceName: "laptop",
            keyPair: X25519KeyPair.fromPrivateKey(run(0x00, 32))!, nonce: run(0xa0, 16), keyNonce: run(0xd0, 12))
        let joiner = PairingJoinerMachine(
            sessionID: run(0xc0, 16), deviceName: "desktop",
            keyPair: X25519KeyPair.fromPrivateKey(run(0x20, 32))!, nonce: run(0xb0, 16), acceptNonce: run(0xe0, 12),
            doneNonce: run(0xf0, 12))
        return (sponsor, joiner)
    }

    @Test func documentedRunReproduced() throws {
        var (sponsor, joiner) = Self.machines()
        let commit = sponsor.start()
        #expect(commit.encoded() == (try value("COMMIT frame")))
        let share = try joiner.receive(commit)
        #expect(share.send.map { $0.encoded() } == [try value("SHARE frame")])
        let reveal = try sponsor.receive(share.send[0])
        #expect(reveal.send.map { $0.encoded() } == [try value("REVEAL frame")])
        let shown = try joiner.receive(reveal.send[0])
        let sas = try #require(ComparisonCode(digits: String(decoding: try doc.row("SAS", in: try doc.section(9)).utf8, as: UTF8.self)))
        #expect(reveal.code == sas)
        #expect(shown.code == sas)
        #expect(sas.description == "509 120")

        let accept = try joiner.answer(true)
        #expect(accept.send.map(\.payload) == [try value("ACCEPT payload")])
        #expect(try sponsor.receive(accept.send[0]) == PairingStep())  // its person has not answered yet
        let key = try sponsor.answer(true)
        #expect(key.send.map(\.payload) == [try value("KEY payload")])
        let store = try joiner.receive(key.send[0])
        #expect(store.storeKey == AccountFixtures.sequentialKey)
        let done = joiner.keyStored()
        #expect(done.paired == "laptop")
        #expect(try sponsor.receive(done.send[0]).paired == "desktop")
    }

    @Test func derivationsMatchTheDocument() throws {
        let run = { (start: Int, n: Int) in (start..<start + n).map { UInt8($0) } }
        let s = X25519KeyPair.fromPrivateKey(run(0, 32))!, j = X25519KeyPair.fromPrivateKey(run(0x20, 32))!
        #expect(s.publicKey == (try value("pkS")))
        #expect(j.publicKey == (try value("pkJ")))
        #expect(PairingCrypto.commitment(publicKey: s.publicKey, nonce: run(0xa0, 16)) == (try value("commitment C")))
        let z = try #require(s.sharedSecret(with: j.publicKey))
        #expect(z == (try value("Z")))
        #expect(j.sharedSecret(with: s.publicKey) == z)
        let keys = PairingCrypto.keys(sharedSecret: z, transcript: try value("TH"))
        #expect(keys.sponsorToJoiner == (try value("kSJ")))
        #expect(keys.joinerToSponsor == (try value("kJS")))
    }
}
