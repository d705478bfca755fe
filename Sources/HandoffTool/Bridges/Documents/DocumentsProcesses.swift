// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBridges
#if canImport(Glibc)
import Glibc
#endif

/// The person's processes and the programs they run, from `/proc`
/// (`exe`, else `cmdline`'s first word): one look per decision. Bounded: at
/// most `maxProcesses` entries of `/proc` looked at.
struct DocumentsProcesses {
    static let maxProcesses = 65536

    struct Running {
        var pid: Int32
        var exe: String?
        var argv0: String?
    }

    private(set) var processes: [Running] = []

    init(uid: uid_t = getuid(), proc: String = "/proc") {
        guard let dir = opendir(proc) else { return }
        defer { closedir(dir) }
        var seen = 0
        let me = getpid()
        while let entry = readdir(dir), seen < Self.maxProcesses {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), pid != me else { continue }
            var info = stat()
            guard stat("\(proc)/\(pid)", &info) == 0, info.st_uid == uid else { continue }
            processes.append(Running(pid: pid, exe: Self.link("\(proc)/\(pid)/exe"), argv0: Self.argv0("\(proc)/\(pid)/cmdline")))
        }
    }

    /// The lowest pid running one of `programs` (the app's first process)
    /// in the person's session: when `runtimeDirectory` is given, a process
    /// whose environment names another `XDG_RUNTIME_DIR` is someone else's
    /// session of the same user id (a container, a test's device).
    func pid(running programs: Set<String>, runtimeDirectory: String?) -> Int32? {
        processes.filter { DocumentAppMatch.runs(programs, exe: $0.exe, argv0: $0.argv0) }
            .filter { process in
                guard let runtimeDirectory, let theirs = Self.environment(process.pid, "XDG_RUNTIME_DIR") else { return true }
                return theirs == runtimeDirectory || DocumentsFiles.resolve(theirs) == runtimeDirectory
            }
            .map(\.pid).min()
    }

    /// One variable of a process's environment (`/proc/PID/environ`, at
    /// most 256 KiB read); nil when unreadable or unset.
    static func environment(_ pid: Int32, _ name: String) -> String? {
        guard let bytes = DocumentsFiles.read("/proc/\(pid)/environ", max: 256 << 10) else { return nil }
        let prefix = Array((name + "=").utf8)
        for entry in bytes.split(separator: 0) where entry.starts(with: prefix) {
            return String(decoding: entry.dropFirst(prefix.count), as: UTF8.self)
        }
        return nil
    }

    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink(path, &buffer, 4096)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func argv0(_ path: String) -> String? {
        guard let bytes = DocumentsFiles.read(path, max: 1 << 20) ?? readStream(path), !bytes.isEmpty else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// /proc files report size 0: read them up to 4 KiB without fstat's size.
    private static func readStream(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer[0..<n]) : nil
    }

    /// A descriptor readable once `pid` exits (pidfd_open); nil when the
    /// kernel has none or the process is gone.
    static func exitDescriptor(_ pid: Int32) -> Int32? {
        let fd = clinux_pidfd_open(pid)
        return fd >= 0 ? fd : nil
    }
}
