// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One file of KDE's `$XDG_DATA_HOME/RecentDocuments/` (KIO's
/// `KRecentDocument` writes one per document, besides its bookmark in
/// `recently-used.xbel` in current releases, and only these in older ones): a
/// desktop entry of `Type=Link` with `URL=` and `X-KDE-LastOpenedWith=`
/// (the program, e.g. `kate`). Read with the key-file lexer; the file's
/// modification time (the caller's stat) says when it was used.
public enum KDERecentDocument {
    public static let maxBytes = 16 << 10
    static let kind = KeyFileParser.Kind(singular: "KDE recent document", plural: "KDE recent documents",
                                         firstGroup: "Desktop Entry")

    /// A bookmark for it: the URL as `href` (as the file has it), the
    /// program as its only application (name and exec both the program).
    /// KConfig writes the URL as a path entry, `URL[$e]=file:$HOME/…`
    /// (`$e`: expand variables); `$HOME` is expanded to `home`, the one
    /// variable it writes.
    /// - Throws: `.malformedData` for a file that is not one.
    public static func read(_ bytes: [UInt8], source: String, modified: Double, home: String) throws(HandoffError) -> RecentBookmark {
        let limits = KeyFileParser.Limits(maxBytes: maxBytes, maxLines: 256, maxKeys: 256, maxGroups: 8)
        let file = try KeyFileParser(source: source, kind: kind, limits: limits).parse(withoutKConfigFlags(bytes))
        let group = file.groups["Desktop Entry"] ?? [:]
        guard var url = group["URL"].map({ unescape($0.text) }), !url.isEmpty else {
            throw HandoffError(.malformedData, "\(source): no URL=")
        }
        if url.hasPrefix("file:$HOME/") { url = MPRISURLRules.fileURL(home) + url.dropFirst("file:$HOME".count) }
        guard url.utf8.count <= RecentlyUsedReader.maxURLBytes else { throw HandoffError(.malformedData, "\(source): URL too long") }
        var bookmark = RecentBookmark(href: url)
        bookmark.modified = modified
        if let program = group["X-KDE-LastOpenedWith"].map({ unescape($0.text) }), !program.isEmpty {
            bookmark.applications = [.init(name: program, exec: program, modified: modified)]
        }
        return bookmark
    }

    /// The bytes with KConfig's key flags (`Key[$e]=`, `[$i]`) dropped:
    /// they are no locale, and the lexer reads `[…]` after a key as one.
    static func withoutKConfigFlags(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "["), index + 3 < bytes.count, bytes[index + 1] == UInt8(ascii: "$"),
               bytes[index + 3] == UInt8(ascii: "]"), index > 0, bytes[index - 1] != 0x0A {
                index += 4
                continue
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    /// The key file's escapes (`\s \n \t \r \\`); others kept as written.
    static func unescape(_ text: Substring) -> String {
        var out = ""
        var escaped = false
        for c in text {
            if escaped {
                switch c {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "\\": out.append("\\")
                default: out.append("\\"); out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        if escaped { out.append("\\") }
        return out
    }
}
