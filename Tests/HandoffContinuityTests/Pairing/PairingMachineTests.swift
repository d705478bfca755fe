// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The two pairing state machines against each other and against a man in
/// the middle, with fresh random keys: what each side refuses, and that
/// nothing is handed over unless both people accept.
@Suite struct PairingMachineTests {
    static let session = Crypto.randomBytes(16)
    static let account = AccountKey.generate()

    static func pair() -> (PairingSponsorMachine, PairingJoinerMachine) {
        (PairingSponsorMachine(sessionID: session, accountKey: account, deviceName: "laptop"),
         PairingJoinerMachine(sessionID: session, deviceName: "desktop"))
    }

    /// Runs both machines to the comparison; returns the codes.
    static func toComparison(_ s: inout PairingSponsorMachine, _ j: inout PairingJoinerMachine) throws -> (ComparisonCode, ComparisonCode) {
        let share = try j.receive(s.start())
        let reveal = try s.receive(share.send[0])
        let shown = try j.receive(reveal.send[0])
        return (try #require(reveal.code), try #require(shown.code))
    }

    @Test func bothAcceptInEitherOrder() throws {
        for sponsorFirst in [true, false] {
            var (s, j) = Self.pair()
            let (a, b) = try Self.toComparison(&s, &j)
            #expect(a == b)
            #expect(s.attemptBegun && j.attemptBegun)
            var key: PairingStep
            if sponsorFirst {
                #expect(try s.answer(true).send.isEmpty, "no key before the joiner accepted")
                key = try s.receive(try j.answer(true).send[0])
            } else {
                #expect(try s.receive(try j.answer(true).send[0]).send.isEmpty)
                key = try s.answer(true)
            }
            #expect(try j.receive(key.send[0]).storeKey == Self.account)
            #expect(try s.receive(j.keyStored().send[0]).paired == "desktop")
        }
    }

    @Test func sponsorRejectsSoNoKeyTravels() throws {
        var (s, j) = Self.pair()
        _ = try Self.toComparison(&s, &j)
        _ = try j.answer(true)
        #expect(throws: HandoffError.self) { try s.answer(false) }
        #expect(!s.peerEnded, "the sponsor owes the joiner a REJECT")
        let error = #expect(throws: HandoffError.self) { try j.receive(PairingMessage.reject.frame) }
        #expect(error?.code == .handoffFailed)
        #expect(j.peerEnded)
    }

    @Test func joinerRejectsSoSponsorFails() throws {
        var (s, j) = Self.pair()
        _ = try Self.toComparison(&s, &j)
        _ = try s.answer(true)
        #expect(throws: HandoffError.self) { try j.answer(false) }
        #expect(throws: HandoffError.self) { try s.receive(PairingMessage.reject.frame) }
        #expect(s.peerEnded)
    }

    @Test func wrongCommitmentIsRefused() throws {
        var (s, j) = Self.pair()
        _ = try j.receive(s.start())
        // A reveal of another key than the one committed to.
        let other = X25519KeyPair.generate()
        let reveal = PairingMessage.reveal(publicKey: other.publicKey, nonce: Crypto.randomBytes(16)).frame
        let error = #expect(throws: HandoffError.self) { try j.receive(reveal) }
        #expect(error?.code == .handoffFailed)
        #expect(j.attemptBegun, "a failed reveal still used up the joiner's attempt")
        #expect(throws: HandoffError.self) { try j.answer(true) }
    }

    @Test func commitForAnotherSessionIsRefused() throws {
        var (s, _) = Self.pair()
        var j = PairingJoinerMachine(sessionID: Crypto.randomBytes(16), deviceName: "desktop")
        let commit = s.start()
        #expect(!j.isCommitForUs(commit))
        #expect(throws: HandoffError.self) { try j.receive(commit) }
        #expect(!j.attemptBegun)
    }

    /// M relays between S and J with keys of its own: the two codes differ
    /// (with probability 1 - 10⁻⁶), and M's forged acceptance cannot make
    /// the joiner take a key it did not receive from S.
    @Test func manInTheMiddleSeesDifferentCodes() throws {
        var mismatches = 0
        for _ in 0..<20 {
            var (s, j) = Self.pair()
            var mToJ = PairingSponsorMachine(sessionID: Self.session, accountKey: AccountKey.generate(), deviceName: "mallory")
            var mToS = PairingJoinerMachine(sessionID: Self.session, deviceName: "mallory")
            let share = try mToS.receive(s.start())
            let reveal = try s.receive(share.send[0])
            let codeS = try #require(reveal.code)
            let codeMS = try #require(try mToS.receive(reveal.send[0]).code)
            let jShare = try j.receive(mToJ.start())
            let mReveal = try mToJ.receive(jShare.send[0])
            let codeJ = try #require(try j.receive(mReveal.send[0]).code)
            #expect(codeS == codeMS)
            if codeS != codeJ { mismatches += 1 }
            // S accepts M's ACCEPT (that leg is M's) and sends KEY sealed for
            // M; forwarded to J, it does not open: J stores nothing.
            _ = try j.answer(true)
            #expect(try s.receive(try mToS.answer(true).send[0]).send.isEmpty)
            let key = try #require(try s.answer(true).send.first)
            let error = #expect(throws: HandoffError.self) { try j.receive(key) }
            #expect(error?.code == .handoffFailed)
        }
        #expect(mismatches >= 19)
    }

    @Test func keyBeforeAcceptanceAndDuplicatesAreRefused() throws {
        var (s, j) = Self.pair()
        _ = try Self.toComparison(&s, &j)
        _ = try j.answer(true)
        // A second COMMIT, a second SHARE: out of order, refused.
        var s2 = s
        #expect(throws: HandoffError.self) { try s2.receive(PairingMessage.share(publicKey: Crypto.randomBytes(32), nonce: Crypto.randomBytes(16)).frame) }
        var j2 = j
        #expect(throws: HandoffError.self) { try j2.receive(PairingMessage.commit(sessionID: Self.session, commitment: Crypto.randomBytes(32)).frame) }
    }

    @Test func truncatedAndOversizedMessagesAreRefused() throws {
        let frames = [
            PairingMessage.commit(sessionID: Self.session, commitment: Crypto.randomBytes(32)).frame,
            PairingMessage.share(publicKey: Crypto.randomBytes(32), nonce: Crypto.randomBytes(16)).frame,
            PairingMessage.reveal(publicKey: Crypto.randomBytes(32), nonce: Crypto.randomBytes(16)).frame,
            PairingMessage.accept(sealed: Crypto.randomBytes(40)).frame,
            PairingMessage.key(sealed: Crypto.randomBytes(70)).frame,
            PairingMessage.done(sealed: Crypto.randomBytes(36)).frame,
            PairingMessage.reject.frame,
        ]
        for frame in frames {
            #expect(try PairingMessage(frame).frame == frame)
            let lengths = try #require(PairingMessage.allowedLengths(type: frame.type))
            #expect(lengths.upperBound <= PairingLimits.maxFrameSize)
            if !frame.payload.isEmpty {
                let short = Frame(type: frame.type, payload: Array(frame.payload.dropLast(lengths.count == 1 ? 1 : frame.payload.count)))
                #expect(throws: HandoffError.self) { try PairingMessage(short) }
            }
            let long = Frame(type: frame.type, payload: frame.payload + [UInt8](repeating: 0, count: 100))
            #expect(throws: HandoffError.self) { try PairingMessage(long) }
        }
        #expect(throws: HandoffError.self) { try PairingMessage(Frame(type: 0x20, payload: [])) }
        var commit = frames[0]
        commit.payload[0] = 2
        #expect(throws: HandoffError.self) { try PairingMessage(commit) }
    }

    @Test func lowOrderPublicKeyIsRefused() throws {
        var (s, _) = Self.pair()
        _ = s.start()
        let zero = PairingMessage.share(publicKey: [UInt8](repeating: 0, count: 32), nonce: Crypto.randomBytes(16)).frame
        #expect(throws: HandoffError.self) { try s.receive(zero) }
    }

    @Test func beaconRoundTripAndRefusals() throws {
        let beacon = PairingBeacon(port: 40000, sessionID: Self.session)
        let bytes = beacon.encoded()
        #expect(bytes.count == 96)
        #expect((bytes.count - 28) % 64 != 0, "a discovery receiver must drop it by size")
        #expect(PairingBeacon.parse(bytes) == beacon)
        var padded = bytes
        padded[95] = 1
        #expect(PairingBeacon.parse(padded) == nil)
        #expect(PairingBeacon.parse(Array(bytes.dropLast())) == nil)
        var zeroPort = bytes
        zeroPort[10] = 0
        zeroPort[11] = 0
        #expect(PairingBeacon.parse(zeroPort) == nil)
        #expect(BeaconCodec.open(bytes, key: Array(0..<32)) == nil)
    }

    @Test func codesReadAndShow() {
        #expect(ComparisonCode(value: 42)?.description == "000 042")
        #expect(ComparisonCode(digits: "000 042")?.value == 42)
        #expect(ComparisonCode(digits: "12345") == nil)
        #expect(ComparisonCode(digits: "1234567") == nil)
        #expect(ComparisonCode(digits: "12a456") == nil)
        #expect(ComparisonCode(value: 1_000_000) == nil)
    }
}
