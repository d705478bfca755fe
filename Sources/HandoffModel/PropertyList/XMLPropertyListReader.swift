// SPDX-License-Identifier: MIT OR Apache-2.0
/// The XML property list format (Apple's PropertyList-1.0 DTD), read with
/// expat, as CPython's plistlib reads it:
///
///     <?xml version="1.0" encoding="UTF-8"?>
///     <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "...">
///     <plist version="1.0"> one value </plist>
///
/// Values: dict (alternating <key> and value), array, string, integer
/// (decimal, or hexadecimal after "0x"), real, true, false, date
/// (ISO 8601 "YYYY-MM-DDTHH:MM:SSZ"), data (base64, whitespace allowed).
/// Comments, processing instructions and a DOCTYPE are accepted; entity
/// declarations are refused (as plistlib does), and so is everything expat
/// refuses (not well-formed XML, junk after </plist>) and everything the
/// plist grammar does not allow. Errors name the line and column. A key
/// repeated in one <dict> is refused, or its last value kept
/// (`RepeatedKeyRule`).
public enum XMLPropertyList {
    /// Most containers nested inside each other (the binary reader's default).
    public static let maxDepth = 64

    /// True when the bytes look like an XML document rather than a binary
    /// plist: after an optional byte order mark and whitespace, a "<".
    public static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return true }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    /// Decodes a document; a key repeated in one <dict> is refused.
    public static func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        try decode(bytes, repeatedKeys: .refuse).value
    }

    /// Decodes a document; with `.lastWins`, `repeats` describes each key
    /// met again in its <dict> (line, column and key), in document order.
    public static func decode(
        _ bytes: [UInt8], repeatedKeys: RepeatedKeyRule
    ) throws(PropertyListError) -> (value: PropertyListValue, repeats: [String]) {
        guard bytes.count <= UntrustedXML.maxBytes else {
            throw PropertyListError(reason: "XML property list of \(bytes.count) bytes is too large")
        }
        guard let xml = UntrustedXML() else {
            throw PropertyListError(reason: "cannot create an XML parser (out of memory)")
        }
        let builder = XMLPlistBuilder(xml: xml, repeatedKeys: repeatedKeys)
        if let failure = xml.parse(bytes, into: builder, refusingEntities: { entity in
            "the document declares the entity \"\(entity)\"; property lists may not declare entities"
        }) {
            throw PropertyListError(reason: failure)
        }
        guard let root = builder.root else {
            throw PropertyListError(reason: "the document has no <plist> element holding a value")
        }
        return (root, builder.repeats.messages)
    }
}

/// Builds values from expat's events; the first error stops the parser.
private final class XMLPlistBuilder: XMLEventSink {
    private enum Text: String {
        case key, string, integer, real, date, data
    }

    private enum Open {
        case plist(PropertyListValue?)
        case array([PropertyListValue])
        case dictionary([String: PropertyListValue], pendingKey: String?)
        case text(Text, [UInt8])
        case flag(Bool)
    }

    private let xml: UntrustedXML
    private var open: [Open] = []
    private var containers = 0
    private(set) var root: PropertyListValue?
    private var failure: String? { xml.failure }
    private var sawPlist = false
    private let repeatedKeys: RepeatedKeyRule
    private(set) var repeats = RepeatedKeyReport()

    init(xml: UntrustedXML, repeatedKeys: RepeatedKeyRule) {
        self.xml = xml
        self.repeatedKeys = repeatedKeys
    }

    private func position() -> String { xml.position() }

    private func fail(_ reason: String) { xml.fail(reason) }

    func start(_ name: String, _ attributes: XMLAttributes) {
        guard failure == nil else { return }
        if name == "plist" {
            guard open.isEmpty, !sawPlist else {
                return fail("<plist> may only be the document's root element")
            }
            sawPlist = true
            open.append(.plist(nil))
            return
        }
        guard let parent = open.last else {
            return fail("the root element is <\(name)>; a property list's root element is <plist>")
        }
        switch parent {
        case .text(let kind, _):
            return fail("<\(name)> inside <\(kind.rawValue)>: only text may be there")
        case .flag(let value):
            return fail("<\(name)> inside <\(value)/>: it must be empty")
        case .plist(let value):
            if value != nil { return fail("<\(name)> after the value of <plist>: a property list holds one value") }
        case .dictionary(_, let pendingKey):
            if name == "key" {
                if let pendingKey { return fail("<key> follows <key>\(Self.shown(pendingKey))</key> that has no value") }
                open.append(.text(.key, []))
                return
            }
            if pendingKey == nil { return fail("<\(name)> in a <dict> without a <key> before it") }
        case .array:
            break
        }
        switch name {
        case "dict", "array":
            containers += 1
            guard containers <= XMLPropertyList.maxDepth else {
                return fail("containers are nested deeper than \(XMLPropertyList.maxDepth) levels")
            }
            open.append(name == "dict" ? .dictionary([:], pendingKey: nil) : .array([]))
        case "true", "false":
            open.append(.flag(name == "true"))
        case "key":
            fail("<key> outside a <dict>")
        default:
            guard let kind = Text(rawValue: name) else {
                return fail("unknown element <\(name)>: a property list has dict, array, key, string, integer, real, true, false, date and data")
            }
            open.append(.text(kind, []))
        }
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        guard failure == nil else { return }
        if case .text(let kind, var bytes)? = open.last {
            open[open.count - 1] = .text(kind, []) // keep the buffer unique
            bytes.append(contentsOf: text)
            open[open.count - 1] = .text(kind, bytes)
            return
        }
        guard text.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            let shown = String(decoding: text.prefix(40), as: UTF8.self)
            return fail("text \(Self.shown(shown)) outside <string>, <key> or another value element")
        }
    }

    func end(_ name: String) {
        guard failure == nil, let element = open.popLast() else { return }
        switch element {
        case .plist(let value):
            guard let value else { return fail("<plist> holds no value") }
            root = value
        case .array(let items):
            containers -= 1
            deliver(.array(items))
        case .dictionary(let entries, let pendingKey):
            containers -= 1
            if let pendingKey { return fail("<key>\(Self.shown(pendingKey))</key> has no value before </dict>") }
            deliver(.dictionary(entries))
        case .flag(let value):
            deliver(.boolean(value))
        case .text(let kind, let bytes):
            let text = String(decoding: bytes, as: UTF8.self)
            switch kind {
            case .key:
                guard case .dictionary(let entries, nil)? = open.last else { return }
                if entries[text] != nil {
                    guard repeatedKeys == .lastWins else {
                        return fail("the key \(Self.shown(text)) appears twice in one <dict>")
                    }
                    // The value that follows replaces the earlier one (deliver).
                    repeats.add("\(position()): the key \(Self.shown(text)) appears twice in one <dict>: the last value is used")
                }
                open[open.count - 1] = .dictionary(entries, pendingKey: text)
            case .string:
                deliver(.string(text))
            case .integer:
                guard let number = Self.integer(text) else {
                    return fail("<integer>\(Self.shown(text))</integer> is not a 64-bit integer (decimal, or hexadecimal after 0x)")
                }
                deliver(.integer(number))
            case .real:
                guard let number = Double(text.trimmingWhitespace) else {
                    return fail("<real>\(Self.shown(text))</real> is not a number")
                }
                deliver(.real(number))
            case .date:
                guard let seconds = Self.date(text.trimmingWhitespace) else {
                    return fail("<date>\(Self.shown(text))</date> is not an ISO 8601 date such as 2024-05-01T12:00:00Z")
                }
                deliver(.date(seconds))
            case .data:
                guard let data = Self.base64(bytes) else {
                    return fail("<data> holds text that is not base64")
                }
                deliver(.data(data))
            }
        }
    }

    /// Hands a finished value to the element around it.
    private func deliver(_ value: PropertyListValue) {
        switch open.last {
        case .array(var items)?:
            open[open.count - 1] = .array([])
            items.append(value)
            open[open.count - 1] = .array(items)
        case .dictionary(var entries, let key?)?:
            open[open.count - 1] = .dictionary([:], pendingKey: nil)
            entries[key] = value
            open[open.count - 1] = .dictionary(entries, pendingKey: nil)
        case .plist(nil)?:
            open[open.count - 1] = .plist(value)
        default:
            fail("a value where none may be")
        }
    }

    private static func shown(_ text: String) -> String {
        let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return short.debugDescription
    }

    static func integer(_ raw: String) -> Int64? {
        var text = Substring(raw.trimmingWhitespace)
        var negative = false
        if text.first == "-" || text.first == "+" {
            negative = text.first == "-"
            text = text.dropFirst()
        }
        var radix = 10
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            radix = 16
            text = text.dropFirst(2)
        }
        guard !text.isEmpty, let magnitude = UInt64(text, radix: radix) else { return nil }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// "YYYY-MM-DDTHH:MM:SSZ" as seconds since 2001-01-01T00:00:00Z.
    static func date(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(b[index]) else { return nil }
                value = value * 10 + Int(b[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        // Days from civil (proleptic Gregorian), Howard Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let daysSince1970 = era * 146_097 + doe - 719_468
        let seconds = (daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second) - 978_307_200
        return Double(seconds)
    }

    /// Base64 with whitespace anywhere; padding optional at the end only.
    static func base64(_ text: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for c in text {
            let value: UInt32
            switch c {
            case 0x41...0x5A: value = UInt32(c - 0x41)
            case 0x61...0x7A: value = UInt32(c - 0x61 + 26)
            case 0x30...0x39: value = UInt32(c - 0x30 + 52)
            case 0x2B: value = 62
            case 0x2F: value = 63
            case 0x3D: padding += 1; continue
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard padding <= 2, bits < 6 else { return nil }
        return out
    }
}

private extension String {
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first ... last])
    }
}
