// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A file followed through renames and saves, by its inode: an `O_PATH`
/// descriptor of it (which reads back its path from /proc/self/fd, wherever
/// it moves) and an inotify watch on that inode. The inotify fd is what its
/// owner polls; `update()` drains it and says what changed.
///
/// - A rename moves the inode: its path is read back.
/// - A save by replacement (a temporary file renamed over the path, as GTK,
///   LibreOffice and vim write) leaves the old inode without a name (the
///   held descriptor keeps it alive, so the kernel reports IN_ATTRIB, not
///   IN_DELETE_SELF) or moves it away (a backup `file~`): the file now at
///   the last path, or at the one before the latest rename, is opened in
///   its place.
/// - A deletion with nothing in its place: `.gone`, and no inode is held;
///   `update()` then looks at the last path again (a later save).
///
/// Not thread-safe: its owner serializes calls.
final class FollowedFile {
    enum Change: Equatable {
        case none
        /// The file was renamed: `path` is its new one.
        case moved
        /// Another file took its place (a save by replacement).
        case replaced
        /// Written in place and closed.
        case written
        /// Deleted, nothing in its place.
        case gone
    }

    /// The absolute path, as the kernel gives it back.
    private(set) var path: [UInt8]
    /// The inotify descriptor to poll.
    let fd: Int32
    /// The path before the latest rename: where an editor that moves the
    /// original away (vim's backup) writes the new file.
    private var previousPath: [UInt8]?
    private var inode: Int32 = -1
    private var watch: Int32 = -1

    /// What inotify reports of the inode: moved, deleted, its links or
    /// metadata changed (a rename over it drops its last link), written.
    private static let mask = UInt32(IN_MOVE_SELF | IN_DELETE_SELF | IN_ATTRIB | IN_CLOSE_WRITE)
    /// O_PATH (Linux, every architecture the library builds for): the
    /// Glibc module leaves it out without _GNU_SOURCE.
    private static let openPathOnly: Int32 = 0o10000000

    /// Follows the regular file at `path` (relative to the working
    /// directory, or absolute).
    /// - Throws: `.notFound` when nothing is there, `.invalidValue` when it
    ///   is not a regular file, `.io` when it cannot be watched.
    init(path: String) throws(HandoffError) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw HandoffError(.io, "cannot follow \(KeyFile.quoted(path)): inotify: \(String(cString: strerror(errno)))") }
        self.path = Array(path.utf8)
        // Every property is set: on a throw deinit runs and closes fd.
        try attach(Array(path.utf8))
    }

    deinit {
        detach()
        close(fd)
    }

    /// Drains the inotify descriptor and looks at the file again.
    func update() -> Change {
        var written = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let e = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (e.wd, e.mask, Int(e.len))
                }
                if wd == watch, mask & UInt32(IN_CLOSE_WRITE) != 0 { written = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        guard inode >= 0 else {
            return (try? attach(path)) != nil ? .replaced : .none
        }
        var info = stat()
        guard fstat(inode, &info) == 0 else { return .none }
        if info.st_nlink == 0 {
            // Unlinked: replaced, or deleted.
            for candidate in [path, previousPath].compactMap({ $0 }) where (try? attach(candidate)) != nil {
                return .replaced
            }
            detach()
            return .gone
        }
        guard let now = Self.readBack(inode), now != path else { return written ? .written : .none }
        if isAnotherFile(at: path, than: info), (try? attach(path)) != nil {
            return .replaced  // the original was moved away and a new file written at its path
        }
        previousPath = path
        path = now
        return .moved
    }

    /// Opens and watches the file at `candidate`, dropping the one held.
    private func attach(_ candidate: [UInt8]) throws(HandoffError) {
        let shown = KeyFile.quoted(String(decoding: candidate, as: UTF8.self))
        let opened = (candidate + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, Self.openPathOnly | O_CLOEXEC) }
        }
        guard opened >= 0 else {
            let e = errno
            throw HandoffError(e == ENOENT || e == ENOTDIR ? .notFound : .io,
                               "cannot open the document \(shown): \(String(cString: strerror(e)))")
        }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            throw HandoffError(.invalidValue, "the document \(shown) is not a regular file")
        }
        let added = inotify_add_watch(fd, "/proc/self/fd/\(opened)", Self.mask)
        guard added >= 0, let resolved = Self.readBack(opened) else {
            let reason = String(cString: strerror(errno))
            if added >= 0 { inotify_rm_watch(fd, added) }
            close(opened)
            throw HandoffError(.io, "cannot watch the document \(shown): \(reason)")
        }
        if watch >= 0, watch != added { inotify_rm_watch(fd, watch) }
        if inode >= 0 { close(inode) }
        inode = opened
        watch = added
        if resolved != path { previousPath = path }
        path = resolved
    }

    private func detach() {
        if watch >= 0 { inotify_rm_watch(fd, watch) }
        if inode >= 0 { close(inode) }
        watch = -1
        inode = -1
    }

    /// True when a regular file other than `held` has the name `path`.
    private func isAnotherFile(at path: [UInt8], than held: stat) -> Bool {
        var info = stat()
        let found = (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &info) }
        }
        return found == 0 && info.st_mode & S_IFMT == S_IFREG && (info.st_ino != held.st_ino || info.st_dev != held.st_dev)
    }

    /// The path of an open descriptor (/proc/self/fd/N); nil when the
    /// kernel no longer has one (" (deleted)").
    private static func readBack(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { readlink("/proc/self/fd/\(descriptor)", $0.baseAddress!, $0.count) }
        }
        guard n > 0, n < buffer.count else { return nil }
        let path = Array(buffer[..<n])
        guard path.first == UInt8(ascii: "/"), !path.ends(with: Array(" (deleted)".utf8)) else { return nil }
        return path
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
