// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The pairing machines run by a one-time code (SPAKE2): the key travels
/// when both hold the same code and never otherwise, each side's attempt
/// is spent by one share, and neither machine mixes the two methods.
@Suite struct CodePairingMachineTests {
    static let session = Crypto.randomBytes(16)
    static let account = AccountKey.generate()

    static func sponsor(_ code: OneTimeCode) -> PairingSponsorMachine {
        PairingSponsorMachine(sessionID: session, accountKey: account, deviceName: "laptop", method: .code(code))
    }

    static func joiner(_ code: OneTimeCode) -> PairingJoinerMachine {
        PairingJoinerMachine(sessionID: session, deviceName: "headless", method: .code(code))
    }

    @Test func theSameCodeHandsTheKeyOverWithoutAskingAnyone() throws {
        let code = OneTimeCode.generate()
        var s = Self.sponsor(code), j = Self.joiner(code)
        let start = s.start()
        #expect(start.type == PairingMessage.codeStartType && start.length == 83)
        #expect(j.isCommitForUs(start))
        let share = try j.receive(start)
        #expect(share.send.map(\.length) == [98])
        #expect(j.attemptBegun)
        let confirm = try s.receive(share.send[0])
        #expect(confirm.code == nil, "nothing to compare")
        #expect(confirm.send.map(\.length) == [33])
        let accept = try j.receive(confirm.send[0])
        #expect(accept.send.map(\.type) == [PairingMessage.acceptType], "the joiner accepts by itself")
        let key = try s.receive(accept.send[0])
        #expect(key.send.map(\.type) == [PairingMessage.keyType])
        #expect(try j.receive(key.send[0]).storeKey == Self.account)
        #expect(try s.receive(j.keyStored().send[0]).paired == "headless")
    }

    /// A joiner holding another code (or an attacker guessing) shares, and
    /// the sponsor refuses before anything secret travels; the joiner is
    /// told by REJECT.
    @Test func aWrongCodeIsRefusedByTheSponsor() throws {
        var s = Self.sponsor(OneTimeCode.generate()), j = Self.joiner(OneTimeCode.generate())
        let share = try j.receive(s.start())
        let error = #expect(throws: HandoffError.self) { try s.receive(share.send[0]) }
        #expect(error?.code == .handoffFailed)
        #expect(error?.message.contains("does not hold this code") == true)
        #expect(!s.peerEnded)
        #expect(throws: HandoffError.self) { try s.receive(share.send[0]) }
        #expect(throws: HandoffError.self) { try j.receive(PairingMessage.reject.frame) }
        #expect(j.peerEnded)
    }

    /// An attacker posing as the sponsor with a guessed code gets the
    /// joiner's share (its one guess) but cannot produce cA: no ACCEPT.
    @Test func aSponsorWithoutTheCodeGetsNoAcceptance() throws {
        let code = OneTimeCode.generate()
        var attacker = Self.sponsor(OneTimeCode.generate()), j = Self.joiner(code)
        let share = try j.receive(attacker.start())
        #expect(throws: HandoffError.self) { try attacker.receive(share.send[0]) }
        // Its best forgery: any 32 bytes.
        let error = #expect(throws: HandoffError.self) {
            try j.receive(PairingMessage.codeConfirm(confirmation: Crypto.randomBytes(32)).frame)
        }
        #expect(error?.code == .handoffFailed)
        #expect(throws: HandoffError.self) { try j.receive(PairingMessage.key(sealed: Crypto.randomBytes(60)).frame) }
    }

    @Test func theMethodsDoNotMix() throws {
        let code = OneTimeCode.generate()
        var comparisonSponsor = PairingSponsorMachine(sessionID: Self.session, accountKey: Self.account, deviceName: "laptop")
        var codeSponsor = Self.sponsor(code)
        let codeJoiner = Self.joiner(code)
        let comparisonJoiner = PairingJoinerMachine(sessionID: Self.session, deviceName: "desktop")
        #expect(!codeJoiner.isCommitForUs(comparisonSponsor.start()))
        #expect(!comparisonJoiner.isCommitForUs(codeSponsor.start()))
        // A comparison SHARE sent to a code sponsor is unexpected, not a key.
        var other = PairingJoinerMachine(sessionID: Self.session, deviceName: "x")
        var another = PairingSponsorMachine(sessionID: Self.session, accountKey: Self.account, deviceName: "y")
        let share = try other.receive(another.start())
        #expect(throws: HandoffError.self) { try codeSponsor.receive(share.send[0]) }
        var asked = Self.sponsor(code)
        #expect(throws: HandoffError.self) { try asked.answer(true) }
    }

    @Test func aCodeStartWhoseShareIsNoPointIsNotOurs() {
        let code = OneTimeCode.generate()
        var s = Self.sponsor(code)
        var start = s.start().payload
        start[start.count - 1] ^= 1
        #expect(!Self.joiner(code).isCommitForUs(Frame(type: PairingMessage.codeStartType, payload: start)))
        var other = start
        other[1] ^= 1  // another session
        #expect(!Self.joiner(code).isCommitForUs(Frame(type: PairingMessage.codeStartType, payload: other)))
    }

    @Test func codeMessagesHaveExactSizes() {
        for type in [PairingMessage.codeStartType, PairingMessage.codeShareType, PairingMessage.codeConfirmType] {
            let lengths = PairingMessage.allowedLengths(type: type)!
            #expect(lengths.count == 1)
            let tooShort = Frame(type: type, payload: [UInt8](repeating: 1, count: lengths.lowerBound - 2))
            #expect(throws: HandoffError.self) { try PairingMessage(tooShort) }
        }
    }
}
