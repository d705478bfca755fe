// SPDX-License-Identifier: MIT OR Apache-2.0

/// The named fields of a translatable text: `{name}`, a name of ASCII
/// letters, digits and "_" (docs/TRANSLATING.md). Any other brace is text.
enum PlaceholderFields {
    /// The field names `text` uses.
    static func names(in text: String) -> Set<String> {
        var names: Set<String> = []
        scan(text) { piece in if case .field(let name) = piece { names.insert(name) } }
        return names
    }

    /// `text` with each field replaced by its value, in one pass (a value
    /// that contains "{x}" stays as it is); nil when a field has no value.
    static func fill(_ text: String, _ values: [String: String]) -> String? {
        var out = ""
        var missing = false
        scan(text) { piece in
            switch piece {
            case .text(let s): out += s
            case .field(let name):
                if let value = values[name] { out += value } else { missing = true }
            }
        }
        return missing ? nil : out
    }

    private enum Piece {
        case text(Substring)
        case field(String)
    }

    private static func scan(_ text: String, _ body: (Piece) -> Void) {
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "}"), close > after,
                  rest[after..<close].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                body(.text(rest[...open]))
                rest = rest[after...]
                continue
            }
            body(.text(rest[..<open]))
            body(.field(String(rest[after..<close])))
            rest = rest[rest.index(after: close)...]
        }
        body(.text(rest))
    }
}
