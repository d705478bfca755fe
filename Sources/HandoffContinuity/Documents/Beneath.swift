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
/// symbolic link at all). The root itself is the person's (their home, a
/// folder they configured) and is opened as written.
enum Beneath {
    /// Set once the kernel says openat2 does not exist (a Bool written
    /// once, the same way by every thread).
    nonisolated(unsafe) static var kernelLacksOpenat2 = false

    /// The root folder, for the `*at` calls: CLINUX_O_PATH, links in its own path followed.
    static func openRoot(_ root: String) -> Int32 {
        Glibc.open(root, CLINUX_O_PATH | O_DIRECTORY | O_CLOEXEC)
    }

    /// Opens `relative` (clean: `FileURL.cleanRelative`) beneath the
    /// folder `rootFD`, with `flags` (O_CLOEXEC and O_NOFOLLOW are added);
    /// -1 with errno. `stepwise` forces the fallback (tests).
    static func open(_ relative: String, in rootFD: Int32, flags: Int32, stepwise: Bool = false) -> Int32 {
        guard FileURL.cleanRelative(relative) != nil else {
            errno = EINVAL
            return -1
        }
        if !stepwise && !kernelLacksOpenat2 {
            let fd = clinux_openat2(rootFD, relative, flags | O_CLOEXEC | O_NOFOLLOW, 0, CLINUX_RESOLVE_BENEATH | CLINUX_RESOLVE_NO_MAGICLINKS)
            if fd >= 0 || errno != ENOSYS { return fd }
            kernelLacksOpenat2 = true
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
