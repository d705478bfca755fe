// SPDX-License-Identifier: MIT OR Apache-2.0

/// What a userInfo may hold beyond its value types, checked whenever a
/// userInfo is set, merged or decoded, so a refused value never gets in.
public enum UserInfoRules {
    /// Deepest nesting of containers (arrays, dictionaries, sets) allowed.
    /// Handoff payloads stay under 3 KB; real ones nest a few levels.
    public static let maxDepth = 16

    /// The dictionary key that tags null, set and URL in the property-list
    /// encoding (see docs/PROTOCOL.md); a userInfo dictionary may not use it.
    public static let classKey = "$class"

    /// The userInfo's canonical encoding (`UserInfoCoding.encode`, no object
    /// shared; docs/PROTOCOL.md §1–§2) must stay within this many bytes
    /// (Apple: 3 KB); above it a handoff fails with `HandoffUserInfoTooLarge`
    /// (4611). Sender and receiver measure the same encoding, so what one
    /// sends the other accepts, whatever sharing the bytes on the wire use.
    public static let payloadBudget = 3072

    /// Throws 4611 when a canonical size is over the budget.
    public static func checkBudget(_ size: Int) throws(HandoffError) {
        if size > payloadBudget { throw overBudget(size) }
    }

    static func overBudget(_ size: Int) -> HandoffError {
        HandoffError(.userInfoTooLarge,
            "encoded userInfo is \(size) bytes, over the \(payloadBudget)-byte Handoff budget (measured written without shared objects, docs/PROTOCOL.md §2); keep identifiers in userInfo and move bulk data to continuation streams")
    }

    /// For a userInfo refused while it was being read: its exact size is
    /// unknown, only that it is at least `size`.
    static func overBudget(atLeast size: Int) -> HandoffError {
        HandoffError(.userInfoTooLarge,
            "encoded userInfo is more than \(size - 1) bytes, over the \(payloadBudget)-byte Handoff budget (measured written without shared objects, docs/PROTOCOL.md §2); keep identifiers in userInfo and move bulk data to continuation streams")
    }

    /// Throws `.invalidValue` for what no userInfo may contain.
    public static func check(_ userInfo: UserInfo) throws(HandoffError) {
        try check(dictionary: userInfo, path: .root("userInfo"), depth: 1)
    }

    /// Checks a single value as it would sit inside a userInfo.
    public static func check(_ value: UserInfoValue, path: String = "value") throws(HandoffError) {
        try check(value, path: .root(path), depth: 0)
    }

    /// Where a value sits, written out only when a refusal names it: every
    /// value is checked on each set and decode, and formatting a path for
    /// each cost more than the check.
    private indirect enum Path {
        case root(String)
        case index(Path, Int)
        case member(Path)
        case key(Path, String)

        var text: String {
            switch self {
            case .root(let name): name
            case .index(let parent, let i): "\(parent.text)[\(i)]"
            case .member(let parent): "\(parent.text){member}"
            case .key(let parent, let key): "\(parent.text)[\"\(key)\"]"
            }
        }
    }

    private static func check(_ value: UserInfoValue, path: Path, depth: Int) throws(HandoffError) {
        switch value {
        case .null, .boolean, .integer, .real, .string, .data:
            return
        case .date(let date):
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw HandoffError(.invalidValue, "\(path.text): a date must be a finite point in time")
            }
        case .url(let url):
            guard url.scheme != nil else {
                throw HandoffError(.invalidValue,
                    "\(path.text): URL \(Identifier.quoted(url.absoluteString)) has no scheme; use an absolute URL such as https://example.com/a")
            }
        case .array(let items):
            try checkDepth(depth + 1, path)
            for (i, item) in items.enumerated() {
                try check(item, path: .index(path, i), depth: depth + 1)
            }
        case .set(let members):
            try checkDepth(depth + 1, path)
            for member in members {
                try check(member, path: .member(path), depth: depth + 1)
            }
        case .dictionary(let dict):
            try check(dictionary: dict, path: path, depth: depth + 1)
        }
    }

    private static func check(dictionary: UserInfo, path: Path, depth: Int) throws(HandoffError) {
        try checkDepth(depth, path)
        if dictionary[classKey] != nil {
            throw HandoffError(.invalidValue,
                "\(path.text): the key \"\(classKey)\" is reserved for the encoding of null, set and URL values; use another key")
        }
        for (key, item) in dictionary {
            try check(item, path: .key(path, key), depth: depth)
        }
    }

    private static func checkDepth(_ depth: Int, _ path: Path) throws(HandoffError) {
        if depth > maxDepth {
            throw HandoffError(.invalidValue,
                "\(path.text): containers nest deeper than \(maxDepth) levels; flatten the userInfo")
        }
    }
}
