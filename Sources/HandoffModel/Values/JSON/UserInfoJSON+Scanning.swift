// SPDX-License-Identifier: MIT OR Apache-2.0
/// What the reader and the writer share to go through text a word (eight
/// bytes) at a time, and to order dictionary keys without String's own
/// comparison (which was a tenth of the writing).
extension UserInfoJSON {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is a quote, a backslash or a control
    /// character (below 0x20): the bytes a JSON string cannot hold as they
    /// are. Exact (no byte is flagged wrongly, none missed): the classic
    /// "has a byte less than n" and "has a zero byte" tests, which hold for
    /// n up to 128.
    @inline(__always)
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        let control = (word &- ones &* 0x20) & ~word & highs
        let q = word ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & highs
        let b = word ^ (ones &* 0x5C)
        let backslash = (b &- ones) & ~b & highs
        return control | quote | backslash != 0
    }

    /// Whether any byte of `word` is not ASCII.
    @inline(__always)
    static func hasNonASCII(_ word: UInt64) -> Bool { word & highs != 0 }

    /// The order `entries` are written in: by key, as String's `<` orders
    /// them. For ASCII keys that is byte order, so the first 16 bytes of
    /// each are compared as two big-endian words, and only keys that agree
    /// on those are compared as Strings; with any non-ASCII key (where
    /// String's order is that of the canonical form) all are.
    static func keyOrder(_ entries: ContiguousArray<(key: String, value: UserInfoValue)>) -> [Int] {
        var ranks: [(high: UInt64, low: UInt64, index: Int)] = []
        ranks.reserveCapacity(entries.count)
        for i in entries.indices {
            guard let (high, low) = asciiPrefix(entries[i].key) else {
                return entries.indices.sorted { entries[$0].key < entries[$1].key }
            }
            ranks.append((high, low, i))
        }
        ranks.sort { a, b in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            return entries[a.index].key < entries[b.index].key
        }
        return ranks.map(\.index)
    }

    /// The first 16 bytes of an ASCII `key` as two big-endian words (zeros
    /// after its end); nil when the key is not all ASCII.
    private static func asciiPrefix(_ key: String) -> (UInt64, UInt64)? {
        var key = key
        return key.withUTF8 { bytes -> (UInt64, UInt64)? in
            var high: UInt64 = 0, low: UInt64 = 0, seen: UInt8 = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                seen |= b
                if i < 8 {
                    high |= UInt64(b) << (56 - 8 * UInt64(i))
                } else if i < 16 {
                    low |= UInt64(b) << (56 - 8 * UInt64(i - 8))
                }
            }
            return seen < 0x80 ? (high, low) : nil
        }
    }
}
