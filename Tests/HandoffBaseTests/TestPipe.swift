// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A pipe for the reactor's and the bounded wait's tests: its read end is
/// readable once a byte was written (`fill`), and hangs up once the write
/// end is closed (`closeWriteEnd`).
final class TestPipe {
    let read: Int32
    private(set) var write: Int32

    init(readable: Bool = false) {
        var fds: [Int32] = [-1, -1]
        precondition(clinux_pipe2(&fds, O_CLOEXEC) == 0, "pipe failed")
        (read, write) = (fds[0], fds[1])
        if readable { fill() }
    }

    func fill() {
        var one: UInt8 = 1
        _ = Glibc.write(write, &one, 1)
    }

    func closeWriteEnd() {
        close(write)
        write = -1
    }

    deinit {
        close(read)
        if write >= 0 { close(write) }
    }
}
