// SPDX-License-Identifier: MIT OR Apache-2.0
extension UserInfoJSON {
    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Base64 (RFC 4648 §4: standard alphabet, "=" padding, no line breaks),
    /// as Foundation's `base64EncodedString()` writes it: the tagged form's
    /// `{"$data": …}`.
    static func base64(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let chunk = UInt32(bytes[i]) << 16 | (n > 1 ? UInt32(bytes[i + 1]) << 8 : 0) | (n > 2 ? UInt32(bytes[i + 2]) : 0)
            for j in 0 ..< 4 {
                out.append(j <= n ? base64Alphabet[Int(chunk >> (18 - 6 * UInt32(j)) & 63)] : UInt8(ascii: "="))
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UserInfoJSON {
    /// The bytes of base64 text as `base64` writes it (standard alphabet,
    /// padded to a multiple of 4, no line breaks); nil for anything else.
    static func base64Decoded(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var i = 0
        while i < chars.count {
            var chunk: UInt32 = 0
            var padding = 0
            for j in 0 ..< 4 {
                let c = chars[i + j]
                let digit: UInt32
                switch c {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit = UInt32(c - UInt8(ascii: "A"))
                case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = UInt32(c - UInt8(ascii: "a")) + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0")) + 52
                case UInt8(ascii: "+"): digit = 62
                case UInt8(ascii: "/"): digit = 63
                // "=" only at the end of the last group, at most two.
                case UInt8(ascii: "=") where i + 4 == chars.count && j >= 2: padding += 1; digit = 0
                default: return nil
                }
                if padding > 0 && c != UInt8(ascii: "=") { return nil }
                chunk = chunk << 6 | digit
            }
            let bytes = [UInt8(chunk >> 16 & 0xFF), UInt8(chunk >> 8 & 0xFF), UInt8(chunk & 0xFF)]
            out.append(contentsOf: bytes[0 ..< 3 - padding])
            i += 4
        }
        return out
    }
}
