// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// This device's places (docs/documents.md §2): how the sender describes a
/// file and where the receiver finds a described one. `load` reads them
/// from the settings, Syncthing's and the cloud clients' configuration;
/// a file that cannot be read leaves its kind of place out and says why in
/// `problems` (for `handoff doctor`).
public struct DocumentPlaces: Sendable {
    public var home: String?
    public var settings: DocumentSettings
    /// Syncthing's folders here (config.xml).
    public var syncthing: [SyncthingFolder] = []
    /// Nextcloud/ownCloud sync folders here (nextcloud.cfg, owncloud.cfg).
    public var cloud: [CloudFolder] = []
    /// `XDG_DOWNLOAD_DIR` of user-dirs.dirs, when it names one.
    public var downloadDirectory: String?
    /// `$XDG_RUNTIME_DIR`: never described.
    public var runtimeDirectory: String?
    /// Why a kind of place is missing: a configuration file that is there
    /// but could not be read, one sentence each.
    public var problems: [String] = []

    /// Folders whose files are temporary or not files at all: never
    /// described (with `$XDG_RUNTIME_DIR` and the settings' exclusions).
    public static let neverDescribed = ["/tmp", "/var/tmp", "/proc", "/sys", "/dev"]

    public init(home: String?, settings: DocumentSettings = DocumentSettings()) {
        self.home = home
        self.settings = settings
    }

    /// The places of the process's environment and `settings`.
    public static func load(environment: [String: String] = ProcessEnvironment.current,
                            settings: DocumentSettings = DocumentSettings()) -> DocumentPlaces {
        var places = DocumentPlaces(home: environment["HOME"].flatMap { $0.hasPrefix("/") ? DocumentSettings.normalized($0) : nil },
                                    settings: settings)
        places.runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let locations = PlaceConfigFiles(environment: environment, home: places.home)
        if let path = locations.syncthing() {
            do {
                places.syncthing = try SyncthingConfig.folders(try PlaceConfigFiles.read(path, max: SyncthingConfig.maxBytes), home: places.home)
            } catch {
                places.problems.append("Syncthing's \(path) is not used: \(error.message)")
            }
        }
        for path in locations.cloud() {
            do {
                for folder in try CloudConfig.folders(try PlaceConfigFiles.read(path, max: CloudConfig.maxBytes))
                where !places.cloud.contains(folder) {
                    places.cloud.append(folder)
                }
            } catch {
                places.problems.append("the cloud client's \(path) is not used: \(error.message)")
            }
        }
        if let home = places.home, let file = locations.userDirs(),
           let bytes = try? PlaceConfigFiles.read(file, max: UserDirs.maxBytes) {
            places.downloadDirectory = UserDirs.directory("XDG_DOWNLOAD_DIR", in: bytes, home: home)
        }
        return places
    }

    // MARK: Describing (the sender)

    /// Describes the file at `path` (symbolic links followed here only).
    /// - Throws: `.invalidArgument` naming the file and why it cannot be
    ///   described: unreadable, not a regular file, under a folder never
    ///   described (/tmp, /var/tmp, `$XDG_RUNTIME_DIR`, /proc, /sys, /dev)
    ///   or excluded in the settings.
    ///   A file over `settings.maxSize` (the limit for documents brought
    ///   along, the same both ways) is refused by its size, never read:
    ///   what a FETCH may make this device hash is bounded by it.
    public func describe(path: String) throws(HandoffError) -> DescribedDocument {
        try describe(path: path, digests: .shared)
    }

    func describe(path: String, digests: DocumentDigestCache) throws(HandoffError) -> DescribedDocument {
        guard let resolved = realpath(path, nil) else {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) cannot be read: \(String(cString: strerror(errno)))")
        }
        let real = String(cString: resolved)
        free(resolved)
        if let refusal = refusal(for: real) {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) is not described: \(DocumentText.escaped(refusal))")
        }
        let pathFD = open(real, CLINUX_O_PATH | O_NOFOLLOW | O_CLOEXEC)
        guard pathFD >= 0 else {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(pathFD) }
        guard let fd = Beneath.reopenRegular(pathFD) else {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) is not a regular file")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size >= 0, UInt64(info.st_size) > settings.maxSize {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) is \(DocumentReceiver.megabytes(UInt64(info.st_size))), over the \(DocumentReceiver.megabytes(settings.maxSize)) limit for documents (handoff settings documents max-size)")
        }
        guard let (facts, state) = digests.factsAndState(ofOpenFile: fd) else {
            throw HandoffError(.invalidArgument, "the document \(DocumentText.escaped(path)) cannot be read whole (it changed while it was read, or a read failed)")
        }
        return DescribedDocument(location: location(ofResolved: real), resolvedPath: real, facts: facts, state: state)
    }

    /// Where the resolved path `real` lives, most specific place first:
    /// a declared folder, a Syncthing folder, a cloud folder (the deepest
    /// of each kind), home, elsewhere. A place whose path inside would be
    /// too long for the wire is passed over for the next.
    func location(ofResolved real: String) -> DocumentLocation {
        let name = String(real.split(separator: "/").last ?? "")
        let kinds: [(DocumentPlace, [(root: String?, path: String)])] = [
            (.folder, settings.folders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
            (.syncthing, syncthing.map { ($0.id, $0.path) }),
            (.cloud, cloud.map { ($0.root, $0.path) }),
            (.home, home.map { [(nil, $0)] } ?? []),
        ]
        for (place, roots) in kinds {
            var best: (root: String?, inside: String, depth: Int)?
            for (root, path) in roots where root.map(DocumentRoots.isWireRoot) ?? true {
                let resolved = Self.resolved(path)
                guard let inside = FileURL.relative(real, below: resolved), resolved.utf8.count > best?.depth ?? -1 else { continue }
                best = (root, inside, resolved.utf8.count)
            }
            if let best, let location = try? DocumentLocation(place: place, root: best.root, path: best.inside, name: name) {
                return location
            }
        }
        return try! DocumentLocation(place: .elsewhere, root: nil, path: nil, name: name.isEmpty ? "document" : name)
    }

    /// Why the resolved path `real` is never described, or nil.
    public func refusal(for real: String) -> String? {
        var system = Self.neverDescribed
        if let runtimeDirectory { system.append(runtimeDirectory) }
        for folder in system where Self.isUnder(real, folder) {
            return "it is under \(folder), where temporary and system files are"
        }
        for folder in settings.exclude where Self.isUnder(real, folder) {
            return "it is under \(folder), excluded in the settings (handoff settings documents include \(folder) takes it back)"
        }
        return nil
    }

    /// `path` is `folder` or below it, compared as written and with the
    /// folder's links resolved.
    static func isUnder(_ path: String, _ folder: String) -> Bool {
        for candidate in [DocumentSettings.normalized(folder), resolved(folder)] {
            if candidate == "/" || path == candidate || path.hasPrefix(candidate + "/") { return true }
        }
        return false
    }

    /// `realpath` of a folder that exists, else the path as written.
    static func resolved(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return DocumentSettings.normalized(path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: Finding (the receiver)

    /// Where `location` is on this device; nil for `elsewhere` and a
    /// place this device does not have. A declared folder by its name, a
    /// Syncthing folder by its ID, a cloud folder of the same account
    /// whose server folder holds the file (the deepest; the rest of the
    /// server path joined), home.
    public func locate(_ location: DocumentLocation) -> DocumentSlot? {
        guard let path = location.path else { return nil }
        switch location.place {
        case .folder:
            return location.root.flatMap { settings.folders[$0] }.map { DocumentSlot(root: $0, relative: path) }
        case .syncthing:
            return syncthing.first { $0.id == location.root }.map { DocumentSlot(root: $0.path, relative: path) }
        case .cloud:
            guard let root = location.root else { return nil }
            let slash = root.firstIndex(of: "/")
            let account = String(root[..<(slash ?? root.endIndex)])
            let remote = slash.map { String(root[$0...]) } ?? ""
            let file = remote + "/" + path
            var best: (folder: CloudFolder, inside: String)?
            for folder in cloud where folder.account == account {
                let prefix = folder.remote == "/" ? "/" : folder.remote + "/"
                guard file.hasPrefix(prefix), folder.remote.count > best?.folder.remote.count ?? -1,
                      let inside = FileURL.cleanRelative(String(file.dropFirst(prefix.count)), maxBytes: 4096) else { continue }
                best = (folder, inside)
            }
            return best.map { DocumentSlot(root: $0.folder.path, relative: $0.inside) }
        case .home:
            return home.map { DocumentSlot(root: $0, relative: path) }
        case .elsewhere:
            return nil
        }
    }

    /// Where brought copies with no place here go: `XDG_DOWNLOAD_DIR`
    /// (user-dirs.dirs), else `~/Downloads`, then `Handoff`.
    public var downloads: String? {
        if let downloadDirectory { return downloadDirectory + "/Handoff" }
        return home.map { $0 + "/Downloads/Handoff" }
    }

    /// Whether a brought copy may be written beside `slot`'s file: not in
    /// a hidden folder (a peer's words must not put a file where programs
    /// read their configuration: `.config/autostart`, `.ssh`), nor where
    /// this device never describes. Else it goes to `downloads`.
    /// Whether the folder `opened` (a path with every link resolved) may
    /// take a brought copy: no component below home or below `root` hidden,
    /// and not where this device never describes.
    public func admitsBroughtCopy(in opened: String, root: String) -> Bool {
        for base in [home, root].compactMap({ $0 }) {
            let prefix = base.hasSuffix("/") ? base : base + "/"
            guard opened.hasPrefix(prefix) else { continue }
            if opened.dropFirst(prefix.count).split(separator: "/").contains(where: { $0.hasPrefix(".") }) { return false }
        }
        return refusal(for: opened) == nil
    }

    public func admitsBroughtCopy(beside slot: DocumentSlot) -> Bool {
        if let inside = slot.relativeDirectory, inside.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            return false
        }
        return refusal(for: slot.directory) == nil
    }
}

/// A file the sender described: what goes on the wire, and what never
/// leaves this device: its path, and the file's state when it was hashed
/// (device, inode, size, modification and change time), which it must
/// still have to be served (a file replaced by another of the same size
/// and time is another inode; one rewritten in place, another change time).
public struct DescribedDocument: Sendable, Hashable {
    public let location: DocumentLocation
    public let resolvedPath: String
    public let facts: DocumentFacts
    let state: DocumentDigestCache.Key

    /// Whether the open file `st` is still the one described.
    func isUnchanged(_ st: stat) -> Bool {
        st.st_mode & S_IFMT == S_IFREG && DocumentDigestCache.Key(st) == state
    }
}
