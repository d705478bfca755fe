// SPDX-License-Identifier: MIT OR Apache-2.0

/// Which document the bridge offers (docs/documents.md §7): of the apps
/// that are still running, the one that registered a document last, and
/// that app's newest document. An app whose newest document may not be
/// offered (private, excluded, under /tmp…) offers nothing: an older
/// document of it is not what the person is working on.
public enum DocumentChoice {
    public enum Outcome: Sendable, Equatable {
        case offer(RecentBookmark, DocumentAppMatch.Entry, path: String)
        /// Nothing to offer, and why (the newest reason first).
        case nothing(String)
    }

    /// - Parameters:
    ///   - bookmarks: newest first (`RecentlyUsedReader`'s order).
    ///   - entry: the installed entry of a bookmark's app, if any.
    ///   - isRunning: whether a process of the person's runs the entry's program.
    ///   - check: the file's path when it may be offered, else why not.
    public static func choose(_ bookmarks: [RecentBookmark],
                              entry: (RecentBookmark.Application) -> DocumentAppMatch.Entry?,
                              isRunning: (DocumentAppMatch.Entry) -> Bool,
                              check: (RecentBookmark, DocumentAppMatch.Entry) -> Result<String, Refusal>) -> Outcome {
        var seen: Set<String> = []
        var reasons: [String] = []
        for bookmark in bookmarks {
            guard let application = bookmark.newestApplication else { continue }
            guard let found = entry(application) else {
                if reasons.count < 4 { reasons.append("no installed app runs \(application.name)") }
                continue
            }
            guard seen.insert(found.id).inserted else { continue }
            guard isRunning(found) else {
                if reasons.count < 4 { reasons.append("\(found.id) is not running") }
                continue
            }
            switch check(bookmark, found) {
            case .success(let path):
                return .offer(bookmark, found, path: path)
            case .failure(let refusal):
                if reasons.count < 4 { reasons.append("\(found.id): \(refusal.reason)") }
            }
        }
        return .nothing(reasons.first ?? "no recently used document")
    }

    public struct Refusal: Error, Sendable, Equatable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }
}
