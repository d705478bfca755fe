// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where a described document belongs on this device: a root the person
/// has (their home, a synced folder) and the path inside it. The file may
/// be there, differ, or be missing.
public struct DocumentSlot: Sendable, Hashable {
    /// An absolute path.
    public let root: String
    /// Clean (`FileURL.cleanRelative`).
    public let relative: String

    public init(root: String, relative: String) {
        self.root = root
        self.relative = relative
    }

    public var path: String { (root.hasSuffix("/") ? String(root.dropLast()) : root) + "/" + relative }
    /// The folder the file is in (it may not exist).
    public var directory: String { String(path[..<path.lastIndex(of: "/")!]) }

    /// The facts of the file there, or nil when there is none (or it is
    /// not a regular file).
    public func facts() -> DocumentFacts? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return DocumentDigest.facts(ofOpenFile: fd)
    }
}
