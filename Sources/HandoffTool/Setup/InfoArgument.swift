// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// `--info KEY=VALUE` of publish: a userInfo entry. The value is a string
/// unless the key ends in a type: `KEY:int=3`, `KEY:real=0.5`,
/// `KEY:bool=true`, `KEY:url=https://...`, `KEY:null=`, `KEY:string=...`.
enum InfoArgument {
    static let types = ["string", "int", "real", "bool", "url", "null"]

    static func parse(_ text: String, _ arguments: ParsedArguments) throws(UsageError) -> (String, UserInfoValue) {
        guard let equals = text.firstIndex(of: "=") else {
            throw arguments.usage("--info \"\(text)\" is not KEY=VALUE")
        }
        var key = String(text[..<equals])
        let raw = String(text[text.index(after: equals)...])
        var type = "string"
        if let colon = key.lastIndex(of: ":"), types.contains(String(key[key.index(after: colon)...])) {
            type = String(key[key.index(after: colon)...])
            key = String(key[..<colon])
        }
        guard !key.isEmpty else { throw arguments.usage("--info \"\(text)\" has an empty key") }
        func bad(_ what: String) -> UsageError {
            arguments.usage("--info \(key): \"\(raw)\" is not \(what)")
        }
        switch type {
        case "int":
            guard let value = Int64(raw) else { throw bad("an integer") }
            return (key, .integer(value))
        case "real":
            guard let value = Double(raw), value.isFinite else { throw bad("a finite real number") }
            return (key, .real(value))
        case "bool":
            switch raw {
            case "true", "yes", "1": return (key, .boolean(true))
            case "false", "no", "0": return (key, .boolean(false))
            default: throw bad("true or false")
            }
        case "url":
            guard let url = URLReference(string: raw), url.scheme != nil else { throw bad("an absolute URL") }
            return (key, .url(url))
        case "null":
            guard raw.isEmpty else { throw bad("empty (write KEY:null=)") }
            return (key, .null)
        default:
            return (key, .string(raw))
        }
    }
}
