// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// One event read from an inotify descriptor: the watch it came from, its
/// mask and the name of the entry it concerns ("" for the watched
/// directory itself).
///
/// A watcher that moves its watch must look at `watch`: removing a watch
/// queues an IN_IGNORED for it, and a watcher that took any IN_IGNORED as
/// "my directory went" would move again on the event of its own move, for
/// ever (an idle agent spun a core so once tailscaled's folder appeared).
public struct InotifyEvent: Sendable, Equatable {
    public var watch: Int32
    public var mask: UInt32
    public var name: String

    public init(watch: Int32 = -1, mask: UInt32, name: String) {
        self.watch = watch
        self.mask = mask
        self.name = name
    }

    /// Whether any of `bits` (IN_CREATE, ...) is set.
    public func has(_ bits: Int32) -> Bool { mask & UInt32(bits) != 0 }
}

/// Reads what is queued on a non-blocking inotify descriptor: the one
/// decoder of inotify's records for every watcher here (the agent's
/// socket, the settings file, the account directory), each of which
/// decides what the events mean. Bounded: at most `maxReads` reads of
/// 8 KiB (the rest stays queued, the descriptor stays readable).
public enum InotifyEvents {
    public static func drain(_ fd: Int32, maxReads: Int = 64) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        // Big enough for many events with names (each at most 16 + NAME_MAX + 1 bytes).
        var buffer = [UInt8](repeating: 0, count: 8192)
        var reads = 0
        while reads < maxReads {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            reads += 1
            let header = MemoryLayout<inotify_event>.size
            var offset = 0
            while offset + header <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                events.append(InotifyEvent(watch: wd, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
                offset += header + length
            }
        }
        return events
    }
}
