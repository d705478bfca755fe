// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Deleting this app's saved activities from the device's history (Apple's
/// `deleteSavedUserActivities(withPersistentIdentifiers:)` and
/// `deleteAllSavedUserActivities`; docs/history.md, Privacy). The history
/// is the agent's: the request goes there as FORGET.
extension Application {
    /// Deletes the entries with these persistent identifiers, of this
    /// app's team. `completion` runs exactly once, on the main thread
    /// (inside `queue.dispatch()`), after the history committed the
    /// deletion or with why not (`.connectionUnavailable` when continuity
    /// is not started, is embedded, or the agent keeps no history); it does
    /// not run if the application goes first. An empty list succeeds
    /// without asking anyone. Any thread.
    /// - Throws: `.invalidArgument` (completion not called) for more than
    ///   512 identifiers, or one empty or longer than 4,096 bytes.
    public func deleteSavedActivities(withPersistentIdentifiers identifiers: [String],
                                      completion: @escaping (Result<Void, HandoffError>) -> Void) throws(HandoffError) {
        try Self.validate(identifiers)
        if identifiers.isEmpty {
            let delivery = MainThreadOnly(completion)
            return queue.post { delivery.value(.success(())) }
        }
        forget(.identifiers(identifiers), completion)
    }

    /// Deletes every entry of this app's bundle; `completion` as for
    /// `deleteSavedActivities(withPersistentIdentifiers:completion:)`.
    public func deleteAllSavedActivities(completion: @escaping (Result<Void, HandoffError>) -> Void) {
        forget(.all, completion)
    }

    static func validate(_ identifiers: [String]) throws(HandoffError) {
        let most = SavedActivitySelection.maxIdentifiers, longest = SavedActivitySelection.maxIdentifierBytes
        guard identifiers.count <= most else {
            throw HandoffError(.invalidArgument, "\(identifiers.count) persistent identifiers: at most \(most) at a time")
        }
        for (i, id) in identifiers.enumerated() where id.utf8.isEmpty || id.utf8.count > longest {
            throw HandoffError(.invalidArgument, "persistent identifier \(i) is \(id.utf8.count) bytes: 1 to \(longest) are allowed")
        }
    }

    private func forget(_ selection: SavedActivitySelection,
                        _ completion: @escaping (Result<Void, HandoffError>) -> Void) {
        // The completion is the host's: it runs on the main thread only.
        let delivery = MainThreadOnly(completion)
        let deliver: @Sendable (Result<Void, HandoffError>) -> Void = { [weak self] result in
            self?.queue.post { delivery.value(result) }
        }
        guard let continuity else { return deliver(.failure(SavedActivitySelection.noHistory)) }
        continuity.forgetSaved(selection, completion: deliver)
    }
}
