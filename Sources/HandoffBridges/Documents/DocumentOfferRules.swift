// SPDX-License-Identifier: MIT OR Apache-2.0

/// What the documents bridge never offers (docs/documents.md §2, §7), as
/// a pure rule over paths; the caller resolves the path (`realpath`) and
/// checks it is a regular file. A refusal says why, for the log and
/// `doctor`.
public struct DocumentOfferRules: Sendable, Equatable {
    /// Folders whose files are never offered: scratch space and kernel
    /// views, plus `$XDG_RUNTIME_DIR` (added by `init`).
    public static let neverUnder = ["/tmp", "/var/tmp", "/proc", "/sys", "/dev"]

    public var home: String
    public var runtimeDirectory: String?
    /// Folders the person excluded (`[Documents] Exclude`), absolute.
    public var excluded: [String]
    /// Files outside home may be offered (`--elsewhere`, `[Documents] Elsewhere=true`).
    public var elsewhere: Bool

    public init(home: String, runtimeDirectory: String?, excluded: [String] = [], elsewhere: Bool = false) {
        self.home = home
        self.runtimeDirectory = runtimeDirectory
        self.excluded = excluded
        self.elsewhere = elsewhere
    }

    /// The local path a bookmark's `href` names: `file:` URLs without a
    /// host (or `localhost`), percent-decoded; nil for anything else.
    public static func localPath(_ href: String) -> String? {
        guard href.utf8.count <= RecentlyUsedReader.maxURLBytes,
              href.lowercased().hasPrefix("file:"), let path = MPRISURLRules.filePath("file:" + href.dropFirst(5))
        else { return nil }
        return path
    }

    /// True when `path` is `folder` or below it (whole components).
    public static func isUnder(_ path: String, _ folder: String) -> Bool {
        let base = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        guard base.hasPrefix("/") else { return false }
        if base == "/" { return true }
        return path == base || path.hasPrefix(base + "/")
    }

    /// Why `path` (as the bookmark names it) resolved to `resolved` may not
    /// be offered; nil when it may. Both are checked against the folders
    /// never offered and the excluded ones; `resolved` decides "home".
    public func refusal(path: String, resolved: String, isPrivate: Bool) -> String? {
        if isPrivate { return "\(path) is marked private" }
        for candidate in [path, resolved] {
            guard candidate.hasPrefix("/"), !candidate.contains("\0") else { return "\(candidate) is not an absolute path" }
            for segment in candidate.split(separator: "/") where segment == "." || segment == ".." {
                return "\(candidate) holds a \(segment) segment"
            }
            let never = Self.neverUnder + (runtimeDirectory.map { [$0] } ?? [])
            if let folder = never.first(where: { Self.isUnder(candidate, $0) }) {
                return "\(candidate) is under \(folder), which is never offered"
            }
            if let folder = excluded.first(where: { Self.isUnder(candidate, $0) }) {
                return "\(candidate) is under \(folder), which you excluded"
            }
        }
        if !elsewhere, !Self.isUnder(resolved, home) || resolved == home {
            return "\(resolved) is not under the home directory (run with --elsewhere to offer it)"
        }
        return nil
    }
}
