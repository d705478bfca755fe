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
