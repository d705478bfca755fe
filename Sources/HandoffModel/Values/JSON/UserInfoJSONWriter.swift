// SPDX-License-Identifier: MIT OR Apache-2.0
extension UserInfoJSON {
    /// `value` as JSON text, dictionary keys sorted (String's order: by the
    /// Unicode scalars of their canonical form, which for keys in NFC is
    /// UTF-8 byte order; `utf8.lexicographicallyPrecedes` cost as much as
    /// the rest of the writing). Throws `.invalidValue` for a
    /// value that breaks a `UserInfoRules` rule, `.typeMismatch` for one
    /// that holds what JSON cannot carry (data, date, URL, set, a
    /// non-finite real).
    public static func encode(_ value: UserInfoValue) throws(HandoffError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)  // a userInfo that fits a handoff (3 KB) never grows it
        if write(value, depth: 0, to: &out) { return out }
        // The rules are checked only now, on the rare way out: the writer
        // stops at what they forbid (nesting, "$class") as at what JSON lacks.
        try UserInfoRules.check(value)
        throw HandoffError(.typeMismatch,
            "the value holds data, a date, a URL, a set or a non-finite real, which JSON cannot carry; use the property list")
    }

    private static func write(_ value: UserInfoValue, depth: Int, to out: inout [UInt8]) -> Bool {
        switch value {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .boolean(let b):
            out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .integer(let i):
            writeInteger(i, to: &out)
        case .real(let d):
            guard d.isFinite else { return false }
            // Swift's description is the shortest text that reads back as
            // the same double, and always has a "." or an exponent.
            out.append(contentsOf: d.description.utf8)
        case .string(let s):
            writeString(s, to: &out)
        case .array(let items):
            guard depth < UserInfoRules.maxDepth else { return false }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                guard write(item, depth: depth + 1, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            guard depth < UserInfoRules.maxDepth else { return false }
            out.append(UInt8(ascii: "{"))
            let entries = ContiguousArray(dictionary)
            for (i, index) in keyOrder(entries).enumerated() {
                let entry = entries[index]
                guard entry.key != UserInfoRules.classKey else { return false }
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(entry.key, to: &out)
                out.append(UInt8(ascii: ":"))
                guard write(entry.value, depth: depth + 1, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case .data, .date, .url, .set:
            return false
        }
        return true
    }

    /// `value` in the tagged form (`UserInfoJSON`): every kind, those JSON
    /// lacks as one-key objects. Never fails; checks no rule (a value read
    /// from the wire keeps them already).
    public static func encodeTagged(_ value: UserInfoValue) -> [UInt8] {
        var out: [UInt8] = []
        writeTagged(value, to: &out)
        return out
    }

    /// Kept apart from `write` so the exact form, the library's, carries
    /// none of this.
    private static func writeTagged(_ value: UserInfoValue, to out: inout [UInt8]) {
        switch value {
        case .null, .boolean, .integer:
            _ = write(value, depth: 0, to: &out)
        case .real(let d):
            if d.isFinite { out.append(contentsOf: d.description.utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let s):
            writeTaggedString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeTagged(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            out.append(UInt8(ascii: "{"))
            for (i, entry) in dictionary.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeTaggedString(entry.key, to: &out)
                out.append(UInt8(ascii: ":"))
                writeTagged(entry.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .data(let bytes):
            writeTagged("$data", .string(base64(bytes)), to: &out)
        case .date(let date):
            writeTagged("$date", .real(date.timeIntervalSince1970), to: &out)
        case .url(let url):
            writeTagged("$url", .string(url.absoluteString), to: &out)
        case .set(let members):
            // A set has no order: members sorted by their JSON text, so the
            // output is the same every time.
            let texts = members.map { String(decoding: encodeTagged($0), as: UTF8.self) }.sorted()
            out.append(contentsOf: #"{"$set":["#.utf8)
            for (i, text) in texts.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: text.utf8)
            }
            out.append(contentsOf: "]}".utf8)
        }
    }

    /// `{"key":value}`, the tagged form of a kind JSON lacks.
    private static func writeTagged(_ key: StaticString, _ value: UserInfoValue, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "\"")])
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        writeTagged(value, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// A string as `writeString` writes it, DEL escaped too. (UTF-8 has no
    /// 0x7F but DEL's own, and JSON's syntax none: every one is the string's.)
    private static func writeTaggedString(_ s: String, to out: inout [UInt8]) {
        let start = out.count
        writeString(s, to: &out)
        guard out[start...].contains(0x7F) else { return }
        var escaped = Array(out[..<start])
        for b in out[start...] {
            if b == 0x7F { escaped.append(contentsOf: #"\u007f"#.utf8) } else { escaped.append(b) }
        }
        out = escaped
    }

    /// Decimal digits, without the String `description` would make.
    private static func writeInteger(_ i: Int64, to out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 40 bytes, room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[39 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(40 - count)...]))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A JSON string: quote, backslash and control characters escaped, the
    /// rest as its UTF-8.
    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var clean = 0  // start of the run not yet copied
            var i = 0
            while i < bytes.count {
                // Eight bytes at a time while none needs escaping.
                if bytes.count - i >= 8,
                   !hasSpecialByte(UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)) {
                    i += 8
                    continue
                }
                let b = bytes[i]
                i += 1
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<(i - 1)]))
                clean = i
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case 0x0A: out.append(contentsOf: "\\n".utf8)
                case 0x09: out.append(contentsOf: "\\t".utf8)
                case 0x0D: out.append(contentsOf: "\\r".utf8)
                default: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
