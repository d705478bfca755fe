// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

extension UserInfoJSON {
    /// Reads JSON text as a userInfo value; throws `.malformedData` for text
    /// that is not RFC 8259 JSON of userInfo shape: invalid UTF-8, a lone
    /// surrogate escape, a string or key with NUL (C strings cannot carry
    /// it), an integer beyond 64 bits, a real beyond a double's range,
    /// nesting deeper than `UserInfoRules.maxDepth`, the reserved key
    /// "$class", or more than `maxLength` bytes. A key given twice (or in
    /// two canonically equivalent spellings) keeps its last value, as
    /// setting entries one by one does. Work and memory are linear in the
    /// length; hostile text is safe to pass. What it returns keeps every
    /// `UserInfoRules` rule (those JSON can break are checked as it reads).
    public static func decode(_ text: UnsafeRawBufferPointer) throws(HandoffError) -> UserInfoValue {
        guard text.count <= maxLength else {
            throw HandoffError(.malformedData, "JSON text of \(text.count) bytes, over the \(maxLength) allowed")
        }
        var reader = Reader(bytes: text.bindMemory(to: UInt8.self))
        reader.entries.reserveCapacity(32)  // rather than growing it from 1 for the common userInfo
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.atEnd else { throw reader.error("text after the value") }
        return value
    }

    public static func decode(_ text: [UInt8]) throws(HandoffError) -> UserInfoValue {
        // withUnsafeBytes rethrows untyped: carry the result out instead.
        let result = text.withUnsafeBytes { raw in Result { () throws(HandoffError) in try decode(raw) } }
        return try result.get()
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0
    /// The entries of the objects being read, innermost last: each object
    /// becomes a dictionary of exactly its size once it is complete, rather
    /// than one growing (and rehashing) as it is read.
    var entries: [(String, UserInfoValue)] = []

    var atEnd: Bool { at == bytes.count }

    func error(_ what: String) -> HandoffError {
        HandoffError(.malformedData, "not userInfo JSON: \(what) at byte \(at)")
    }

    mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D: at += 1
            default: return
            }
        }
    }

    /// The next byte, or an error at the end of the text.
    func peek() throws(HandoffError) -> UInt8 {
        guard at < bytes.count else { throw error("unexpected end") }
        return bytes[at]
    }

    mutating func expect(_ word: StaticString) throws(HandoffError) {
        let n = word.utf8CodeUnitCount
        guard bytes.count - at >= n, memcmpEqual(word.utf8Start, n) else { throw error("unexpected token") }
        at += n
    }

    private func memcmpEqual(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        for i in 0..<n where bytes[at + i] != p[i] { return false }
        return true
    }

    mutating func value(depth: Int) throws(HandoffError) -> UserInfoValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try dictionary(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .boolean(true)
        case UInt8(ascii: "f"): try expect("false"); return .boolean(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    func checkDepth(_ depth: Int) throws(HandoffError) {
        if depth > UserInfoRules.maxDepth {
            throw error("containers nest deeper than \(UserInfoRules.maxDepth) levels")
        }
    }

    mutating func array(depth: Int) throws(HandoffError) -> UserInfoValue {
        try checkDepth(depth)
        at += 1
        var items: [UserInfoValue] = []
        skipSpace()
        if try peek() == UInt8(ascii: "]") {
            at += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            switch try peek() {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; return .array(items)
            default: throw error("expected , or ] in an array")
            }
        }
    }

    mutating func dictionary(depth: Int) throws(HandoffError) -> UserInfoValue {
        try checkDepth(depth)
        at += 1
        skipSpace()
        if try peek() == UInt8(ascii: "}") {
            at += 1
            return .dictionary([:])
        }
        let first = entries.count
        while true {
            skipSpace()
            guard try peek() == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            if key == UserInfoRules.classKey {
                throw error("the key \"\(UserInfoRules.classKey)\" is reserved")
            }
            skipSpace()
            guard try peek() == UInt8(ascii: ":") else { throw error("expected : after a key") }
            at += 1
            skipSpace()
            let item = try value(depth: depth)
            entries.append((key, item))
            skipSpace()
            switch try peek() {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"):
                at += 1
                var dictionary = UserInfo(minimumCapacity: entries.count - first)
                for (key, item) in entries[first...] { dictionary[key] = item }  // the last of a key wins
                entries.removeSubrange(first...)
                return .dictionary(dictionary)
            default: throw error("expected , or } in an object")
            }
        }
    }

    mutating func number() throws(HandoffError) -> UserInfoValue {
        let start = at
        if bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard try peek() >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") else { throw error("a number without digits") }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { skipDigits() }
        var integral = true
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard digitCount() > 0 else { throw error("no digit after the decimal point") }
        }
        if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digitCount() > 0 else { throw error("no digit in the exponent") }
        }
        if integral, let integer = integer(start..<at) { return .integer(integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        // (A number may be megabytes long: the message shows its start.)
        let shown = text.utf8.count <= 32 ? text : text.prefix(32) + "…"
        if integral { throw error("integer \(shown) does not fit 64 bits") }
        guard let real = Double(text), real.isFinite else { throw error("number \(shown) is beyond a double's range") }
        return .real(real)
    }

    /// The integer written in `range` (an optional "-", then digits), or
    /// nil when it does not fit 64 bits.
    func integer(_ range: Range<Int>) -> Int64? {
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        for i in (negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            magnitude = sum
        }
        if negative {
            return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    mutating func skipDigits() { _ = digitCount() }

    mutating func digitCount() -> Int {
        let start = at
        while at < bytes.count, bytes[at] &- UInt8(ascii: "0") < 10 { at += 1 }
        return at - start
    }

    /// A string at `at` (its opening quote).
    mutating func string() throws(HandoffError) -> String {
        at += 1
        let start = at
        var seen: UInt64 = 0  // every byte passed, or-ed: ASCII when its high bits are clear
        // The common case: no escape, so the bytes are the string.
        while at < bytes.count {
            // Eight bytes at a time while none ends the run.
            if bytes.count - at >= 8 {
                let word = UnsafeRawPointer(bytes.baseAddress! + at).loadUnaligned(as: UInt64.self)
                if !UserInfoJSON.hasSpecialByte(word) {
                    seen |= word
                    at += 8
                    continue
                }
            }
            let b = bytes[at]
            if b == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<at])
                at += 1
                guard let s = Self.text(run, ascii: !UserInfoJSON.hasNonASCII(seen)) else { throw error("invalid UTF-8") }
                return s
            }
            seen |= UInt64(b)
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error(b == 0 ? "NUL in a string" : "a control character in a string") }
            at += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<at]))
        while true {
            let b = try peek()
            at += 1
            switch b {
            case UInt8(ascii: "\""):
                let s = out.withUnsafeBufferPointer { Self.text($0, ascii: false) }
                guard let s else { throw error("invalid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case 0:
                throw error("NUL in a string")
            case ..<0x20:
                throw error("a control character in a string")
            default:
                out.append(b)
            }
        }
    }

    /// The string whose UTF-8 is `run`; nil when `run` is not UTF-8.
    /// (`String(decoding:)` repairs what `String(validating:)` would refuse,
    /// but is specialized where the latter looks up generic metadata for
    /// each string, a fifth of the reading: so decode, then compare.)
    static func text(_ run: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        var s = String(decoding: run, as: UTF8.self)
        if ascii { return s }
        let same = s.withUTF8 { utf8 in
            utf8.count == run.count && (run.isEmpty || memcmp(utf8.baseAddress!, run.baseAddress!, run.count) == 0)
        }
        return same ? s : nil
    }

    mutating func escape(into out: inout [UInt8]) throws(HandoffError) {
        let b = try peek()
        at += 1
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(b)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if 0xD800..<0xDC00 ~= scalar {
                guard bytes.count - at >= 2, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                    throw error("a lone surrogate escape")
                }
                at += 2
                let low = try hex4()
                guard 0xDC00..<0xE000 ~= low else { throw error("a lone surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if 0xDC00..<0xE000 ~= scalar {
                throw error("a lone surrogate escape")
            }
            guard scalar != 0 else { throw error("NUL in a string") }
            out.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            throw error("an unknown escape")
        }
    }

    mutating func hex4() throws(HandoffError) -> UInt32 {
        guard bytes.count - at >= 4 else { throw error("a short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[at]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("a bad \\u escape")
            }
            v = v << 4 | UInt32(digit)
            at += 1
        }
        return v
    }
}
