// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What a pairing state machine asks its driver to do after an input:
/// frames to send, a code to show, a key to store, or success. A failure is
/// thrown instead (`HandoffError`); the driver then sends REJECT unless the
/// machine's `peerEnded` says the other side already ended.
public struct PairingStep: Sendable, Equatable {
    public var send: [Frame] = []
    /// Show this code and ask the person to compare it.
    public var code: ComparisonCode?
    /// Joiner: store this account key, then call `keyStored()`.
    public var storeKey: AccountKey?
    /// The pairing succeeded with the device of this name.
    public var paired: String?

    public init(send: [Frame] = [], code: ComparisonCode? = nil, storeKey: AccountKey? = nil, paired: String? = nil) {
        self.send = send
        self.code = code
        self.storeKey = storeKey
        self.paired = paired
    }
}

/// The failures both machines report, worded for the person.
enum PairingFailure {
    static func unexpected(_ frame: Frame, _ state: String) -> HandoffError {
        HandoffError(.malformedData, "the other device sent a message of type \(frame.type) while \(state): pairing stopped")
    }

    static let peerRejected = HandoffError(
        .handoffFailed, "the other device ended the pairing (its person said the codes differ, or it failed): nothing was exchanged")

    static let rejectedHere = HandoffError(
        .handoffFailed, "you said the codes differ: pairing stopped and nothing was exchanged. If the codes did match, run it again")

    static func undecryptable(_ what: String) -> HandoffError {
        HandoffError(.handoffFailed,
            "the other device's \(what) did not open under the agreed key: someone between the devices may be "
                + "interfering (or the codes were not compared); nothing was stored")
    }

    static let codeMismatch = HandoffError(
        .handoffFailed, "the other device does not hold this code (a typo there, or another device answered): "
            + "pairing stopped and nothing was exchanged. Run it again with a new code")

    static let badPoint = HandoffError(
        .handoffFailed, "the other device sent no valid key share (not a point of P-256): pairing stopped")

    static let badKey = HandoffError(.handoffFailed, "the other device could not agree on a key (an invalid public key): pairing stopped")
}

/// How a failed pairing ended, as far as this side can tell from the
/// wire (docs/PROTOCOL.md §9): what the person is told. REJECT is empty,
/// so the other side's "no", its person never answering before its window
/// closed, and its failing all arrive the same: `endedThere` says so,
/// without claiming which.
public enum PairingEnd: Sendable, Equatable {
    /// The person here said the codes differ (or cancelled the comparison).
    case refusedHere
    /// The other device ended it (REJECT): its person said no, did not
    /// answer in time, or it failed; the wire does not tell which.
    case endedThere
    /// A one-time code the other device does not hold.
    case codeMismatch
    /// This side's window passed (no answer here, or no device answered).
    case timedOut
    /// The connection closed or something else went wrong.
    case other

    public init(_ error: HandoffError) {
        if error.code == .timedOut {
            self = .timedOut
        } else if error == PairingFailure.rejectedHere {
            self = .refusedHere
        } else if error == PairingFailure.peerRejected {
            self = .endedThere
        } else if error == PairingFailure.codeMismatch {
            self = .codeMismatch
        } else {
            self = .other
        }
    }
}
