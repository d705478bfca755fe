// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase

/// One end of a continuation stream (Apple: the input and output stream
/// pair of `getContinuationStreams` / `didReceiveInputStream`): a connected,
/// bidirectional, pollable socket whose bytes the library carries to the
/// other device over the authenticated, encrypted channel.
///
/// It owns its file descriptor and closes it when it goes, unless the
/// descriptor was taken with `takeFileDescriptor()`. EOF and half-close
/// (`shutdown(fd, SHUT_WR)`) behave as on a socket; when the stream is
/// lost (the other device vanishes), reads fail with ECONNRESET after what
/// arrived and writes with EPIPE: never a clean EOF.
public final class ContinuationStream: @unchecked Sendable {
    // @unchecked: `descriptor` is guarded by `lock`.
    private let lock = Locked<Int32>(-1)

    /// Takes ownership of `fileDescriptor`.
    public init(owning fileDescriptor: Int32) {
        lock.withLock { $0 = fileDescriptor }
    }

    deinit {
        let fd = lock.withLock { $0 }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// The socket, still owned by this object; -1 once taken or closed.
    public var fileDescriptor: Int32 { lock.withLock { $0 } }

    /// Hands the socket over to the caller, who must close it; -1 when it
    /// was already taken or closed.
    public func takeFileDescriptor() -> Int32 {
        lock.withLock { fd in
            defer { fd = -1 }
            return fd
        }
    }

    /// Closes the socket now (idempotent).
    public func close() {
        let fd = takeFileDescriptor()
        if fd >= 0 { _ = Glibc.close(fd) }
    }
}
