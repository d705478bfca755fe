// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Opens a delivered document for the portal only as the path names it:
/// no link a sandboxed app could have put on the way. An app allowed into
/// part of the home (`--filesystem=xdg-download`) could otherwise turn a
/// folder above a delivered file into a link to `~/.ssh`, and have the
/// agent export `authorized_keys` to it with write access.
///
/// The kernel's own name for the opened file (`/proc/self/fd/N`) must be
/// the path itself, with only its leading root-owned components resolved:
/// a system link such as Silverblue's `/home -> var/home` is the
/// administrator's, never the app's. For an agent running as root nothing
/// is the administrator's alone, so no link is followed. Any other link,
/// `.` or `..` on the way, or a file deleted since, and the open is refused.
enum PinnedDocument {
    /// `path` open `O_PATH` (the caller closes it), or nil.
    static func open(_ path: [UInt8]) -> Int32? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        let components = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
        guard !components.isEmpty else { return nil }
        // The leading folders root owns (never the file itself), when the
        // person is not root.
        var prefix: [UInt8] = []
        var owned = 0
        while getuid() != 0, owned < components.count - 1 {
            let next = prefix + [UInt8(ascii: "/")] + components[owned]
            var st = stat()
            guard withCString(next, { lstat($0, &st) }) == 0, st.st_uid == 0 else { break }
            prefix = next
            owned += 1
        }
        var expected: [UInt8] = []
        if !prefix.isEmpty {
            guard let resolved = withCString(prefix, { realpath($0, nil) }) else { return nil }
            defer { free(resolved) }
            expected = Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self),
                                                 count: strlen(resolved)))
            if expected == [UInt8(ascii: "/")] { expected = [] }
        }
        for component in components[owned...] { expected += [UInt8(ascii: "/")] + component }

        let fd = withCString(path) { Glibc.open($0, CLINUX_O_PATH | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        guard kernelName(of: fd) == expected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// What `/proc/self/fd/N` says `fd` is.
    static func kernelName(of fd: Int32) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count)
        guard n > 0, n < buffer.count else { return nil }
        return buffer[..<n].map { UInt8(bitPattern: $0) }
    }

    private static func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
        (bytes + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }
}
