// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Decoding of desktop entry values by type (the spec's "Possible value
/// types"): escapes in strings, `;`-separated lists, locale matching.
enum DesktopEntryValues {
    /// Undoes `\s \n \t \r \\`; any other backslash sequence is an error
    /// (as in GLib). `failure` builds the error from a message.
    static func string(_ raw: Substring, failure: (String) -> HandoffError) throws(HandoffError) -> String {
        var result = ""
        result.reserveCapacity(raw.utf8.count)
        var escaped = false
        for character in raw.unicodeScalars {
            if escaped {
                guard let plain = unescape(character) else { throw failure(invalidEscape(character)) }
                result.unicodeScalars.append(plain)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.unicodeScalars.append(character)
            }
        }
        if escaped { throw failure("a lone backslash at the end; write \\\\ for one") }
        return result
    }

    /// Splits at each `;` not escaped as `\;`, undoing the string escapes
    /// in each element; a final `;` ends the list (no empty last element).
    static func list(_ raw: Substring, failure: (String) -> HandoffError) throws(HandoffError) -> [String] {
        var items: [String] = []
        var item = ""
        var escaped = false
        for character in raw.unicodeScalars {
            if escaped {
                if character == ";" {
                    item.unicodeScalars.append(";")
                } else if let plain = unescape(character) {
                    item.unicodeScalars.append(plain)
                } else {
                    throw failure(invalidEscape(character, inList: true))
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(item)
                item = ""
            } else {
                item.unicodeScalars.append(character)
            }
        }
        if escaped { throw failure("a lone backslash at the end; write \\\\ for one") }
        if !item.isEmpty { items.append(item) }
        return items
    }

    private static func unescape(_ c: Unicode.Scalar) -> Unicode.Scalar? {
        switch c {
        case "s": " "
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        case "\\": "\\"
        default: nil
        }
    }

    private static func invalidEscape(_ c: Unicode.Scalar, inList: Bool = false) -> String {
        "invalid escape \\\(c); the escapes are \\s \\n \\t \\r \\\\\(inList ? " and \\;" : "") (write \\\\ for a backslash)"
    }

    /// Locale suffixes to try, most specific first, for a POSIX locale name
    /// `lang_COUNTRY.ENCODING@MODIFIER` (the encoding is ignored); none for
    /// nil, "", "C" and "POSIX".
    static func localeCandidates(_ locale: String?) -> [String] {
        guard let locale, !locale.isEmpty, locale != "C", locale != "POSIX" else { return [] }
        var rest = Substring(locale)
        var modifier: Substring?
        if let at = rest.firstIndex(of: "@") {
            modifier = rest[rest.index(after: at)...]
            rest = rest[..<at]
        }
        if let dot = rest.firstIndex(of: ".") { rest = rest[..<dot] }
        var country: Substring?
        if let underscore = rest.firstIndex(of: "_") {
            country = rest[rest.index(after: underscore)...]
            rest = rest[..<underscore]
        }
        let lang = rest
        guard !lang.isEmpty else { return [] }
        var candidates: [String] = []
        if let country, let modifier { candidates.append("\(lang)_\(country)@\(modifier)") }
        if let country { candidates.append("\(lang)_\(country)") }
        if let modifier { candidates.append("\(lang)@\(modifier)") }
        candidates.append(String(lang))
        return candidates
    }
}
