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
        var changed = false
        // Big enough for many events with names (each at most 16 + NAME_MAX + 1 bytes).
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let length = buffer.withUnsafeBytes { raw in
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { changed = true }
                offset += header + length
            }
        }
    }
}
