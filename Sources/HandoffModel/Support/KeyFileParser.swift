// SPDX-License-Identifier: MIT OR Apache-2.0

/// Reads the lines of a key file into groups and keys (`KeyFile`).
///
/// The format (Desktop Entry Specification, "Basic format of the file"):
/// UTF-8 lines separated by LF; `#` comment lines and blank lines are
/// ignored; `[Group Name]` starts a group (any printable ASCII but `[` and
/// `]`); `Key=Value` lines belong to the group above them, keys are
/// `A-Za-z0-9-` with an optional `[locale]` suffix (`Name[de_DE@euro]`),
/// spaces around `=` are ignored. No group and no key may appear twice.
/// A kind of file may name the group that must come first
/// (`Kind.firstGroup`: desktop entries start with `[Desktop Entry]`).
///
/// Lenient where GLib is and the spec is silent: spaces and tabs before a
/// line's first character and at a value's end are dropped (`\s` keeps a
/// space). Strict elsewhere: control characters (CR included: a CRLF file
/// is refused with a message saying so) outside comments, invalid UTF-8 and
/// any line that fits none of the forms above are errors naming the line.
public struct KeyFileParser: Sendable {
    /// Bounds that keep a hostile file cheap: checked while reading.
    public struct Limits: Sendable, Equatable {
        /// Largest file, in bytes.
        public var maxBytes: Int
        public var maxLines: Int
        /// Keys in all groups together.
        public var maxKeys: Int
        public var maxGroups: Int

        public init(maxBytes: Int = 64 << 10, maxLines: Int = 4096, maxKeys: Int = 2048, maxGroups: Int = 64) {
            self.maxBytes = maxBytes
            self.maxLines = maxLines
            self.maxKeys = maxKeys
            self.maxGroups = maxGroups
        }

        public static let `default` = Limits()
    }

    /// What kind of key file is read: its name in messages, and the group
    /// it must start with (nil: any, and a file with no group is empty).
    public struct Kind: Sendable {
        public var singular: String
        public var plural: String
        public var firstGroup: String?

        public init(singular: String, plural: String, firstGroup: String?) {
            self.singular = singular
            self.plural = plural
            self.firstGroup = firstGroup
        }
    }

    let source: String
    let kind: Kind
    let limits: Limits

    public init(source: String, kind: Kind, limits: Limits = .default) {
        self.source = source
        self.kind = kind
        self.limits = limits
    }

    public func parse(_ bytes: [UInt8]) throws(HandoffError) -> KeyFile {
        guard bytes.count <= limits.maxBytes else {
            throw HandoffError(.malformedData, "\(source): \(bytes.count) bytes, over the \(limits.maxBytes)-byte limit for a \(kind.singular)")
        }
        var groupNames: [String] = []
        var groups: [String: [String: KeyFile.Value]] = [:]
        var current: String?
        var keyCount = 0
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            if lineNumber > limits.maxLines {
                throw failure(lineNumber, "more than \(limits.maxLines) lines")
            }
            let line = try text(bytes[start..<end], line: lineNumber)
            start = end + 1

            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            try refuseControlCharacters(trimmed, line: lineNumber)

            if trimmed.hasPrefix("[") {
                let name = try groupName(trimmed, line: lineNumber)
                if groupNames.isEmpty, let first = kind.firstGroup, name != first {
                    throw failure(lineNumber, "the first group is [\(name)]; a \(kind.singular) starts with [\(first)]")
                }
                guard groups[name] == nil else { throw failure(lineNumber, "group [\(name)] appears twice") }
                guard groupNames.count < limits.maxGroups else { throw failure(lineNumber, "more than \(limits.maxGroups) groups") }
                groupNames.append(name)
                groups[name] = [:]
                current = name
                continue
            }

            guard let equals = trimmed.firstIndex(of: "=") else {
                throw failure(lineNumber, "\(KeyFile.quoted(String(trimmed))) is neither a [group] header, a Key=Value line nor a # comment")
            }
            guard let group = current else {
                if let first = kind.firstGroup {
                    throw failure(lineNumber, "a key before the [\(first)] group; only comments may come first")
                }
                throw failure(lineNumber, "a key before any [group]; only comments may come first")
            }
            let key = String(trimmed[..<equals].reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            try checkKey(key, line: lineNumber)
            var value = trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
            guard groups[group]![key] == nil else {
                throw failure(lineNumber, "\(key) appears twice in [\(group)] (first on line \(groups[group]![key]!.line))")
            }
            keyCount += 1
            guard keyCount <= limits.maxKeys else { throw failure(lineNumber, "more than \(limits.maxKeys) keys") }
            groups[group]![key] = .init(text: value, line: lineNumber)
        }
        if groupNames.isEmpty, let first = kind.firstGroup {
            throw HandoffError(.malformedData, "\(source): no [\(first)] group; this is not a \(kind.singular)")
        }
        return KeyFile(source: source, groupNames: groupNames, groups: groups)
    }

    private func text(_ bytes: ArraySlice<UInt8>, line: Int) throws(HandoffError) -> Substring {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw failure(line, "not valid UTF-8; \(kind.plural) are UTF-8")
        }
        return Substring(text)
    }

    private func refuseControlCharacters(_ line: Substring, line number: Int) throws(HandoffError) {
        for byte in line.utf8 where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            if byte == 0x0D {
                throw failure(number, "a carriage return (CRLF line ends?); \(kind.plural) end lines with LF only")
            }
            throw failure(number, "control character 0x\(String(byte, radix: 16)); write \\n, \\t or \\r for one in a value")
        }
    }

    private func groupName(_ line: Substring, line number: Int) throws(HandoffError) -> String {
        var header = line
        while let last = header.last, last == " " || last == "\t" { header = header.dropLast() }
        guard header.count >= 2, header.hasSuffix("]") else {
            throw failure(number, "\(KeyFile.quoted(String(line))) starts a group header but does not end with ]")
        }
        let name = header.dropFirst().dropLast()
        guard !name.isEmpty else { throw failure(number, "an empty group name") }
        for byte in name.utf8 where byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte < 0x20 || byte > 0x7E {
            throw failure(number, "group name \(KeyFile.quoted(String(name))) may hold only printable ASCII without [ and ]")
        }
        return String(name)
    }

    /// `A-Za-z0-9-`, then optionally `[locale]` with a POSIX locale's
    /// characters (`lang_COUNTRY.ENCODING@MODIFIER`).
    private func checkKey(_ key: String, line: Int) throws(HandoffError) {
        let bytes = Array(key.utf8)
        var index = 0
        while index < bytes.count && Self.isKeyByte(bytes[index]) { index += 1 }
        var valid = index > 0
        if valid && index < bytes.count {
            let locale = bytes[(index + 1)...].dropLast()
            valid = bytes[index] == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]")
                && bytes.count >= index + 3 && locale.allSatisfy(Self.isLocaleByte)
        }
        guard valid else {
            throw failure(line, "key \(KeyFile.quoted(key)) is not A-Za-z0-9- with an optional [locale]")
        }
    }

    public static func isKeyByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
    }

    public static func isLocaleByte(_ b: UInt8) -> Bool {
        isKeyByte(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "@")
    }

    private func failure(_ line: Int, _ message: String) -> HandoffError {
        HandoffError(.malformedData, "\(source):\(line): \(message)")
    }
}
