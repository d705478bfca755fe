// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

@Suite struct ActivityCodingTests {
    func fullActivity() throws -> UserActivity {
        let a = try UserActivity(activityType: "com.example.shapes.create-shape")
        a.title = "Circle"
        try a.setUserInfo(everyType)
        a.requiredUserInfoKeys = ["text", "int"]
        a.searchableUserInfoKeys = ["text", "array"]
        try a.setWebpageURL(URLReference(string: "https://example.com/shapes/1")!)
        try a.setReferrerURL(URLReference(string: "http://example.org/from")!)
        a.targetContentIdentifier = "shape-1"
        a.persistentIdentifier = "persist-1"
        try a.setExpirationDate(Timestamp(timeIntervalSince1970: 2_000_000_000))
        a.keywords = ["circle", "shape"]
        a.isEligibleForSearch = true
        a.isEligibleForPrediction = true
        a.supportsContinuationStreams = true
        a.needsSave = true
        return a
    }

    @Test func roundTripKeepsEverythingThatTravels() throws {
        let a = try fullActivity()
        let b = try ActivityCoding.decode(try ActivityCoding.encode(a))
        #expect(b.activityID == a.activityID)
        #expect(b.activityType == a.activityType)
        var expected = a.snapshot
        expected.needsSave = false  // local state, never sent
        #expect(b.snapshot == expected)
    }

    @Test func searchableKeysTravel() throws {
        let b = try ActivityCoding.decode(try ActivityCoding.encode(try fullActivity()))
        #expect(b.searchableUserInfoKeys == ["text", "array"])
    }

    /// A sender from before the history (no `searchableUserInfoKeys`).
    @Test func anOlderSendersPayloadHasNoSearchableKeys() throws {
        let payload = BinaryPropertyList.encode(.dictionary([
            "version": .integer(1), "activityID": .string(ActivityID().uuidString),
            "activityType": .string("com.example.a"), "userInfo": .dictionary(["note": .string("x")]),
            "requiredUserInfoKeys": .array([.string("note")]), "eligibleForSearch": .boolean(true),
        ]))
        let a = try ActivityCoding.decode(payload)
        #expect(a.searchableUserInfoKeys.isEmpty)
        #expect(a.requiredUserInfoKeys == ["note"])
    }

    @Test func missingRequiredKeyIsNotEncoded() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        a.requiredUserInfoKeys = ["shape-type"]
        do {
            _ = try ActivityCoding.encode(a)
            Issue.record("encoded")
        } catch {
            #expect(error.code == .missingRequiredKey)
            #expect(error.message.contains("shape-type"))
        }
    }

    @Test func budgetIsExactly3072Bytes() throws {
        let a = try UserActivity(activityType: "com.example.app.view")
        // Find the largest data value that fits, byte by byte around the edge.
        var n = 3000
        try a.setUserInfo(["blob": .data([UInt8](repeating: 0, count: n))])
        while a.encodedUserInfoSize <= UserInfoRules.payloadBudget {
            n += 1
            try a.setUserInfo(["blob": .data([UInt8](repeating: 0, count: n))])
        }
        #expect(a.encodedUserInfoSize == UserInfoRules.payloadBudget + 1)
        do {
            _ = try ActivityCoding.encode(a)
            Issue.record("encoded an over-budget activity")
        } catch {
            #expect(error.code == .userInfoTooLarge)
            #expect(error.code.rawValue == 4611)
        }
        try a.setUserInfo(["blob": .data([UInt8](repeating: 0, count: n - 1))])
        #expect(a.encodedUserInfoSize == UserInfoRules.payloadBudget)
        _ = try ActivityCoding.encode(a)
    }

    @Test func overBudgetPayloadIsRefusedOnDecodeToo() throws {
        let info = UserInfoCoding.propertyList(["blob": .data([UInt8](repeating: 0, count: 4000))])
        let payload = BinaryPropertyList.encode(.dictionary([
            "version": .integer(1), "activityID": .string(ActivityID().uuidString),
            "activityType": .string("com.example.a"), "userInfo": info,
        ]))
        do {
            _ = try ActivityCoding.decode(payload)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .userInfoTooLarge)
        }
    }

    @Test func hostilePayloadsAreMalformed() throws {
        let id = PropertyListValue.string(ActivityID().uuidString)
        let good: [String: PropertyListValue] = [
            "version": .integer(1), "activityID": id, "activityType": .string("com.example.a"), "userInfo": .dictionary([:]),
        ]
        _ = try ActivityCoding.decode(BinaryPropertyList.encode(.dictionary(good)))

        var cases: [[String: PropertyListValue]] = []
        for key in good.keys { var d = good; d[key] = nil; cases.append(d) }
        func with(_ k: String, _ v: PropertyListValue) -> [String: PropertyListValue] { var d = good; d[k] = v; return d }
        cases += [
            with("version", .integer(2)), with("version", .string("1")),
            with("activityID", .string("not-a-uuid")), with("activityType", .string("")), with("activityType", .string("a\u{1}b")),
            with("userInfo", .array([])), with("title", .integer(5)),
            with("webpageURL", .string("javascript:alert(1)")), with("expirationDate", .date(.nan)),
            with("keywords", .array([.integer(1)])), with("eligibleForHandoff", .string("yes")),
        ]
        for d in cases {
            do {
                _ = try ActivityCoding.decode(BinaryPropertyList.encode(.dictionary(d)))
                Issue.record("accepted \(d)")
            } catch {
                #expect(error.code == .malformedData, "\(error)")
            }
        }
        #expect(throws: HandoffError.self) { try ActivityCoding.decode(BinaryPropertyList.encode(.array([]))) }
    }

    @Test func unknownKeysAreIgnored() throws {
        let payload = BinaryPropertyList.encode(.dictionary([
            "version": .integer(1), "activityID": .string(ActivityID().uuidString),
            "activityType": .string("com.example.a"), "userInfo": .dictionary([:]),
            "someFutureField": .array([.integer(1)]),
        ]))
        #expect(try ActivityCoding.decode(payload).activityType == "com.example.a")
    }

    @Test func everyTruncationIsRejected() throws {
        let bytes = try ActivityCoding.encode(try fullActivity())
        for n in 0..<bytes.count {
            #expect(throws: HandoffError.self) { try ActivityCoding.decode(Array(bytes.prefix(n))) }
        }
    }
}
