// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Opening what a peer's words point at, never outside the folder they
/// point into (docs/documents.md §4 step 1): from the root down with
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`, so a symbolic link
/// that leaves the root, a `..` or a `/proc` magic link fails; on a kernel
/// without openat2, component by component with `O_NOFOLLOW` (stricter: no
/// symbolic link at all; also where a seccomp filter answers openat2 with
/// EPERM). The root itself is the person's (their home, a
/// folder they configured) and is opened as written.
enum Beneath {
    /// Set once openat2 proved unavailable (a Bool written once, the same
    /// way by every thread).
    nonisolated(unsafe) static var kernelLacksOpenat2 = false

    /// openat2 as `open` calls it: a descriptor, or -1 with errno.
    typealias Openat2 = @Sendable (_ dirFD: Int32, _ path: String, _ flags: Int32, _ resolve: UInt64) -> Int32

    static let systemOpenat2: Openat2 = { clinux_openat2($0, $1, $2, 0, $3) }

    /// Whether openat2 failing with `code` says the call itself is not
    /// available: ENOSYS (a kernel before 5.6) or EPERM (a seccomp filter
    /// that does not know it, as container runtimes' default profiles
    /// answer). Then the stricter fallback is used.
    static func meansUnavailable(_ code: Int32) -> Bool {
        code == ENOSYS || code == EPERM
    }

    /// The root folder, for the `*at` calls: CLINUX_O_PATH, links in its own path followed.
    static func openRoot(_ root: String) -> Int32 {
        Glibc.open(root, CLINUX_O_PATH | O_DIRECTORY | O_CLOEXEC)
    }

    /// Opens `relative` (clean: `FileURL.cleanRelative`) beneath the
    /// folder `rootFD`, with `flags` (O_CLOEXEC and O_NOFOLLOW are added);
    /// -1 with errno. `stepwise` forces the fallback; `openat2` stands in
    /// for the system call (tests: a seccomp filter's EPERM), and then what
    /// it says is not remembered.
    static func open(_ relative: String, in rootFD: Int32, flags: Int32, stepwise: Bool = false,
                     openat2: Openat2? = nil) -> Int32 {
        guard FileURL.cleanRelative(relative) != nil else {
            errno = EINVAL
            return -1
        }
        if !stepwise && (openat2 != nil || !kernelLacksOpenat2) {
            let fd = (openat2 ?? systemOpenat2)(rootFD, relative, flags | O_CLOEXEC | O_NOFOLLOW,
                                                 UInt64(CLINUX_RESOLVE_BENEATH | CLINUX_RESOLVE_NO_MAGICLINKS))
            let code = errno
            if fd >= 0 { return fd }
            guard meansUnavailable(code) else {
                errno = code
                return -1
            }
            if openat2 == nil { kernelLacksOpenat2 = true }
        }
        return openStepwise(relative, in: rootFD, flags: flags)
    }

    /// The fallback: each folder on the way opened with O_NOFOLLOW.
    private static func openStepwise(_ relative: String, in rootFD: Int32, flags: Int32) -> Int32 {
        let parts = relative.split(separator: "/").map(String.init)
        var current = rootFD
        defer { if current != rootFD { close(current) } }
        for part in parts.dropLast() {
            let next = openat(current, part, CLINUX_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return -1 }
            if current != rootFD { close(current) }
            current = next
        }
        return openat(current, parts.last!, flags | O_NOFOLLOW | O_CLOEXEC)
    }

    /// The regular file at `relative` beneath `rootFD`, opened for
    /// reading; nil for anything else (a FIFO, a device, a socket, a
    /// folder, a link out of the root, nothing). Opened as a path first and
    /// looked at, so a FIFO never blocks and a device is never opened.
    static func openRegularFile(_ relative: String, in rootFD: Int32, stepwise: Bool = false) -> Int32? {
        let pathFD = open(relative, in: rootFD, flags: CLINUX_O_PATH | O_CLOEXEC, stepwise: stepwise)
        guard pathFD >= 0 else { return nil }
        defer { close(pathFD) }
        return reopenRegular(pathFD)
    }

    /// `pathFD` (an CLINUX_O_PATH descriptor) reopened for reading when it is a
    /// regular file, through its /proc/self/fd link (the same file, not
    /// the path again).
    static func reopenRegular(_ pathFD: Int32) -> Int32? {
        var info = stat()
        guard fstat(pathFD, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fd = Glibc.open("/proc/self/fd/\(pathFD)", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var again = stat()
        guard fstat(fd, &again) == 0, again.st_dev == info.st_dev, again.st_ino == info.st_ino else {
            close(fd)
            return nil
        }
        return fd
    }
}
