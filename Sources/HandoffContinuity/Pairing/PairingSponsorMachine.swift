// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The sponsor's side of a pairing (docs/PROTOCOL.md §9): the initiator,
/// holding the account key. Pure: frames in, `PairingStep`s out, no I/O,
/// so tests drive it with fixed keys and nonces.
///
/// Comparison: start → COMMIT; SHARE → REVEAL and the code (the attempt
/// begins); then the person's answer and the joiner's ACCEPT in either
/// order; both yes → KEY; DONE naming the account → paired.
/// One-time code: start → CODE_START; CODE_SHARE with the right cB →
/// CODE_CONFIRM (the attempt begins with CODE_SHARE; the code stands for
/// the person's yes); ACCEPT → KEY; DONE → paired.
public struct PairingSponsorMachine: Sendable {
    enum State: Sendable { case start, awaitingShare, comparing, awaitingDone, paired, failed }

    private let keyPair: X25519KeyPair
    private let nonce: [UInt8]
    private let sessionID: [UInt8]
    private let accountKey: AccountKey
    private let deviceName: String
    private let keyNonce: [UInt8]?
    private let method: PairingMethod
    private var spake: SPAKE2?
    private let spakeSecret: [UInt8]?
    private(set) var state = State.start
    private var commitPayload: [UInt8] = []
    private var keys: (sponsorToJoiner: [UInt8], joinerToSponsor: [UInt8]) = ([], [])
    private var personAccepted = false
    private(set) public var peerName: String?
    /// The other side sent REJECT: no REJECT is owed to it.
    public private(set) var peerEnded = false
    /// True once REVEAL has gone: from then on a failure ends the run.
    public var attemptBegun: Bool { state == .comparing || state == .awaitingDone || state == .paired }

    /// - Parameters: `keyPair` and `nonce` fresh unless a test vector
    ///   fixes them; `keyNonce` fixes KEY's GCM nonce and `spakeSecret`
    ///   SPAKE2's x (test vectors only).
    public init(sessionID: [UInt8], accountKey: AccountKey, deviceName: String, method: PairingMethod = .comparison,
                keyPair: X25519KeyPair = .generate(), nonce: [UInt8] = Crypto.randomBytes(PairingMessage.nonceSize),
                keyNonce: [UInt8]? = nil, spakeSecret: [UInt8]? = nil) {
        precondition(sessionID.count == PairingBeacon.sessionIDSize && nonce.count == PairingMessage.nonceSize)
        self.sessionID = sessionID
        self.accountKey = accountKey
        self.deviceName = deviceName
        self.keyPair = keyPair
        self.nonce = nonce
        self.keyNonce = keyNonce
        self.method = method
        self.spakeSecret = spakeSecret
    }

    /// COMMIT (or CODE_START), the first message.
    public mutating func start() -> Frame {
        precondition(state == .start)
        state = .awaitingShare
        if case .code(let code) = method {
            let spake = PairingCrypto.spake(.a, code: code, sessionID: sessionID, secret: spakeSecret)
            self.spake = spake
            return PairingMessage.codeStart(sessionID: sessionID, share: spake.share).frame
        }
        let frame = PairingMessage.commit(sessionID: sessionID,
                                          commitment: PairingCrypto.commitment(publicKey: keyPair.publicKey, nonce: nonce)).frame
        commitPayload = frame.payload
        return frame
    }

    public mutating func receive(_ frame: Frame) throws(HandoffError) -> PairingStep {
        do throws(HandoffError) {
            return try handle(frame)
        } catch {
            state = .failed
            throw error
        }
    }

    /// The person's answer to the code.
    public mutating func answer(_ yes: Bool) throws(HandoffError) -> PairingStep {
        guard state == .comparing, !personAccepted, method == .comparison else {
            throw HandoffError(.invalidState, "the code is not being compared now")
        }
        guard yes else {
            state = .failed
            throw PairingFailure.rejectedHere
        }
        personAccepted = true
        return sendKeyIfBothAccepted()
    }

    private mutating func handle(_ frame: Frame) throws(HandoffError) -> PairingStep {
        let message = try PairingMessage(frame)
        if message == .reject {
            peerEnded = true
            throw PairingFailure.peerRejected
        }
        switch (state, message) {
        case (.awaitingShare, .share(let joinerKey, let joinerNonce)) where method == .comparison:
            guard let secret = keyPair.sharedSecret(with: joinerKey) else { throw PairingFailure.badKey }
            let reveal = PairingMessage.reveal(publicKey: keyPair.publicKey, nonce: nonce).frame
            let transcript = PairingCrypto.transcriptHash(commit: commitPayload, share: frame.payload, reveal: reveal.payload)
            keys = PairingCrypto.keys(sharedSecret: secret, transcript: transcript)
            state = .comparing
            let code = PairingCrypto.code(sponsorKey: keyPair.publicKey, joinerKey: joinerKey, sponsorNonce: nonce,
                                          joinerNonce: joinerNonce, transcript: transcript)
            return PairingStep(send: [reveal], code: code)
        case (.awaitingShare, .codeShare(let share, let confirmation)) where spake != nil:
            guard let agreed = spake!.finish(peerShare: share) else { throw PairingFailure.badPoint }
            guard Crypto.constantTimeEqual(agreed.confirmationB, confirmation) else { throw PairingFailure.codeMismatch }
            keys = PairingCrypto.keys(spake: agreed)
            state = .comparing
            personAccepted = true
            return PairingStep(send: [PairingMessage.codeConfirm(confirmation: agreed.confirmationA).frame])
        case (.comparing, .accept(let sealed)) where peerName == nil:
            guard let plain = PairingCrypto.open(sealed, key: keys.joinerToSponsor, label: "accept") else {
                throw PairingFailure.undecryptable("acceptance")
            }
            guard let name = PairingCrypto.deviceName(plain) else {
                throw HandoffError(.malformedData, "the other device's name breaks the device-name rule: pairing stopped")
            }
            peerName = name
            return sendKeyIfBothAccepted()
        case (.awaitingDone, .done(let sealed)):
            guard let plain = PairingCrypto.open(sealed, key: keys.joinerToSponsor, label: "done") else {
                throw PairingFailure.undecryptable("confirmation")
            }
            guard plain == PairingCrypto.accountIDBytes(accountKey) else {
                throw HandoffError(.handoffFailed, "the other device confirmed another account than this one: pairing failed")
            }
            state = .paired
            return PairingStep(paired: peerName)
        default:
            throw PairingFailure.unexpected(frame, "the sponsor was \(state)")
        }
    }

    private mutating func sendKeyIfBothAccepted() -> PairingStep {
        guard personAccepted, peerName != nil else { return PairingStep() }
        state = .awaitingDone
        let sealed = PairingCrypto.seal(accountKey.bytes + Array(deviceName.utf8), key: keys.sponsorToJoiner,
                                        label: "key", nonce: keyNonce)
        return PairingStep(send: [PairingMessage.key(sealed: sealed).frame])
    }
}
