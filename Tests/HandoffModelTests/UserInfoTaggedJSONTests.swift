// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffModel
import Testing

/// userInfo's tagged JSON form (the `handoff` command's output, docs/cli.md):
/// the kinds JSON lacks as one-key objects, byte for byte as the command
/// has always written them, and the JSON kinds as the exact form writes them.
@Suite struct UserInfoTaggedJSONTests {
    static func tagged(_ value: UserInfoValue) -> String {
        String(decoding: UserInfoJSON.encodeTagged(value), as: UTF8.self)
    }

    @Test func theKindsJSONLacksAreOneKeyObjects() {
        #expect(Self.tagged(.data([0, 1, 2, 255])) == #"{"$data":"AAEC/w=="}"#)
        #expect(Self.tagged(.data([])) == #"{"$data":""}"#)
        #expect(Self.tagged(.data([0x66, 0x6F])) == #"{"$data":"Zm8="}"#)
        #expect(Self.tagged(.date(Timestamp(timeIntervalSince1970: 1.5))) == #"{"$date":1.5}"#)
        #expect(Self.tagged(.date(Timestamp(timeIntervalSince1970: 86400))) == #"{"$date":86400.0}"#)
        #expect(Self.tagged(.url(URLReference(string: "https://example.com/h?q=1")!)) == #"{"$url":"https://example.com/h?q=1"}"#)
        // Members sorted by their JSON text: "\"x\"" < "10" < "2".
        #expect(Self.tagged(.set([.integer(2), .string("x"), .integer(10)])) == #"{"$set":["x",10,2]}"#)
        #expect(Self.tagged(.set([])) == #"{"$set":[]}"#)
    }

    @Test func jsonKindsAreWrittenAsTheExactFormWritesThem() throws {
        let value: UserInfoValue = .dictionary([
            "null": .null, "yes": .boolean(true), "int": .integer(.min), "real": .real(3.0), "big": .real(1e16),
            "text": .string("a \"quoted\" \\ line\nwith\ttab, \u{1} control, é and \u{1F7E2}"),
            "list": .array([.integer(1), .array([]), .dictionary(["b": .null, "a": .string("")])]),
        ])
        #expect(Self.tagged(value) == String(decoding: try UserInfoJSON.encode(value), as: UTF8.self))
    }

    /// Where the forms differ: what the exact form refuses, the tagged form
    /// writes; DEL is escaped for terminals, as every other control character.
    @Test func nonFiniteRealsAreNullAndDELIsEscaped() {
        #expect(Self.tagged(.array([.real(.nan), .real(.infinity), .real(-.infinity)])) == "[null,null,null]")
        #expect(Self.tagged(.string("a\u{7F}b\u{7F}")) == #""a\u007fb\u007f""#)
        #expect(Self.tagged(.dictionary(["k\u{7F}": .string("é\u{7F}")])) == #"{"k\u007f":"é\u007f"}"#)
        #expect(Self.tagged(.dictionary(["d": .array([.set([.data([1])])])])) == #"{"d":[{"$set":[{"$data":"AQ=="}]}]}"#)
    }
}
