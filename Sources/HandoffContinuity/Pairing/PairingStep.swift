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
