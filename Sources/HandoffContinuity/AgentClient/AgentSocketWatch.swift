// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Notices the agent's socket appearing, without waking up while nothing
/// changes (docs/agent.md §8): inotify on the socket's directory for
/// entries created or moved in, or on its parent while the directory is
/// missing (then on the directory once it is made). `fd` is for poll; the
/// owner reads it with `drain` and asks `socketExists`.
///
/// Threads: one owner thread (its poll loop) at a time.
public final class AgentSocketWatch {
    /// Readable when something changed worth a look.
    public let fd: Int32
    public let socketPath: String
    let directory: String
    let parent: String
    private var watch: Int32 = -1
    /// Whether `watch` is on `directory` (else on `parent`, or nothing).
    private(set) var watchesDirectory = false

    private static let directoryMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
    private static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO)

    /// - Throws: `.io` when inotify cannot be had (no watch: the caller
    ///   stays where it is).
    public init(socketPath: String) throws(HandoffError) {
        self.socketPath = socketPath
        directory = Self.parent(of: socketPath)
        parent = Self.parent(of: directory)
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw HandoffError(.io, "cannot watch \(directory): \(String(cString: strerror(errno)))") }
        rewatch()
    }

    deinit { close(fd) }

    /// Watches the directory when it exists, else its parent; a parent
    /// missing too leaves no watch (nothing to notice then).
    private func rewatch() {
        if watch >= 0 { _ = inotify_rm_watch(fd, watch) }
        watch = inotify_add_watch(fd, directory, Self.directoryMask | UInt32(IN_ONLYDIR))
        watchesDirectory = watch >= 0
        if watch < 0 { watch = inotify_add_watch(fd, parent, Self.parentMask | UInt32(IN_ONLYDIR)) }
        // The directory may have been made between the two calls.
        if !watchesDirectory, Self.isDirectory(directory) { rewatch() }
    }

    /// Reads what is queued and follows the directory coming or going.
    /// True when something changed (then look at `socketExists`).
    ///
    /// Only events of the current watch count: the IN_IGNORED that
    /// `rewatch`'s own `inotify_rm_watch` queues for the old watch is read
    /// here too, and moving again on it would move for ever.
    @discardableResult
    public func drain() -> Bool {
        let events = InotifyEvents.drain(fd).filter { $0.watch == watch }
        let directoryName = String(directory[directory.index(after: directory.lastIndex(of: "/") ?? directory.startIndex)...])
        let moved = events.contains {
            $0.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
                // The directory made (or moved in) in the parent.
                || (!watchesDirectory && $0.has(IN_CREATE | IN_MOVED_TO) && $0.name == directoryName)
        }
        if moved { rewatch() }
        // While only the parent is watched, its other entries mean nothing here.
        return moved || (watchesDirectory && !events.isEmpty)
    }

    /// Whether a socket is at `socketPath` now.
    public var socketExists: Bool {
        var info = stat()
        return lstat(socketPath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }
}
