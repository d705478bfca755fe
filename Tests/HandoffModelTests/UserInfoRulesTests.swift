// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

@Suite struct UserInfoRulesTests {
    @Test func everyAllowedTypeIsAccepted() throws {
        try UserInfoRules.check(everyType)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        // The userInfo dictionary is level 1; 15 arrays inside make 16.
        try UserInfoRules.check(["deep": nested(depth: UserInfoRules.maxDepth - 1)])
    }

    @Test func nestingBeyondTheLimitIsRefused() {
        #expect(throws: HandoffError.self) {
            try UserInfoRules.check(["deep": nested(depth: UserInfoRules.maxDepth)])
        }
    }

    @Test func reservedClassKeyIsRefusedAtAnyLevel() {
        let top: UserInfo = ["$class": .string("NSNull")]
        let inner: UserInfo = ["a": .array([.dictionary(["$class": .integer(1)])])]
        for info in [top, inner] {
            do {
                try UserInfoRules.check(info)
                Issue.record("accepted \(info)")
            } catch {
                #expect(error.code == .invalidValue)
                #expect(error.message.contains("$class"))
            }
        }
    }

    @Test func nonFiniteDateIsRefused() {
        #expect(throws: HandoffError.self) {
            try UserInfoRules.check(["d": .date(Timestamp(timeIntervalSinceReferenceDate: .nan))])
        }
    }

    @Test func relativeURLIsRefused() {
        #expect(throws: HandoffError.self) {
            try UserInfoRules.check(["u": .url(URLReference(string: "just/a/path")!)])
        }
    }

    @Test func errorMessagesNameThePath() {
        do {
            try UserInfoRules.check(["outer": .array([.dictionary(["$class": .null])])])
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("userInfo[\"outer\"][0]"))
        }
    }
}
