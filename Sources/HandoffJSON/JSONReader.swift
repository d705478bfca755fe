// SPDX-License-Identifier: MIT OR Apache-2.0
/// Reads JSON text (RFC 8259) from bytes another program sent: bounded and
/// linear. At most `maxDepth` nested arrays and objects, `maxMembers`
/// members per object and `maxElements` elements per array (a repeated key
/// keeps its last value); strings with every escape, surrogate pairs
/// joined and a lone surrogate refused; numbers without a fraction or
/// exponent that fit an Int64 are `.int`, others `.double` (finite, else
/// refused). Only one value, with white space around it.
public struct JSONReader {
    public static let maxDepth = 16
    public static let maxMembers = 256
    public static let maxElements = 4096

    /// Why the bytes are not JSON, and where.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var at = 0

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSON {
        var reader = JSONReader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.fail("more after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ reason: String) -> Failure { Failure(offset: at, reason: reason) }

    private var current: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
    }

    private mutating func expect(_ word: String) throws(Failure) {
        for b in word.utf8 {
            guard current == b else { throw fail("expected \(word)") }
            at += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSON {
        guard let b = current else { throw fail("the text ends where a value should be") }
        switch b {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected byte 0x\(String(b, radix: 16))")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSON {
        guard depth <= Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth)") }
        at += 1
        var object = JSONObject()
        var members = 0
        skipSpace()
        if current == UInt8(ascii: "}") {
            at += 1
            return .object(object)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
            at += 1
            skipSpace()
            members += 1
            guard members <= Self.maxMembers else { throw fail("more than \(Self.maxMembers) members in an object") }
            object[key] = try value(depth: depth)
            skipSpace()
            switch current {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"): at += 1; return .object(object)
            default: throw fail("expected ',' or '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSON {
        guard depth <= Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth)") }
        at += 1
        var items: [JSON] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            at += 1
            return .array(items)
        }
        while true {
            skipSpace()
            guard items.count < Self.maxElements else { throw fail("more than \(Self.maxElements) elements in an array") }
            items.append(try value(depth: depth))
            skipSpace()
            switch current {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; return .array(items)
            default: throw fail("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws(Failure) -> String {
        at += 1  // the opening quote
        var out: [UInt8] = []
        while true {
            guard let b = current else { throw fail("the text ends inside a string") }
            switch b {
            case UInt8(ascii: "\""):
                at += 1
                // Raw bytes were copied as they came: they must be UTF-8.
                guard let text = String(validating: out, as: UTF8.self) else { throw fail("a string is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                at += 1
                try escape(into: &out)
            case 0..<0x20:
                throw fail("a control character in a string")
            default:
                out.append(b)
                at += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(Failure) {
        guard let b = current else { throw fail("the text ends inside an escape") }
        at += 1
        let simple: UInt8? = switch b {
        case UInt8(ascii: "\""): 0x22
        case UInt8(ascii: "\\"): 0x5C
        case UInt8(ascii: "/"): 0x2F
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple {
            out.append(simple)
            return
        }
        guard b == UInt8(ascii: "u") else { throw fail("an unknown escape \\\(Character(Unicode.Scalar(b)))") }
        var unit = try hex4()
        if (0xD800...0xDBFF).contains(unit) {
            guard current == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                throw fail("a lone high surrogate")
            }
            at += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate without its low one") }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
            throw fail("a lone low surrogate")
        }
        out.append(contentsOf: String(Character(Unicode.Scalar(unit)!)).utf8)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = current else { throw fail("the text ends inside \\u") }
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - 0x41 + 10)
            default: throw fail("\\u needs four hex digits")
            }
            value = value << 4 | digit
            at += 1
        }
        return value
    }

    private mutating func number() throws(Failure) -> JSON {
        let start = at
        var integral = true
        if current == UInt8(ascii: "-") { at += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw fail("a number needs digits") }
        if first == UInt8(ascii: "0") {
            at += 1
        } else {
            digits()
        }
        if current == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard digits() > 0 else { throw fail("a fraction needs digits") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            at += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw fail("an exponent needs digits") }
        }
        guard at - start <= 64 else { throw fail("a number longer than 64 characters") }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        if integral, let int = Int64(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else { throw fail("a number out of range") }
        return .double(double)
    }

    @discardableResult
    private mutating func digits() -> Int {
        let start = at
        while let b = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { at += 1 }
        return at - start
    }
}

extension JSON {
    /// The member `key` of an object, nil for anything else.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}
