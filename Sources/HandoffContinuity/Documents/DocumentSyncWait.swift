// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a sync that is catching up (docs/documents.md §4 step 3):
/// until the file at `slot` has `facts`' content or `deadline` passes.
/// An inotify descriptor watches the file's folder (or, while that does
/// not exist yet, the deepest folder of its path that does) for a file
/// written, created or moved in; only an event that names the file (or the
/// next folder on its path) makes it look again, so a sync writing its
/// temporary files costs nothing. One bounded wait (`wait(_:for:until:cancel:)`)
/// between looks: no polling.
public enum DocumentSyncWait {
    /// True once the file there has the same content; false at the
    /// deadline (`monotonicSeconds()`) or when `cancel` becomes readable.
    public static func wait(for slot: DocumentSlot, toMatch facts: DocumentFacts,
                            until deadline: Double, cancel: Int32? = nil) -> Bool {
        waitCounting(for: slot, toMatch: facts, until: deadline, cancel: cancel).matched
    }

    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
    /// A watched folder itself moved or removed: watch again.
    static let gone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
    /// Belt and braces: no wait looks more often than this.
    static let maxChecks = 4096

    /// As `wait`, with how many times the file was looked at.
    static func waitCounting(for slot: DocumentSlot, toMatch facts: DocumentFacts,
                             until deadline: Double, cancel: Int32?) -> (matched: Bool, checks: Int) {
        let parts = slot.relative.split(separator: "/").map(String.init)
        let notify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard notify >= 0 else {
            return (slot.facts()?.sameContent(as: facts) == true, 1)
        }
        defer { close(notify) }
        var watched = -1  // how many folders below the root the watch is (-1: none yet)
        var checks = 0
        while checks < maxChecks {
            // Watch first, then look: a change between the two is not lost.
            // Again until the deepest folder stays the same, so one made
            // while the watch was added is watched too.
            for _ in 0...parts.count {
                guard let depth = deepestFolder(slot, parts), depth != watched else { break }
                watch(notify, slot, parts, depth)
                watched = depth
            }
            checks += 1
            if slot.facts()?.sameContent(as: facts) == true { return (true, checks) }
            var relevant = false
            while !relevant {
                switch HandoffBase.wait(notify, for: Int16(POLLIN), until: Deadline(at: deadline), cancel: cancel ?? -1) {
                case .ready:
                    let next = watched >= 0 && watched < parts.count ? parts[watched] : parts.last!
                    let events = InotifyEvents.drain(notify)
                    if events.contains(where: { $0.mask & gone != 0 }) { watched = -1 }
                    relevant = watched < 0 || events.contains {
                        $0.mask & UInt32(IN_Q_OVERFLOW) != 0 || $0.name == next || $0.name == parts.last!
                    }
                case .timedOut, .cancelled, .error:
                    return (false, checks)
                }
            }
        }
        return (false, checks)
    }

    /// How many folders of the file's path exist beneath the root (0: only
    /// the root); nil when not even the root does.
    private static func deepestFolder(_ slot: DocumentSlot, _ parts: [String]) -> Int? {
        let rootFD = Beneath.openRoot(slot.root)
        guard rootFD >= 0 else { return nil }
        close(rootFD)
        var depth = 0
        while depth < parts.count - 1 {
            let probe = DocumentSlot(root: slot.root, relative: parts[0...depth].joined(separator: "/") + "/x")
            guard let fd = probe.openDirectory() else { break }
            close(fd)
            depth += 1
        }
        return depth
    }

    /// Replaces the watch with one on the folder `depth` levels down,
    /// opened beneath the root and watched through its descriptor (so the
    /// watch is on that folder, whatever links its path holds).
    private static func watch(_ notify: Int32, _ slot: DocumentSlot, _ parts: [String], _ depth: Int) {
        let probe = DocumentSlot(root: slot.root, relative: (parts[0..<depth] + ["x"]).joined(separator: "/"))
        guard let fd = probe.openDirectory() else { return }
        defer { close(fd) }
        _ = inotify_add_watch(notify, "/proc/self/fd/\(fd)", mask | gone | UInt32(IN_ONLYDIR))
    }
}
