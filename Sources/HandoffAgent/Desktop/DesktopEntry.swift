// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// A parsed desktop entry file (freedesktop Desktop Entry Specification):
/// its groups and their keys, values kept raw until read, so a bad escape
/// in a key nobody reads does not spoil the file (as GLib does).
///
/// Reading a value decodes it by the type the caller asks for (string,
/// list, boolean, locale string); a value that does not fit throws an error
/// that names the file and the line. Parsing rules and bounds:
/// `DesktopEntryParser`.
public struct DesktopEntry: Sendable {
    /// The group every desktop entry starts with.
    public static let mainGroup = "Desktop Entry"

    /// One `Key=Value` line: the value as written and where it was.
    typealias RawValue = KeyFile.Value

    /// Names the file in messages (its path, or what the caller passed).
    public let source: String
    /// Group names in file order; the first is always `Desktop Entry`.
    public let groupNames: [String]
    /// Keys of each group, full names including any `[locale]` suffix.
    let groups: [String: [String: RawValue]]

    init(source: String, groupNames: [String], groups: [String: [String: RawValue]]) {
        self.source = source
        self.groupNames = groupNames
        self.groups = groups
    }

    /// Parses the bytes of a desktop entry file. `source` names it in
    /// errors ("<source>:<line>: ...").
    /// - Throws: `.malformedData` for anything the specification does not
    ///   allow or over a bound (`DesktopEntryParser.Limits`).
    public init(bytes: [UInt8], source: String, limits: DesktopEntryParser.Limits = .default) throws(HandoffError) {
        self = try DesktopEntryParser(source: source, limits: limits).parse(bytes)
    }

    /// Reads and parses a file; files over `limits.maxBytes` are refused
    /// before they are read whole.
    /// - Throws: `.io` when it cannot be read, `.malformedData` as above.
    public init(path: String, limits: DesktopEntryParser.Limits = .default) throws(HandoffError) {
        let bytes = try BoundedFile.read(path, maxBytes: limits.maxBytes)
        try self.init(bytes: bytes, source: path, limits: limits)
    }

    /// True when the group has the key (exact name, e.g. `Name[de]`).
    public func has(_ key: String, in group: String = mainGroup) -> Bool {
        groups[group]?[key] != nil
    }

    /// All key names of a group (full names), sorted.
    public func keys(in group: String = mainGroup) -> [String] {
        (groups[group]?.keys).map { $0.sorted() } ?? []
    }

    /// The line a key is on, for messages; nil when absent.
    public func line(of key: String, in group: String = mainGroup) -> Int? {
        groups[group]?[key]?.line
    }

    /// A `string` (or `localestring` read without a locale) value, escapes
    /// undone: `\s \n \t \r \\`. Nil when absent.
    public func string(_ key: String, in group: String = mainGroup) throws(HandoffError) -> String? {
        guard let raw = groups[group]?[key] else { return nil }
        return try DesktopEntryValues.string(raw.text, failure: { failure(key, raw.line, $0) })
    }

    /// A list of strings (`a;b;c;`, `\;` for a literal semicolon, the last
    /// `;` optional), escapes undone in each. Nil when absent.
    public func strings(_ key: String, in group: String = mainGroup) throws(HandoffError) -> [String]? {
        guard let raw = groups[group]?[key] else { return nil }
        return try DesktopEntryValues.list(raw.text, failure: { failure(key, raw.line, $0) })
    }

    /// A `boolean`: exactly `true` or `false`. Nil when absent.
    public func boolean(_ key: String, in group: String = mainGroup) throws(HandoffError) -> Bool? {
        guard let raw = groups[group]?[key] else { return nil }
        switch raw.text {
        case "true": return true
        case "false": return false
        default:
            throw failure(key, raw.line, "\(Self.quoted(String(raw.text))) is not a boolean; write true or false")
        }
    }

    /// A `localestring` for a POSIX locale such as `de_DE.UTF-8@euro`:
    /// the spec's matching order `lang_COUNTRY@MODIFIER`, `lang_COUNTRY`,
    /// `lang@MODIFIER`, `lang`, then the key without a locale (the
    /// encoding part is ignored). Nil when none is present.
    public func localizedString(_ key: String, locale: String?, in group: String = mainGroup) throws(HandoffError) -> String? {
        try localizedString(key, locales: locale.map { [$0] } ?? [], in: group)
    }

    /// The same for a list of locales, most wanted first (GLib's language
    /// names, `XDGDataDirectories.languages`): each locale's candidates in
    /// turn, then the key without a locale.
    public func localizedString(_ key: String, locales: [String], in group: String = mainGroup) throws(HandoffError) -> String? {
        for locale in locales {
            for candidate in DesktopEntryValues.localeCandidates(locale) where has("\(key)[\(candidate)]", in: group) {
                return try string("\(key)[\(candidate)]", in: group)
            }
        }
        return try string(key, in: group)
    }

    /// An error for a key's value, naming file and line.
    func failure(_ key: String, _ line: Int, _ message: String) -> HandoffError {
        HandoffError(.malformedData, "\(source):\(line): \(key): \(message)")
    }

    static func quoted(_ text: String) -> String { KeyFile.quoted(text) }
}
