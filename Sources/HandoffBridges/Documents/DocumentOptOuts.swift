// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What the person opted out of, read from the settings file
/// (docs/agent.md §11, docs/documents.md §5): `[Documents] Exclude=PATH;…`
/// (folders), `[Documents] Elsewhere=true` (files outside home allowed),
/// and `[App ID] Documents=false` (that app's documents never offered).
/// An adapter over the key file as the lexer reads it, for the bridge
/// only: the engines' settings model does not know these keys yet.
public struct DocumentOptOuts: Sendable, Equatable {
    public var excluded: [String] = []
    public var elsewhere = false
    /// Bundle ids (desktop entry ids without `.desktop`) whose documents stay here.
    public var appsOff: Set<String> = []

    public init(excluded: [String] = [], elsewhere: Bool = false, appsOff: Set<String> = []) {
        self.excluded = excluded
        self.elsewhere = elsewhere
        self.appsOff = appsOff
    }

    static let kind = KeyFileParser.Kind(singular: "settings file", plural: "settings files", firstGroup: nil)

    /// The opt-outs in a settings file's bytes.
    /// - Throws: `.malformedData` when the file is not a key file.
    public static func read(_ bytes: [UInt8], source: String) throws(HandoffError) -> DocumentOptOuts {
        let limits = KeyFileParser.Limits(maxBytes: 64 << 10, maxLines: 4096, maxKeys: 2048, maxGroups: 512)
        let file = try KeyFileParser(source: source, kind: kind, limits: limits).parse(bytes)
        var out = DocumentOptOuts()
        if let documents = file.groups["Documents"] {
            if let exclude = documents["Exclude"] {
                out.excluded = list(exclude.text).filter { $0.hasPrefix("/") }
            }
            out.elsewhere = documents["Elsewhere"]?.text == "true"
        }
        for name in file.groupNames where name.hasPrefix("App ") {
            if file.groups[name]?["Documents"]?.text == "false" { out.appsOff.insert(String(name.dropFirst(4))) }
        }
        return out
    }

    /// A key file's list: `;`-separated, `\;` a literal semicolon, `\\` a backslash.
    static func list(_ text: Substring) -> [String] {
        var out: [String] = []
        var current = ""
        var escaped = false
        for c in text {
            if escaped {
                if c != ";" && c != "\\" { current.append("\\") }
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == ";" {
                if !current.isEmpty { out.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
