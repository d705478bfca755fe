// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The kinds of place a document can live in that both devices know
/// (docs/documents.md §2), most specific first.
public enum DocumentPlace: String, Sendable, CaseIterable {
    /// A folder the person named in the settings (`[Folder NAME]`).
    case folder
    /// A Syncthing folder, by its folder ID.
    case syncthing
    /// A Nextcloud/ownCloud sync folder, by account and remote folder.
    case cloud
    /// The home directory.
    case home
    /// Nowhere the other device knows: only the bytes can come along.
    case elsewhere

    /// Whether a location of this kind names a root (folder, ID, account).
    public var hasRoot: Bool { self == .folder || self == .syncthing || self == .cloud }
    /// Whether a location of this kind has a path inside its place.
    public var hasPath: Bool { self != .elsewhere }
}

/// Where a document lives, in words both devices understand: never an
/// absolute path (PROTOCOL.md §12). Valid by construction: the rules are
/// those a receiver applies to what a peer sent.
public struct DocumentLocation: Sendable, Hashable {
    public let place: DocumentPlace
    /// The folder's name, the Syncthing folder ID or `USER@HOST/REMOTE`.
    public let root: String?
    /// `/`-separated inside the place; never empty, `.` or `..`.
    public let path: String?
    /// The file's name as the person sees it.
    public let name: String

    public static let maxRootBytes = 255
    public static let maxPathBytes = 1024
    public static let maxNameBytes = 255

    /// - Throws: `.malformedData` saying which rule a field breaks.
    public init(place: DocumentPlace, root: String?, path: String?, name: String) throws(HandoffError) {
        if place.hasRoot {
            guard let root, !root.isEmpty, root.utf8.count <= Self.maxRootBytes,
                  !root.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw HandoffError(.malformedData, "a \(place.rawValue) document needs a root of 1–\(Self.maxRootBytes) bytes without control characters")
            }
        } else if root != nil {
            throw HandoffError(.malformedData, "a \(place.rawValue) document has no root")
        }
        if place.hasPath {
            guard let path, path.utf8.count <= Self.maxPathBytes,
                  FileURL.cleanRelative(path, maxBytes: Self.maxPathBytes) != nil else {
                throw HandoffError(.malformedData, "a \(place.rawValue) document needs a relative path of 1–\(Self.maxPathBytes) bytes with no empty, `.` or `..` component")
            }
        } else if path != nil {
            throw HandoffError(.malformedData, "an \(place.rawValue) document has no path")
        }
        guard !name.isEmpty, name.utf8.count <= Self.maxNameBytes, name != ".", name != "..",
              !name.contains("/"), !name.utf8.contains(0) else {
            throw HandoffError(.malformedData, "a document's name must be 1–\(Self.maxNameBytes) bytes, no `/`, not `.` or `..`")
        }
        if let path, path.split(separator: "/").last.map(String.init) != name {
            throw HandoffError(.malformedData, "a document's name must be the last component of its path")
        }
        self.place = place
        self.root = root
        self.path = path
        self.name = name
    }
}
