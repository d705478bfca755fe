// SPDX-License-Identifier: MIT OR Apache-2.0

/// What the history may search of an activity (docs/history.md, "What is
/// indexed"): its title, keywords and the strings under its searchable
/// userInfo keys, each bounded. Data, numbers, dates, booleans and URLs
/// are never taken, nor keys the activity does not list.
public struct SearchableText: Sendable, Equatable {
    public static let maxTitle = 1024
    public static let maxKeywords = 64
    public static let maxKeywordBytes = 4096
    public static let maxContentBytes = 8192

    /// The title, cut to `maxTitle` bytes ("" when none).
    public var title: String
    /// Sorted, at most `maxKeywords` of them and `maxKeywordBytes` in all.
    public var keywords: [String]
    /// The searchable userInfo strings, in order: listed keys sorted, each
    /// value depth first with dictionary keys sorted; at most
    /// `maxContentBytes` in all (a string that would pass it is cut).
    public var content: [String]

    public init(_ s: ActivityState) {
        title = truncateUTF8(s.title ?? "", to: Self.maxTitle)
        var keywords: [String] = []
        var keywordBytes = 0
        for k in s.keywords.sorted() where keywords.count < Self.maxKeywords {
            guard keywordBytes + k.utf8.count <= Self.maxKeywordBytes else { break }
            keywords.append(k)
            keywordBytes += k.utf8.count
        }
        self.keywords = keywords
        var collector = Collector(room: Self.maxContentBytes)
        for key in s.searchableUserInfoKeys.sorted() {
            guard let value = s.userInfo[key] else { continue }
            collector.take(value, depth: 0)
        }
        content = collector.strings
    }

    private struct Collector {
        var room: Int
        var strings: [String] = []

        mutating func take(_ value: UserInfoValue, depth: Int) {
            // userInfo is at most 8 levels deep (DecodingLimits); the bound
            // here keeps this walk safe for any value handed to it.
            guard room > 0, depth < 16 else { return }
            switch value {
            case .string(let s):
                guard !s.isEmpty else { return }
                let cut = truncateUTF8(s, to: room)
                guard !cut.isEmpty else { return room = 0 }
                strings.append(cut)
                room -= cut.utf8.count
            case .array(let items):
                for item in items { take(item, depth: depth + 1) }
            case .set(let items):
                // A set has no order: its strings sorted, for the same text each time.
                let texts = items.compactMap { v -> String? in if case .string(let s) = v { return s } else { return nil } }
                for s in texts.sorted() { take(.string(s), depth: depth + 1) }
            case .dictionary(let d):
                for key in d.keys.sorted() { take(d[key]!, depth: depth + 1) }
            case .null, .boolean, .integer, .real, .data, .date, .url:
                return
            }
        }
    }
}
