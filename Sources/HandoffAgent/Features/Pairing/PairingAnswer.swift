// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel

/// The person's answer to a pairing's comparison, from the loop thread
/// (a notification's button, the tray's menu) to the run's thread: a pipe
/// the run polls (`PairingPrompt.fd`) and a value given once (the first
/// answer counts). Used by the sponsoring agent (`AgentPairing`) and the
/// joining one (`AgentJoining`).
final class PairingAnswer: @unchecked Sendable {
    // @unchecked: the value is locked; the pipe is thread-safe.
    private let pipe: WakePipe
    private let value = Locked<Bool?>(nil)

    init?() {
        guard let pipe = try? WakePipe.make() else { return nil }
        self.pipe = pipe
    }

    var fd: Int32 { pipe.fd }

    func give(_ yes: Bool) {
        let first = value.withLock { v in
            defer { if v == nil { v = yes } }
            return v == nil
        }
        if first { pipe.signal() }
    }

    func take() -> Bool? { value.withLock { $0 } }
}
