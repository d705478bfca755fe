// SPDX-License-Identifier: MIT OR Apache-2.0

/// Cuts a string to at most `limit` UTF-8 bytes: the longest run of whole
/// characters (extended grapheme clusters) from the start that fits, so
/// the cut never splits a character's bytes, nor a base from its
/// combining marks (docs/PROTOCOL.md §5 "Sending", §7: beacon titles,
/// ERROR messages; docs/history.md: what the history indexes).
public func truncateUTF8(_ s: String, to limit: Int) -> String {
    guard s.utf8.count > limit else { return s }
    var out = ""
    var bytes = 0
    for c in s {
        let n = c.utf8.count
        guard bytes + n <= limit else { break }
        out.append(c)
        bytes += n
    }
    return out
}
