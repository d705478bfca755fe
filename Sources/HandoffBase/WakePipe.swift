// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe one thread signals and another polls: a pairing
/// run's cancel, its inbox's "a beacon came", the person's answer. `fd`
/// is what goes into `poll`; both ends close with the object.
/// Thread-safe (a write and a read of the pipe).
public final class WakePipe: @unchecked Sendable {
    // @unchecked: the descriptors are fixed until deinit.
    public let fd: Int32
    private let writeFD: Int32

    public init() throws(SystemError) {
        var pipe: [Int32] = [-1, -1]
        guard clinux_pipe2(&pipe, O_CLOEXEC | O_NONBLOCK) == 0 else { throw SystemError("pipe2") }
        (fd, writeFD) = (pipe[0], pipe[1])
    }

    deinit {
        close(fd)
        close(writeFD)
    }

    /// Makes `fd` readable (a full pipe is readable already).
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Reads what was signalled, so `fd` waits again.
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(fd, &bytes, bytes.count) > 0 {}
    }
}
