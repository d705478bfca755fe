// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel

/// userInfo values as JSON. JSON has strings, numbers, booleans, null,
/// arrays and objects; the other userInfo kinds become one-key objects
/// (docs/cli.md): {"$data": base64}, {"$date": seconds since 1970},
/// {"$url": text}, {"$set": [members]}. Dictionary keys are sorted.
enum UserInfoJSON {
    static func json(_ info: UserInfo) -> JSON {
        var object = JSONObject()
        for key in info.keys.sorted() { object[key] = json(info[key]!) }
        return .object(object)
    }

    static func json(_ value: UserInfoValue) -> JSON {
        switch value {
        case .null: .null
        case .boolean(let b): .bool(b)
        case .integer(let i): .int(i)
        case .real(let d): .double(d)
        case .string(let s): .string(s)
        case .data(let d): ["$data": .string(Base64.encode(d))]
        case .date(let d): ["$date": .double(d.timeIntervalSince1970)]
        case .url(let u): ["$url": .string(u.absoluteString)]
        case .array(let items): .array(items.map(json))
        case .dictionary(let d): json(d)
        // A set has no order: members sorted by their JSON text, so the
        // output is the same every time.
        case .set(let members): ["$set": .array(members.map(json).sorted { $0.text < $1.text })]
        }
    }

    /// One line per entry, for people: `key = value`, the value as JSON.
    static func lines(_ info: UserInfo, indent: String) -> [String] {
        info.keys.sorted().map { "\(indent)\($0) = \(json(info[$0]!).text)" }
    }
}
