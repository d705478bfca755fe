// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Apple's deletion of saved activities (docs/history.md "Privacy"): the
/// app's entries in the device's history, which the agent keeps.
extension Application {
    /// Deletes what `selection` names of this app's saved activities
    /// (`deleteSavedUserActivities(withPersistentIdentifiers:)`,
    /// `deleteAllSavedUserActivities`). `completion` runs exactly once, on
    /// the main thread (in `dispatch`), after the history committed it;
    /// with 4609 when no agent keeps a history for this app (embedded
    /// mode, continuity not started, an older agent). An empty list of
    /// identifiers completes with success. Any thread.
    /// - Throws: `.invalidArgument` for more than 512 identifiers, or one
    ///   empty or over 4,096 bytes (then `completion` never runs).
    public func deleteSavedActivities(_ selection: SavedActivitySelection,
                                      completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) throws(HandoffError) {
        if case .identifiers(let ids) = selection {
            guard ids.count <= SavedActivitySelection.maxIdentifiers else {
                throw HandoffError(.invalidArgument,
                    "\(ids.count) persistent identifiers is more than the \(SavedActivitySelection.maxIdentifiers) one deletion takes: delete them in parts")
            }
            if let bad = ids.first(where: { $0.isEmpty || $0.utf8.count > SavedActivitySelection.maxIdentifierBytes }) {
                throw HandoffError(.invalidArgument,
                    "a persistent identifier is 1 to \(SavedActivitySelection.maxIdentifierBytes) bytes, not \(bad.utf8.count)")
            }
            if ids.isEmpty { return queue.post { completion(.success(())) } }
        }
        let queue = self.queue
        let onMainThread: @Sendable (Result<Void, HandoffError>) -> Void = { result in queue.post { completion(result) } }
        guard let service = continuity else { return onMainThread(.failure(SavedActivitySelection.noHistory)) }
        service.forgetSaved(selection, completion: onMainThread)
    }
}
