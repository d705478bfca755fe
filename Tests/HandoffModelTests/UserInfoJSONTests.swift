// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffModel
import Testing

/// userInfo as JSON text (the Python binding's fast path): kinds survive
/// both ways, every refusal is a refusal (never a repair), and hostile text
/// costs linear work.
@Suite struct UserInfoJSONTests {
    static func decode(_ text: String) throws(HandoffError) -> UserInfoValue {
        try UserInfoJSON.decode(Array(text.utf8))
    }

    static func text(_ value: UserInfoValue) throws(HandoffError) -> String {
        String(decoding: try UserInfoJSON.encode(value), as: UTF8.self)
    }

    @Test func everyJSONKindRoundTripsWithItsKind() throws {
        let value: UserInfoValue = .dictionary([
            "null": .null, "yes": .boolean(true), "no": .boolean(false),
            "int": .integer(3), "min": .integer(.min), "max": .integer(.max),
            "real": .real(3.0), "tiny": .real(5e-324), "big": .real(1e16), "negzero": .real(-0.0),
            "text": .string("a \"quoted\" \\ line\nwith\ttab, \u{1} control, é, 圆 and \u{1F7E2}"),
            "list": .array([.integer(1), .array([]), .dictionary([:])]),
            "nested": .dictionary(["k": .array([.string("")])]),
        ])
        let encoded = try Self.text(value)
        #expect(try Self.decode(encoded) == value)
        #expect(encoded.contains("\"int\":3,") && encoded.contains("\"real\":3.0,") && encoded.contains("\"big\":1e+16"))
        // Sorted keys: the same value always gives the same text.
        #expect(encoded.hasPrefix("{\"big\":1e+16,\"int\":3,\"list\":"))
    }

    @Test func whatJSONCannotCarryIsATypeMismatchAndRuleBreachesAreInvalid() throws {
        for value: UserInfoValue in [.data([1]), .date(Timestamp(timeIntervalSinceReferenceDate: 0)),
                                     .url(URLReference(string: "https://a.example/")!), .set([.integer(1)]),
                                     .real(.nan), .real(.infinity), .array([.dictionary(["d": .data([])])])] {
            expectCode(.typeMismatch) { () throws(HandoffError) in _ = try UserInfoJSON.encode(value) }
        }
        var deep: UserInfoValue = .integer(0)
        for _ in 0..<17 { deep = .array([deep]) }
        expectCode(.invalidValue) { () throws(HandoffError) in _ = try UserInfoJSON.encode(deep) }
        expectCode(.invalidValue) { () throws(HandoffError) in _ = try UserInfoJSON.encode(.dictionary(["$class": .string("NSNull")])) }
    }

    @Test(arguments: [
        "", " ", "nul", "tru", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{1:2}", "[1]x", "\"abc",
        "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1e400", "-1e400",
        "9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
        "\"\\u0000\"", "\"a\u{0}b\"", "\"\u{1}\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\x41\"",
        "\"\\u12\"", "\"\\u12G4\"", "\"\\u\u{10}\u{11}\u{12}\u{13}\"", "{\"$class\":\"NSNull\"}", "[{\"$class\":1}]",
    ])
    func malformedTextIsRefused(_ text: String) {
        expectCode(.malformedData) { () throws(HandoffError) in _ = try Self.decode(text) }
    }

    @Test func invalidUTF8IsRefusedNotRepaired() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
                               [0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22]] {
            expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoJSON.decode(bytes) }
        }
    }

    @Test func numbersAndEscapesReadExactly() throws {
        #expect(try Self.decode("-0") == .integer(0))
        #expect(try Self.decode("9223372036854775807") == .integer(.max))
        #expect(try Self.decode("-9223372036854775808") == .integer(.min))
        #expect(try Self.decode("1E2") == .real(100))
        #expect(try Self.decode("-2.5e-3") == .real(-0.0025))
        #expect(try Self.decode(" \t\r\n[ true , false , null ] ") == .array([.boolean(true), .boolean(false), .null]))
        #expect(try Self.decode("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\udfe2\"") == .string("\"\\/\u{8}\u{c}\n\r\té\u{1F7E2}"))
    }

    @Test func aHugeNumberIsRefusedWithAShortMessage() {
        do {
            _ = try Self.decode(String(repeating: "9", count: 1_000_000))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .malformedData && error.message.utf8.count < 200, "\(error.message.prefix(300))")
        }
    }

    @Test func aKeyGivenTwiceKeepsItsLastValueAsSettingEntriesDoes() throws {
        #expect(try Self.decode("{\"a\":1,\"a\":2}") == .dictionary(["a": .integer(2)]))
        // Canonically equivalent spellings are one key (Swift's String equality).
        guard case .dictionary(let d) = try Self.decode("{\"\u{e9}\":1,\"e\u{301}\":2}") else { Issue.record(); return }
        #expect(d.count == 1 && d["\u{e9}"] == .integer(2))
    }

    @Test func nestingIsBoundedBeforeTheStackIs() throws {
        var ok = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        #expect(try Self.decode(ok) != .null)
        ok = String(repeating: "{\"a\":", count: 16) + "1" + String(repeating: "}", count: 16)
        #expect(try Self.decode(ok) != .null)
        for text in [String(repeating: "[", count: 17) + String(repeating: "]", count: 17),
                     String(repeating: "[", count: 1_000_000)] {
            expectCode(.malformedData) { () throws(HandoffError) in _ = try Self.decode(text) }
        }
    }

    @Test func whatItReadsKeepsTheRules() throws {
        let value = try Self.decode("{\"a\":[1,{\"b\":\"c\"}],\"d\":{}}")
        try UserInfoRules.check(value)
        #expect(try UserInfoJSON.decode(try UserInfoJSON.encode(value)) == value)
    }
}
