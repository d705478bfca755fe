// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// What the desktop's search asks of the agent (the seam `AgentSearch`
/// serves from; the server is the real one, a test gives its own). Loop
/// thread.
protocol HistorySearchBackend: AnyObject {
    /// The entries matching what was typed, best first (at most `limit`).
    func searchHistory(_ query: String, limit: Int) -> [HistoryEntry]
    /// The entries with these numbers that still exist, in that order.
    func historyEntries(_ ids: [Int64]) -> [HistoryEntry]
    /// How a person knows the entry's app, for a result's name and icon
    /// (`InstalledApps.label`); nil: no desktop entry is known.
    func appLabel(for entry: HistoryEntry) -> AppLabel?
    /// Continues entry `id` as a handoff from the past.
    func continueHistoryEntry(_ id: Int64, activationToken: String?) -> Result<ContinueChoice, HandoffError>
}

extension AgentServer: HistorySearchBackend {
    func searchHistory(_ query: String, limit: Int) -> [HistoryEntry] {
        history?.search(query, limit: limit) ?? []
    }

    func historyEntries(_ ids: [Int64]) -> [HistoryEntry] {
        history?.entries(ids) ?? []
    }

    func appLabel(for entry: HistoryEntry) -> AppLabel? {
        routing.appLabel(bundle: entry.bundle, team: entry.team, type: entry.activityType)
    }
}
