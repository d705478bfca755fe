// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

@Suite struct UserActivityTests {
    // The forms apps declare in NSUserActivityTypes: reverse-DNS types,
    // intent class names, short names (docs/PROTOCOL.md §3).
    @Test(arguments: ["com.example.app.edit", "a.b", "org.x-y.z_1", "INSendMessageIntent", "OrderSoupIntent",
                      "ReadArticle", "nodots", "com..x", "com.ex ample", "com.exämple.x", String(repeating: "a", count: 255)])
    func declarableTypesAreAccepted(type: String) throws {
        #expect(try UserActivity(activityType: type).activityType == type)
    }

    @Test(arguments: ["", "tab\there", "nul\u{0}", "del\u{7F}", "line\nbreak", String(repeating: "a", count: 256),
                      String(repeating: "é", count: 128)])
    func otherTypesAreRefused(type: String) {
        do {
            _ = try UserActivity(activityType: type)
            Issue.record("accepted \(type)")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("1 to 255 bytes without control characters"))
        }
    }

    @Test func defaultsMatchApple() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        #expect(a.isEligibleForHandoff)
        #expect(!a.isEligibleForSearch && !a.isEligibleForPublicIndexing && !a.isEligibleForPrediction)
        #expect(!a.needsSave && !a.supportsContinuationStreams)
        #expect(a.title == nil && a.userInfo.isEmpty && a.webpageURL == nil && a.expirationDate == nil)
    }

    @Test func idsAreUnique() throws {
        let ids = try (0..<100).map { _ in try UserActivity(activityType: "com.example.a").activityID }
        #expect(Set(ids).count == 100)
    }

    @Test func addUserInfoEntriesMerges() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        try a.setUserInfo(["keep": .integer(1), "replace": .string("old")])
        try a.addUserInfoEntries(["replace": .string("new"), "add": .boolean(true)])
        #expect(a.userInfo == ["keep": .integer(1), "replace": .string("new"), "add": .boolean(true)])
    }

    @Test func refusedUserInfoChangesNothing() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        try a.setUserInfo(["keep": .integer(1)])
        #expect(throws: HandoffError.self) { try a.setUserInfo(["$class": .null]) }
        #expect(throws: HandoffError.self) { try a.addUserInfoEntries(["x": nested(depth: 40)]) }
        #expect(a.userInfo == ["keep": .integer(1)])
    }

    @Test(arguments: ["ftp://example.com/x", "mailto:a@example.com", "file:///etc/passwd", "https:no-host"])
    func webpageURLMustBeHTTP(url: String) throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        try a.setWebpageURL(URLReference(string: "https://example.com/ok")!)
        #expect(throws: HandoffError.self) { try a.setWebpageURL(URLReference(string: url)!) }
        #expect(throws: HandoffError.self) { try a.setReferrerURL(URLReference(string: url)!) }
        #expect(a.webpageURL?.absoluteString == "https://example.com/ok")
    }

    @Test func expiration() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        #expect(!a.isExpired())
        try a.setExpirationDate(Timestamp(timeIntervalSinceNow: -1))
        #expect(a.isExpired())
        try a.setExpirationDate(Timestamp(timeIntervalSinceNow: 3600))
        #expect(!a.isExpired())
        #expect(throws: HandoffError.self) { try a.setExpirationDate(Timestamp(timeIntervalSinceReferenceDate: .infinity)) }
    }

    @Test func missingRequiredKeys() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        a.requiredUserInfoKeys = ["b", "a", "c"]
        try a.setUserInfo(["b": .integer(1)])
        #expect(a.missingRequiredKeys == ["a", "c"])
    }

    @Test func concurrentWritersDoNotTear() async throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<500 {
                        try? a.addUserInfoEntries(["k\(t)": .integer(Int64(i))])
                        a.title = "t\(t)-\(i)"
                    }
                }
            }
        }
        #expect(a.userInfo.count == 8)
        #expect(a.userInfo["k3"] == .integer(499))
    }
}
