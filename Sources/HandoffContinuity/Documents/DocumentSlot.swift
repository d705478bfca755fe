// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where a described document belongs on this device: a root the person
/// has (their home, a synced folder) and the path inside it. The file may
/// be there, differ, or be missing. Everything here is opened beneath the
/// root (`Beneath`): a symbolic link out of it, or a file that is not a
/// regular file, counts as no file.
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
    /// The folder the file is in, relative to the root; nil when that is
    /// the root itself.
    public var relativeDirectory: String? {
        relative.lastIndex(of: "/").map { String(relative[..<$0]) }
    }
    /// The file's name.
    public var name: String { relative.split(separator: "/").last.map(String.init) ?? relative }

    /// The facts of the file there, or nil when there is none (or it is
    /// not a regular file, or is reached through a link out of the root).
    public func facts() -> DocumentFacts? {
        facts(stepwise: false)
    }

    func facts(stepwise: Bool) -> DocumentFacts? {
        guard let fd = openFile(stepwise: stepwise) else { return nil }
        defer { close(fd) }
        return DocumentDigest.facts(ofOpenFile: fd)
    }

    /// The file opened for reading, beneath the root; nil as for `facts`.
    /// The caller closes it.
    public func openFile() -> Int32? {
        openFile(stepwise: false)
    }

    func openFile(stepwise: Bool) -> Int32? {
        guard FileURL.cleanRelative(relative) != nil else { return nil }
        let rootFD = Beneath.openRoot(root)
        guard rootFD >= 0 else { return nil }
        defer { close(rootFD) }
        return Beneath.openRegularFile(relative, in: rootFD, stepwise: stepwise)
    }

    /// The file's folder opened beneath the root (read-only, a directory),
    /// or nil when it does not exist or is reached through a link out of
    /// the root. Not created: a copy for a missing folder goes to the
    /// downloads folder instead (docs/documents.md §4 step 4). The caller
    /// closes it.
    public func openDirectory() -> Int32? {
        openDirectory(stepwise: false)
    }

    func openDirectory(stepwise: Bool) -> Int32? {
        guard FileURL.cleanRelative(relative) != nil else { return nil }
        let rootFD = Beneath.openRoot(root)
        guard rootFD >= 0 else { return nil }
        guard let inside = relativeDirectory else {
            // The root itself: reopened readable (the O_PATH one cannot fsync).
            defer { close(rootFD) }
            let fd = openat(rootFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            return fd >= 0 ? fd : nil
        }
        defer { close(rootFD) }
        let fd = Beneath.open(inside, in: rootFD, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, stepwise: stepwise)
        return fd >= 0 ? fd : nil
    }
}
