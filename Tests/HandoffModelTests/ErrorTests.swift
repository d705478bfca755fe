// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffModel

@Suite struct ErrorTests {
    @Test func appleCodesKeepAppleNumbers() {
        #expect(HandoffError.Code.handoffFailed.rawValue == 4608)
        #expect(HandoffError.Code.connectionUnavailable.rawValue == 4609)
        #expect(HandoffError.Code.remoteApplicationTimedOut.rawValue == 4610)
        #expect(HandoffError.Code.userInfoTooLarge.rawValue == 4611)
        #expect(HandoffError(.userInfoTooLarge, "x").isUserActivityError)
        #expect(!HandoffError(.invalidValue, "x").isUserActivityError)
    }

    @Test func everyCodeHasANameAndSummary() {
        let codes: [HandoffError.Code] = [.invalidArgument, .invalidValue, .typeMismatch, .notFound, .malformedData, .io,
                                          .missingRequiredKey, .invalidState, .wrongThread, .timedOut, .permission, .handoffFailed,
                                          .connectionUnavailable, .remoteApplicationTimedOut, .userInfoTooLarge]
        for code in codes {
            #expect(code.name != "HANDOFF_E_UNKNOWN")
            #expect(code.summary.description != "unknown status")
        }
        #expect(HandoffError.Code(rawValue: 999).name == "HANDOFF_E_UNKNOWN")
    }
}
