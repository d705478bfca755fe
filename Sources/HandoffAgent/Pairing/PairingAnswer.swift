// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The person's answer to a pairing's comparison, from the loop thread
/// (a notification's button) to the run's thread: a pipe the run polls
/// (`PairingPrompt.fd`) and a value given once. Used by the sponsoring
/// agent (`AgentPairing`) and the joining one (`AgentJoining`).
final class PairingAnswer: @unchecked Sendable {
    let fd: Int32
    private let writeFD: Int32
    private let value = Locked<Bool?>(nil)

    init?() {
        var pipe: [Int32] = [-1, -1]
        guard clinux_pipe2(&pipe, O_CLOEXEC | O_NONBLOCK) == 0 else { return nil }
        (fd, writeFD) = (pipe[0], pipe[1])
    }

    deinit {
        close(fd)
        close(writeFD)
    }

    func give(_ yes: Bool) {
        let first = value.withLock { v in
            defer { if v == nil { v = yes } }
            return v == nil
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func take() -> Bool? { value.withLock { $0 } }
}
