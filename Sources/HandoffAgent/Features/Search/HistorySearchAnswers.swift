// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// What both desktop providers answer, whatever their wire
/// (docs/history.md "Searching from the desktop"): results for what was
/// typed, their metas, and continuing one. Bounded: at most
/// `maxResults` results, `maxTerms` terms of at most `maxTermBytes` each,
/// `maxIDs` ids a call; an id the index no longer has is left out.
/// Loop thread.
struct HistorySearchAnswers {
    static let maxResults = 20
    static let maxTerms = 32
    static let maxTermBytes = 256
    static let maxIDs = 50

    unowned let backend: HistorySearchBackend
    let log: (String) -> Void
    var now: () -> Int64 = { Int64(wallMilliseconds()) }

    /// The result ids for `terms` (GNOME's terms, or KRunner's query split
    /// at white space), best first.
    func resultIDs(_ terms: [String]) -> [String] {
        entries(terms).map(\.resultID)
    }

    func entries(_ terms: [String]) -> [HistoryEntry] {
        let query = terms.prefix(Self.maxTerms).map { truncateUTF8($0, to: Self.maxTermBytes) }.joined(separator: " ")
        return backend.searchHistory(query, limit: Self.maxResults)
    }

    /// `previous` narrowed to those still matching `terms`, in the new order.
    func narrowed(_ previous: [String], _ terms: [String]) -> [String] {
        let kept = Set(previous.prefix(Self.maxIDs))
        return resultIDs(terms).filter { kept.contains($0) }
    }

    /// The results of these ids that still exist, in the order asked.
    func metas(_ ids: [String]) -> [SearchResult] {
        let numbers = ids.prefix(Self.maxIDs).compactMap(HistoryEntry.number(ofResult:))
        return results(backend.historyEntries(numbers))
    }

    func results(_ entries: [HistoryEntry]) -> [SearchResult] {
        let now = now()
        return entries.map { SearchResult($0, app: backend.appLabel(for: $0), nowMilliseconds: now) }
    }

    /// Continues the entry `id` names; an id that names none, or an entry
    /// gone, does nothing (logged).
    func activate(_ id: String, activationToken: String?) {
        guard let number = HistoryEntry.number(ofResult: id) else {
            log("search: \(truncateUTF8(id, to: 64)) is no history result: ignored")
            return
        }
        if case .failure(let error) = backend.continueHistoryEntry(number, activationToken: activationToken) {
            log("search: entry \(number) not continued: \(error.message)")
        }
    }
}
