// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Tells when the settings file may have changed, without waking anyone
/// otherwise (docs/agent.md §8): an inotify descriptor on the settings
/// file's directory (a rename over the file, as every writer does, is an
/// event on the directory, not on the old file). Whoever owns a poll set
/// adds `descriptor` and calls `changed()` when it is readable: the
/// engine's scheduler does (so the agent, and every embedded app, apply an
/// edit within one turn of it).
///
/// When the directory does not exist yet (no account), nothing is watched
/// (`descriptor` is -1): the settings are read at start only.
public final class SettingsWatch: Sendable {
    public let descriptor: Int32
    private let name: String

    public init(store: SettingsStore) {
        name = SettingsStore.fileName
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            descriptor = -1
            return
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
        guard inotify_add_watch(fd, store.directory, mask) >= 0 else {
            close(fd)
            descriptor = -1
            return
        }
        descriptor = fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Reads every pending event; true when one names the settings file
    /// (temporary files of a write in progress do not count).
    public func changed() -> Bool {
        guard descriptor >= 0 else { return false }
        return InotifyEvents.drain(descriptor).contains { $0.name == name }
    }
}
