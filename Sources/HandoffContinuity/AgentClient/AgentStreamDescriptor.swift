// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A continuation stream's socket as it arrives from the agent (STREAM,
/// ACCEPT_STREAM): the app's end of the agent's socket pair, the agent
/// keeping the other end and the reserve byte (PROTOCOL §8). It is made to
/// behave as the host's end of `LocalSocketPair` does in embedded mode: a
/// blocking, close-on-exec Unix stream socket with the same send buffer.
enum AgentStreamDescriptor {
    /// The stream over `fd` (taken over: closed on failure).
    /// - Throws: `.handoffFailed` when `fd` is not a Unix stream socket.
    static func stream(_ fd: Int32) throws(HandoffError) -> ContinuationStream {
        var type: Int32 = 0, domain: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let isStream = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_STREAM.rawValue)
        length = socklen_t(MemoryLayout<Int32>.size)
        let isLocal = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 && domain == AF_UNIX
        guard isStream, isLocal else {
            close(fd)
            throw HandoffError(.handoffFailed, "the agent passed a descriptor that is not a local stream socket")
        }
        // The file status flags are the agent's too until it closes its
        // copy: set what the host relies on explicitly.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var size: Int32 = 512 * 1024
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return ContinuationStream(owning: fd)
    }
}
