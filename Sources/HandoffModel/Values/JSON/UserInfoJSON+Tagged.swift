// SPDX-License-Identifier: MIT OR Apache-2.0
extension UserInfoJSON {
    /// Reads the tagged form back (`encodeTagged`'s output; what a script
    /// hands `handoff session`): the JSON is read as `decode` reads it, then
    /// each one-key object `{"$data": base64}`, `{"$date": seconds since
    /// 1970}`, `{"$url": text}`, `{"$set": [members]}` becomes that kind.
    /// A dictionary whose only key is one of those four reads as the kind
    /// (the form cannot tell them apart; `encodeTagged` writes both alike).
    /// Throws `.malformedData` for a tag with the wrong value (not base64,
    /// not a number, not a URL, not an array) or anything `decode` refuses.
    public static func decodeTagged(_ text: [UInt8]) throws(HandoffError) -> UserInfoValue {
        try untagged(decode(text))
    }

    /// `value` with its tagged one-key objects made the kinds they stand for.
    public static func untagged(_ value: UserInfoValue) throws(HandoffError) -> UserInfoValue {
        switch value {
        case .array(let items):
            var out: [UserInfoValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try untagged(item)) }
            return .array(out)
        case .dictionary(let entries):
            if entries.count == 1, let (key, inner) = entries.first, key.hasPrefix("$"),
               let kind = try tag(key, inner) {
                return kind
            }
            var out: [String: UserInfoValue] = [:]
            out.reserveCapacity(entries.count)
            for (key, inner) in entries { out[key] = try untagged(inner) }
            return .dictionary(out)
        default:
            return value
        }
    }

    /// The kind `{"key": value}` stands for; nil when `key` is no tag.
    private static func tag(_ key: String, _ value: UserInfoValue) throws(HandoffError) -> UserInfoValue? {
        func refuse(_ what: String) -> HandoffError {
            HandoffError(.malformedData, "not userInfo JSON: \(key) takes \(what)")
        }
        switch key {
        case "$data":
            guard case .string(let text) = value, let bytes = base64Decoded(text) else { throw refuse("base64 text") }
            return .data(bytes)
        case "$date":
            switch value {
            case .integer(let seconds): return .date(Timestamp(timeIntervalSince1970: Double(seconds)))
            case .real(let seconds) where seconds.isFinite: return .date(Timestamp(timeIntervalSince1970: seconds))
            default: throw refuse("seconds since 1970")
            }
        case "$url":
            guard case .string(let text) = value, let url = URLReference(string: text) else { throw refuse("a URL") }
            return .url(url)
        case "$set":
            guard case .array(let members) = value else { throw refuse("an array") }
            var set = Set<UserInfoValue>()
            for member in members { set.insert(try untagged(member)) }
            return .set(set)
        default:
            return nil
        }
    }
}
