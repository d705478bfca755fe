// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The two ends of a continuation stream on this device: the host's
/// (handed to the app as a `ContinuationStream`) and the library's (which
/// the pump carries to and from the channel). A Unix stream socket pair,
/// so EOF, half-close and poll() behave as on any socket, and the kernel
/// bounds what one side can queue.
///
/// The library's end always holds one unread byte, the reserve (written
/// here, before the host has its end): the pump peeks past it
/// (SO_PEEK_OFF 1) and takes it only when the stream ended cleanly. Closing
/// a Unix stream socket with unread bytes makes the kernel fail the other
/// end's reads with ECONNRESET, so a lost stream reads as an error, never
/// as a clean EOF (docs/PROTOCOL.md §8).
struct LocalSocketPair {
    let host: ContinuationStream
    let library: Int32

    init() throws(HandoffError) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw HandoffError(.io, "cannot create a socket pair for a continuation stream (\(errnoText(errno)))")
        }
        // Room for a few of the pump's batches, so each wake-up moves a lot.
        var size: Int32 = 512 * 1024
        for fd in fds {
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var offset: Int32 = 1, reserve: UInt8 = 0
        guard setsockopt(fds[1], SOL_SOCKET, SO_PEEK_OFF, &offset, socklen_t(MemoryLayout<Int32>.size)) == 0,
              send(fds[0], &reserve, 1, Int32(MSG_NOSIGNAL)) == 1 else {
            let code = errno
            fds.forEach { _ = close($0) }
            throw HandoffError(.io, "cannot prepare a socket pair for a continuation stream (\(errnoText(code))): SO_PEEK_OFF on AF_UNIX needs Linux 3.4 or later")
        }
        host = ContinuationStream(owning: fds[0])
        library = fds[1]
    }
}
