// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM become a readable byte on a pipe (the self-pipe
/// trick), so the main loop ends cleanly between two callbacks instead of
/// the process dying with sockets half closed and activities not withdrawn.
enum Signals {
    /// Written by the handler only: async-signal-safe (write(2)).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// The descriptor that turns readable on SIGINT or SIGTERM; installs
    /// the handlers on first use. -1 if no pipe could be made.
    static var fd: Int32 {
        install()
        return readEnd
    }

    /// From now on SIGINT and SIGTERM only mark the pipe: commands that run
    /// a main loop call this first, so a signal never cuts them off midway
    /// (an advertised activity would not be withdrawn). Idempotent.
    static func install() {
        guard readEnd < 0 else { return }
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else { return }
        readEnd = fds[0]
        writeEnd = fds[1]
        for number in [SIGINT, SIGTERM] {
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(Signals.writeEnd, &byte, 1)
            }
        }
    }

    /// The signal that arrived, if one did (without blocking).
    static func take() -> Int32? {
        guard readEnd >= 0 else { return nil }
        var byte: UInt8 = 0
        return read(readEnd, &byte, 1) == 1 ? Int32(byte) : nil
    }
}
