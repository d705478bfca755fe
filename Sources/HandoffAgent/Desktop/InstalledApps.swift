// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The installed apps that can continue activities (docs/agent.md §5),
/// found in the XDG data directories: desktop entries with
/// `X-Handoff-ActivityTypes` / `X-Handoff-TeamIdentifier`, and manifests in
/// `<data dir>/handoff/` naming a desktop entry.
///
/// `rescan()` looks again (the agent calls it before it launches); files
/// whose stat(2) stamp (device, inode, size, mtime, ctime) is unchanged are
/// not read again, so a rescan costs a directory walk and a stat per file.
/// Only files containing the bytes `X-Handoff-` are parsed as desktop
/// entries unless a manifest names them: the rest are not Handoff apps,
/// and their mistakes are not ours to report.
///
/// Not thread-safe: owned by the agent's loop.
public struct InstalledApps: Sendable {
    public static let activityTypesKey = "X-Handoff-ActivityTypes"
    /// The web domains the app opens (docs/agent.md §13).
    public static let webDomainsKey = "X-Handoff-WebDomains"
    public static let teamIdentifierKey = "X-Handoff-TeamIdentifier"
    public static let bundleIdentifierKey = "X-Handoff-BundleIdentifier"
    /// The activity type of the documents the app opens (its `MimeType=`):
    /// continuable as if listed in `X-Handoff-ActivityTypes` (Apple's
    /// `NSUbiquitousDocumentUserActivityType`; docs/documents.md §6).
    public static let documentActivityTypeKey = "X-Handoff-Document-Activity-Type"

    public private(set) var directories: XDGDataDirectories
    /// Apps in precedence order: data directory of their entry, then
    /// desktop-file id (bytewise). One per bundle identifier.
    public private(set) var apps: [InstalledApp] = []
    /// What the last scan skipped and why, each naming the file (and line).
    public private(set) var warnings: [String] = []
    /// Desktop entries of the last scan that declare nothing for Handoff
    /// (no `X-Handoff-*` keys, no manifest), by desktop id: to say clearly
    /// why an app named like the sender's bundle id is not asked.
    public private(set) var undeclared: [String: String] = [:]

    private var entryCache: [String: CachedEntry] = [:]
    private var manifestCache: [String: CachedManifest] = [:]

    private struct CachedEntry: Sendable {
        var stamp: FileStamp
        var mentionsHandoff: Bool
        var parsed: Result<DesktopEntry, HandoffError>?
    }

    private struct CachedManifest: Sendable {
        var stamp: FileStamp
        var result: Result<HandoffManifestFile, HandoffError>
    }

    /// Scans once. `directories` defaults to the process's environment.
    public init(directories: XDGDataDirectories = .current()) {
        self.directories = directories
        rescan()
    }

    /// Looks at the data directories again (and at new ones, when given).
    /// - Returns: the warnings this scan has that the previous one did not,
    ///   so the agent says each once.
    @discardableResult
    public mutating func rescan(directories newDirectories: XDGDataDirectories? = nil) -> [String] {
        if let newDirectories { directories = newDirectories }
        let previous = Set(warnings)
        var scan = InstalledAppBuilder(directories: directories)
        let files = DesktopFileScanner(directories: directories.directories)
        scan.warnings += files.warnings

        var oldEntries = entryCache
        entryCache = [:]
        func entry(_ found: DesktopFileScanner.Found, parse: Bool) -> Result<DesktopEntry, HandoffError>? {
            var cached = oldEntries[found.path].flatMap { $0.stamp == found.stamp ? $0 : nil }
            if cached == nil {
                switch Result(catching: { () throws(HandoffError) in try BoundedFile.read(found.path, maxBytes: DesktopEntryParser.Limits.default.maxBytes) }) {
                case .success(let bytes):
                    let mentions = Self.contains(bytes, Self.marker)
                    cached = CachedEntry(stamp: found.stamp, mentionsHandoff: mentions,
                                         parsed: mentions || parse ? Self.parse(bytes, found.path) : nil)
                case .failure(let error):
                    cached = CachedEntry(stamp: found.stamp, mentionsHandoff: true, parsed: .failure(error))
                }
            } else if cached!.parsed == nil && parse {
                cached!.parsed = Result { () throws(HandoffError) in try DesktopEntry(path: found.path) }
            }
            oldEntries[found.path] = cached
            entryCache[found.path] = cached
            return (cached!.mentionsHandoff || parse) ? cached!.parsed : nil
        }

        // Manifests first: an app with one is described by it.
        var claimed: Set<String> = []
        let (manifests, manifestWarnings) = readManifests()
        scan.warnings += manifestWarnings
        for manifest in manifests {
            guard let found = files.byID[manifest.desktopID] else {
                scan.warnings.append("\(manifest.path): \(HandoffManifestFile.desktopEntryKey) names \(manifest.desktopID), which is in no applications folder of \(directories.directories.joined(separator: ":"))")
                continue
            }
            claimed.insert(found.id)
            switch entry(found, parse: true)! {
            case .failure(let error): scan.warnings.append(error.message)
            case .success(let parsed): scan.add(found, parsed, manifest: manifest)
            }
        }
        var undeclared: [String: String] = [:]
        for found in files.ordered where !claimed.contains(found.id) {
            switch entry(found, parse: false) {
            case nil:
                if undeclared[found.id] == nil { undeclared[found.id] = found.path }
                continue
            case .failure(let error)?: scan.warnings.append(error.message)
            case .success(let parsed)?: scan.add(found, parsed, manifest: nil)
            }
        }

        apps = scan.apps.sorted {
            $0.dataDirectoryIndex != $1.dataDirectoryIndex
                ? $0.dataDirectoryIndex < $1.dataDirectoryIndex
                : $0.desktopID.utf8.lexicographicallyPrecedes($1.desktopID.utf8)
        }
        warnings = scan.warnings
        self.undeclared = undeclared
        return warnings.filter { !previous.contains($0) }
    }

    /// The apps that may continue an activity of `type` from `team`, in the
    /// order the agent tries them: the app whose bundle identifier is
    /// `preferring` first (on Apple's systems the same app is preferred,
    /// then others of its team), then precedence order (`apps`).
    public func apps(continuing team: String, type: String, preferring bundle: String? = nil) -> [InstalledApp] {
        let candidates = apps.filter { $0.canContinue(team: team, type: type) }
        guard let bundle else { return candidates }
        let same = candidates.filter { $0.bundleIdentifier.utf8.elementsEqual(bundle.utf8) }
        return same + candidates.filter { !$0.bundleIdentifier.utf8.elementsEqual(bundle.utf8) }
    }

    /// The app with this bundle identifier, if installed.
    public func app(bundleIdentifier: String) -> InstalledApp? {
        apps.first { $0.bundleIdentifier.utf8.elementsEqual(bundleIdentifier.utf8) }
    }

    // MARK: - Reading

    private static let marker = Array("X-Handoff-".utf8)

    private static func parse(_ bytes: [UInt8], _ path: String) -> Result<DesktopEntry, HandoffError> {
        Result { () throws(HandoffError) in try DesktopEntry(bytes: bytes, source: path) }
    }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count, let first = needle.first else { return false }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    /// Manifests by bundle id, first data directory winning, and what was
    /// wrong with the others.
    private mutating func readManifests() -> ([HandoffManifestFile], [String]) {
        var result: [HandoffManifestFile] = []
        var seen: Set<String> = []
        var old = manifestCache
        manifestCache = [:]
        var problems: [String] = []
        for directory in directories.directories {
            let folder = directory + "/handoff"
            guard let names = DesktopFileScanner.list(folder) else { continue }
            for name in names.prefix(HandoffManifestFile.maxFiles) where name.hasSuffix(".plist") && !seen.contains(name) {
                let path = folder + "/" + name
                guard let stamp = FileStamp.regularFile(path) else { continue }
                seen.insert(name)
                let cached = old[path].flatMap { $0.stamp == stamp ? $0 : nil }
                    ?? CachedManifest(stamp: stamp, result: Result { () throws(HandoffError) in try HandoffManifestFile(path: path) })
                old[path] = nil
                manifestCache[path] = cached
                switch cached.result {
                case .success(let manifest):
                    result.append(manifest)
                    problems += manifest.manifest.warnings.map { "\(path): \($0.hasPrefix("Info.plist: ") ? String($0.dropFirst(12)) : $0)" }
                case .failure(let error):
                    problems.append(error.message)
                }
            }
        }
        return (result, problems)
    }
}
