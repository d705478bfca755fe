// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

@Suite struct UserInfoCodingTests {
    @Test func everyTypeRoundTrips() throws {
        let bytes = UserInfoCoding.encode(everyType)
        #expect(BinaryPropertyList.hasMagic(bytes))
        #expect(try UserInfoCoding.decode(bytes) == everyType)
    }

    @Test func nullSetAndURLAreTaggedDictionaries() {
        let plist = UserInfoCoding.propertyList([
            "n": .null, "u": .url(URLReference(string: "https://x.example/p")!), "s": .set([.integer(1)]),
        ])
        guard case .dictionary(let d) = plist else { Issue.record("not a dictionary"); return }
        #expect(d["n"] == .dictionary(["$class": .string("NSNull")]))
        #expect(d["u"] == .dictionary(["$class": .string("NSURL"), "NS.relative": .string("https://x.example/p")]))
        #expect(d["s"] == .dictionary(["$class": .string("NSSet"), "NS.objects": .array([.integer(1)])]))
    }

    @Test func equalSetsEncodeToEqualBytes() {
        let members: [UserInfoValue] = (0..<50).map { .string("member-\($0)") }
        let a: UserInfo = ["s": .set(Set(members))]
        let b: UserInfo = ["s": .set(Set(members.reversed()))]
        #expect(UserInfoCoding.encode(a) == UserInfoCoding.encode(b))
    }

    @Test func binaryNullTokenDecodesAsNull() throws {
        let bytes = BinaryPropertyList.encode(.dictionary(["n": .null]))
        #expect(try UserInfoCoding.decode(bytes) == ["n": .null])
    }

    @Test func decodesWhatPlistlibWrites() throws {
        // plistlib.dumps({"count": 3, "name": "Ada", "ok": True, "ratio": 0.5}, fmt=FMT_BINARY)
        let b = bytes(hex: "62706c6973743030d4010203040506070855636f756e74546e616d65526f6b55726174696f10035341646109233fe00000000000000811171c1f25272b2c0000000000000101000000000000000900000000000000000000000000000035")
        #expect(try UserInfoCoding.decode(b) == ["count": .integer(3), "name": .string("Ada"), "ok": .boolean(true), "ratio": .real(0.5)])
    }

    @Test func malformedTagsAreRejected() {
        let cases: [PropertyListValue] = [
            .dictionary(["x": .dictionary(["$class": .string("NSDate")])]),
            .dictionary(["x": .dictionary(["$class": .integer(1)])]),
            .dictionary(["x": .dictionary(["$class": .string("NSNull"), "extra": .integer(1)])]),
            .dictionary(["x": .dictionary(["$class": .string("NSURL"), "NS.relative": .string("no-scheme")])]),
            .dictionary(["x": .dictionary(["$class": .string("NSSet"), "NS.objects": .string("not an array")])]),
            .dictionary(["$class": .string("NSNull")]),
            .array([]),
        ]
        for plist in cases {
            do {
                _ = try UserInfoCoding.userInfo(plist)
                Issue.record("accepted \(plist)")
            } catch {
                #expect(error.code == .malformedData)
            }
        }
    }

    @Test func decodedUserInfoTooDeepIsRejected() {
        var v = PropertyListValue.integer(0)
        for _ in 0..<UserInfoRules.maxDepth { v = .array([v]) }
        #expect(throws: HandoffError.self) { try UserInfoCoding.userInfo(.dictionary(["deep": v])) }
    }

    @Test func garbageIsMalformedNotACrash() {
        for junk in [[], Array("bplist00".utf8), Array("hello world, not a plist".utf8), [UInt8](repeating: 0xFF, count: 64)] {
            do {
                _ = try UserInfoCoding.decode(junk)
                Issue.record("accepted \(junk)")
            } catch {
                #expect(error.code == .malformedData)
            }
        }
    }
}
