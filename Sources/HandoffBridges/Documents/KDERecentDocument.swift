// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One file of KDE's `$XDG_DATA_HOME/RecentDocuments/` (KIO's
/// `KRecentDocument` before KDE Frameworks 5.93 wrote only these): a
/// desktop entry of `Type=Link` with `URL=` and `X-KDE-LastOpenedWith=`
/// (the program, e.g. `kate`). Read with the key-file lexer; the file's
/// modification time (the caller's stat) says when it was used.
public enum KDERecentDocument {
    public static let maxBytes = 16 << 10
    static let kind = KeyFileParser.Kind(singular: "KDE recent document", plural: "KDE recent documents",
                                         firstGroup: "Desktop Entry")

    /// A bookmark for it: the URL as `href` (as the file has it), the
    /// program as its only application (name and exec both the program).
    /// - Throws: `.malformedData` for a file that is not one.
    public static func read(_ bytes: [UInt8], source: String, modified: Double) throws(HandoffError) -> RecentBookmark {
        let limits = KeyFileParser.Limits(maxBytes: maxBytes, maxLines: 256, maxKeys: 256, maxGroups: 8)
        let file = try KeyFileParser(source: source, kind: kind, limits: limits).parse(bytes)
        let group = file.groups["Desktop Entry"] ?? [:]
        // KConfig writes URL[$e]= when the value holds $HOME-like text.
        guard let url = (group["URL"] ?? group["URL[$e]"]).map({ unescape($0.text) }), !url.isEmpty,
              url.utf8.count <= RecentlyUsedReader.maxURLBytes else {
            throw HandoffError(.malformedData, "\(source): no URL=")
        }
        var bookmark = RecentBookmark(href: url)
        bookmark.modified = modified
        if let program = group["X-KDE-LastOpenedWith"].map({ unescape($0.text) }), !program.isEmpty {
            bookmark.applications = [.init(name: program, exec: program, modified: modified)]
        }
        return bookmark
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
