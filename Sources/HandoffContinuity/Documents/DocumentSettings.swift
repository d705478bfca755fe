// SPDX-License-Identifier: MIT OR Apache-2.0

/// The person's settings for documents (docs/documents.md §5): the
/// `[Documents]` and `[Folder NAME]` groups of the settings file.
public struct DocumentSettings: Sendable, Equatable {
    public static let defaultMaxSize: UInt64 = 64 << 20
    public static let defaultSyncWait: Double = 5

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
}
