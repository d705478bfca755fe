// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffModel
import Testing

/// The JSON codec goes through strings eight bytes at a time and orders
/// keys by their first sixteen bytes: what it writes and reads is the same
/// wherever a byte to escape, a non-ASCII byte or a differing key byte sits
/// relative to those words.
@Suite struct UserInfoJSONWordTests {
    /// JSON string text as written one byte at a time (the reference).
    static func escaped(_ s: String) -> String {
        var out: [UInt8] = [0x22]
        for b in s.utf8 {
            switch b {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case ..<0x20: out += Array(("\\u00" + String(b >> 4, radix: 16) + String(b & 0xF, radix: 16)).utf8)
            default: out.append(b)
            }
        }
        return String(decoding: out + [0x22], as: UTF8.self)
    }

    static func text(_ value: UserInfoValue) throws(HandoffError) -> String {
        String(decoding: try UserInfoJSON.encode(value), as: UTF8.self)
    }

    @Test func everyByteToEscapeIsEscapedAtEveryOffset() throws {
        for special in ["\"", "\\", "\n", "\t", "\r", "\u{1}", "\u{1F}", "é", "圆", "\u{7F}", " ", "!", "#", "[", "]", "\u{80}"] {
            for length in 0..<20 {
                for offset in 0...length {
                    var scalars = Array(repeating: "a", count: length)
                    scalars.insert(special, at: offset)
                    let s = scalars.joined()
                    let written = try Self.text(.string(s))
                    #expect(written == Self.escaped(s), "\(Array(s.utf8)) at \(offset)")
                    #expect(try UserInfoJSON.decode(Array(written.utf8)) == .string(s))
                }
            }
        }
    }

    @Test func aStringThatIsNotUTF8IsRefusedWhereverTheBadByteSits() {
        for length in 1..<20 {
            for offset in 0..<length {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                bytes[offset] = 0xFF
                expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoJSON.decode([0x22] + bytes + [0x22]) }
                bytes[offset] = 0x01  // a raw control character
                expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoJSON.decode([0x22] + bytes + [0x22]) }
            }
        }
    }

    @Test func keysAreInStringOrderWhateverTheirSharedPrefix() throws {
        let stem = "abcdefghijklmnopqrstu"
        // NFC keys only: over other spellings ("e\u{301}") String's `<` is
        // not consistent, and their order follows the dictionary's.
        var keys: Set<String> = ["", "Z", "a", "\u{E9}", "\u{E9}x", "\u{5706}", "\u{1F7E2}", "~", "a~"]
        for n in 0...stem.count {
            let prefix = String(stem.prefix(n))
            keys.formUnion([prefix, prefix + "A", prefix + "z", prefix + "~", prefix + "\u{7F}"])
        }
        let ascii = keys.filter { $0.utf8.allSatisfy { $0 < 0x80 } }
        for set in [ascii, keys] {
            let value = UserInfoValue.dictionary(UserInfo(uniqueKeysWithValues: set.map { ($0, .integer(1)) }))
            let expected = "{" + set.sorted().map { Self.escaped($0) + ":1" }.joined(separator: ",") + "}"
            #expect(try Self.text(value) == expected)
        }
    }
}
