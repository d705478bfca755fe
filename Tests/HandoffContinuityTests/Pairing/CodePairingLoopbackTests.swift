// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// One-time-code pairings over loopback with real sockets (the harness of
/// `PairingLoopbackTests`): nobody is asked, the key arrives with the same
/// code, nothing is stored with another.
extension PairingLoopbackTests {
    @Test func theSameCodeOnBothSidesPairs() throws {
        let code = OneTimeCode.generate()
        let outcome = try Self.run(sponsorMethod: .code(code), joinerMethod: .code(code))
        let sponsor = try outcome.sponsor.get(), joiner = try outcome.joiner.get()
        #expect(sponsor.peerName == "joiner box" && joiner.peerName == "sponsor box")
        #expect(sponsor.code == nil && joiner.code == nil && outcome.codes.isEmpty, "nobody was asked to compare")
        #expect(Self.storedAccount(outcome.joinerStore)?.derived.accountID == sponsor.accountID)
    }

    @Test func differentCodesFailBothAndStoreNothing() throws {
        let outcome = try Self.run(sponsorMethod: .code(OneTimeCode.generate()), joinerMethod: .code(OneTimeCode.generate()))
        let sponsorError = #expect(throws: HandoffError.self) { try outcome.sponsor.get() }
        let joinerError = #expect(throws: HandoffError.self) { try outcome.joiner.get() }
        #expect(sponsorError?.code == .handoffFailed && joinerError?.code == .handoffFailed)
        #expect(Self.storedAccount(outcome.joinerStore) == nil)
    }

    /// A comparison sponsor never connects to a code joiner (beacon kinds
    /// differ): the code joiner's window closes with nothing tried.
    @Test func aComparisonSponsorLeavesACodeJoinerAlone() throws {
        let outcome = try Self.run(window: 3, joinerMethod: .code(OneTimeCode.generate()), sponsorSays: { _ in true })
        #expect((try? outcome.sponsor.get()) == nil && (try? outcome.joiner.get()) == nil)
        if case .failure(let error) = outcome.joiner { #expect(error.code == .timedOut) }
        #expect(outcome.codes.isEmpty)
    }
}
