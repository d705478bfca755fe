// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import Testing

/// The bounded JSON reader (HandoffJSON): what browsers send is input.
struct JSONReaderTests {
    func parse(_ text: String) throws -> JSON { try JSONReader.parse(Array(text.utf8)) }

    @Test func values() throws {
        #expect(try parse(#" {"a": [1, -2, 3.5, 1e2, true, false, null], "b": "x"} "#)
                == .object(["a": .array([.int(1), .int(-2), .double(3.5), .double(100), .bool(true), .bool(false), .null]),
                            "b": .string("x")]))
        #expect(try parse("[]") == .array([]) && parse("{}") == .object([:]))
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("-0") == .int(0))
    }

    @Test func escapesAndSurrogates() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC""#) == .string("\"\\/\u{8}\u{c}\n\r\tAé€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse("\"é😀\"") == .string("é😀"))
    }

    @Test func aRepeatedKeyKeepsItsLastValue() throws {
        #expect(try parse(#"{"type": "a", "type": "b"}"#)["type"]?.stringValue == "b")
    }

    @Test(arguments: ["", " ", "{", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", ".5", "1e", "+1", "-", "tru", "nul",
                      "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"a\u{1}b\"",
                      "1 2", "[1] x", "1e999", "-1e999"])
    func refused(_ text: String) {
        #expect(throws: JSONReader.Failure.self) { try parse(text) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }  // a surrogate in UTF-8
    }

    @Test func bounded() throws {
        let deep = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        _ = try parse(deep)
        #expect(throws: JSONReader.Failure.self) { try parse("[" + deep + "]") }
        #expect(throws: JSONReader.Failure.self) { try parse(String(repeating: "[", count: 100_000)) }
        let members = (0..<JSONReader.maxMembers).map { "\"k\($0)\":0" }.joined(separator: ",")
        _ = try parse("{\(members)}")
        #expect(throws: JSONReader.Failure.self) { try parse("{\(members),\"more\":0}") }
        let elements = Array(repeating: "0", count: JSONReader.maxElements).joined(separator: ",")
        _ = try parse("[\(elements)]")
        #expect(throws: JSONReader.Failure.self) { try parse("[\(elements),0]") }
        #expect(throws: JSONReader.Failure.self) { try parse(String(repeating: "1", count: 65)) }
    }

    @Test func whatTheWriterWritesIsReadBack() throws {
        let value: JSON = .object(["text": .string("a\"b\\c\n\u{1}é😀"), "n": .int(-5), "x": .double(0.25),
                                   "list": .array([.null, .bool(true)])])
        #expect(try JSONReader.parse(Array(value.text.utf8)) == value)
    }
}
