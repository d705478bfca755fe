// SPDX-License-Identifier: MIT OR Apache-2.0

/// The person's settings for documents (docs/documents.md §5): the
/// `[Documents]` and `[Folder NAME]` groups of the settings file.
public struct DocumentSettings: Sendable, Equatable {
    public static let defaultMaxSize: UInt64 = 64 << 20
    public static let defaultSyncWait: Double = 5
    /// `documents max-size`: up to 2^53 bytes (what the wire carries).
    public static let maxSizeRange: ClosedRange<UInt64> = 0...(1 << 53)
    /// `documents sync-wait`, whole seconds.
    public static let syncWaitRange = 0...300
    /// At most this many excluded paths and declared folders.
    public static let maxExcluded = 256
    public static let maxFolders = 256

    /// The largest document brought along, in bytes.
    public var maxSize: UInt64 = defaultMaxSize
    /// How long a receiver waits for a sync that is catching up, seconds.
    public var syncWait: Double = defaultSyncWait
    /// Absolute paths never described or offered (a file or a folder).
    public var exclude: [String] = []
    /// Whether files outside every place may be offered by the documents
    /// bridge (an app's own activity may always name one).
    public var elsewhere = false
    /// The folders the person declared, by name.
    public var folders: [String: String] = [:]

    public init() {}

    /// A declared folder's name, as the settings file's group header can
    /// carry it and the wire's root: 1–255 bytes of printable ASCII without
    /// `[` and `]`, not starting or ending with a space.
    public static func isFolderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.first != " " && name.last != " "
            && name.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") }
    }

    /// A path the settings can hold (a folder's, an excluded one): absolute,
    /// no NUL or control character, no `.` or `..` component, at most 4096
    /// bytes, not ending with a space (a key file would drop it).
    public static func isSettingsPath(_ path: String) -> Bool {
        path.hasPrefix("/") && path.utf8.count <= 4096 && path.last != " " && path.last != "\t"
            && !path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
            && !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
    }

    /// `path` without a trailing `/` (but `/` itself).
    public static func normalized(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
