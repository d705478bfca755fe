// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The joiner's side of a pairing (docs/PROTOCOL.md §9): the responder,
/// the device without the account. Pure like `PairingSponsorMachine`.
///
/// Comparison: COMMIT (own session) → SHARE (the attempt begins); REVEAL
/// matching the commitment → the code; the person's yes → ACCEPT.
/// One-time code: CODE_START (own session) → CODE_SHARE (the attempt
/// begins); CODE_CONFIRM with the right cA → ACCEPT, nobody asked.
/// Then KEY → store the key; `keyStored()` → DONE and paired.
public struct PairingJoinerMachine: Sendable {
    enum State: Sendable { case awaitingCommit, awaitingReveal, awaitingConfirm, comparing, awaitingKey, storing, paired, failed }

    private let keyPair: X25519KeyPair
    private let nonce: [UInt8]
    private let sessionID: [UInt8]
    private let deviceName: String
    private let acceptNonce: [UInt8]?
    private let doneNonce: [UInt8]?
    private let method: PairingMethod
    private let spakeSecret: [UInt8]?
    private var expectedConfirmation: [UInt8] = []
    private(set) var state = State.awaitingCommit
    private var commitPayload: [UInt8] = []
    private var commitment: [UInt8] = []
    private var sharePayload: [UInt8] = []
    private var keys: (sponsorToJoiner: [UInt8], joinerToSponsor: [UInt8]) = ([], [])
    private var receivedKey: AccountKey?
    public private(set) var peerName: String?
    public private(set) var peerEnded = false
    /// True once SHARE has gone: from then on a failure ends the run.
    public var attemptBegun: Bool { !sharePayload.isEmpty }

    /// `keyPair`, `nonce`, `acceptNonce` and `doneNonce` (ACCEPT's and
    /// DONE's GCM nonces) and `spakeSecret` (SPAKE2's y) are fresh unless a
    /// test vector fixes them.
    public init(sessionID: [UInt8], deviceName: String, method: PairingMethod = .comparison, keyPair: X25519KeyPair = .generate(),
                nonce: [UInt8] = Crypto.randomBytes(PairingMessage.nonceSize), acceptNonce: [UInt8]? = nil,
                doneNonce: [UInt8]? = nil, spakeSecret: [UInt8]? = nil) {
        precondition(sessionID.count == PairingBeacon.sessionIDSize && nonce.count == PairingMessage.nonceSize)
        self.sessionID = sessionID
        self.deviceName = deviceName
        self.keyPair = keyPair
        self.nonce = nonce
        self.acceptNonce = acceptNonce
        self.doneNonce = doneNonce
        self.method = method
        self.spakeSecret = spakeSecret
    }

    /// Whether `frame` opens this joiner's session the way its method
    /// expects (COMMIT, or CODE_START whose pA is a point of P-256): the
    /// listener's filter, so garbage and other sessions never begin the
    /// attempt.
    public func isCommitForUs(_ frame: Frame) -> Bool {
        switch (method, try? PairingMessage(frame)) {
        case (.comparison, .commit(let session, _)?): session == sessionID
        case (.code, .codeStart(let session, let share)?): session == sessionID && P256().point(share) != nil
        default: false
        }
    }

    public mutating func receive(_ frame: Frame) throws(HandoffError) -> PairingStep {
        do throws(HandoffError) {
            return try handle(frame)
        } catch {
            state = .failed
            throw error
        }
    }

    public mutating func answer(_ yes: Bool) throws(HandoffError) -> PairingStep {
        guard state == .comparing else { throw HandoffError(.invalidState, "the code is not being compared now") }
        guard yes else {
            state = .failed
            throw PairingFailure.rejectedHere
        }
        return accept()
    }

    private mutating func accept() -> PairingStep {
        state = .awaitingKey
        let sealed = PairingCrypto.seal(Array(deviceName.utf8), key: keys.joinerToSponsor, label: "accept", nonce: acceptNonce)
        return PairingStep(send: [PairingMessage.accept(sealed: sealed).frame])
    }

    /// The key from KEY is on disk: DONE, and the pairing succeeded.
    public mutating func keyStored() -> PairingStep {
        precondition(state == .storing, "keyStored() without a key to store")
        state = .paired
        let sealed = PairingCrypto.seal(PairingCrypto.accountIDBytes(receivedKey!), key: keys.joinerToSponsor, label: "done",
                                       nonce: doneNonce)
        return PairingStep(send: [PairingMessage.done(sealed: sealed).frame], paired: peerName)
    }

    private mutating func handle(_ frame: Frame) throws(HandoffError) -> PairingStep {
        let message = try PairingMessage(frame)
        if message == .reject {
            peerEnded = true
            throw PairingFailure.peerRejected
        }
        switch (state, message) {
        case (.awaitingCommit, .commit(let session, let commitment)):
            guard method == .comparison, session == sessionID else {
                throw HandoffError(.malformedData, "a sponsor named another pairing session: not this one")
            }
            commitPayload = frame.payload
            self.commitment = commitment
            let share = PairingMessage.share(publicKey: keyPair.publicKey, nonce: nonce).frame
            sharePayload = share.payload
            state = .awaitingReveal
            return PairingStep(send: [share])
        case (.awaitingReveal, .reveal(let sponsorKey, let sponsorNonce)):
            // Compared in full; the commitment is public, so no timing secret.
            guard PairingCrypto.commitment(publicKey: sponsorKey, nonce: sponsorNonce) == commitment else {
                throw HandoffError(.handoffFailed,
                    "the other device's key does not match what it committed to: someone may be interfering; pairing stopped")
            }
            guard let secret = keyPair.sharedSecret(with: sponsorKey) else { throw PairingFailure.badKey }
            let transcript = PairingCrypto.transcriptHash(commit: commitPayload, share: sharePayload, reveal: frame.payload)
            keys = PairingCrypto.keys(sharedSecret: secret, transcript: transcript)
            state = .comparing
            return PairingStep(code: PairingCrypto.code(sponsorKey: sponsorKey, joinerKey: keyPair.publicKey,
                                                        sponsorNonce: sponsorNonce, joinerNonce: nonce, transcript: transcript))
        case (.awaitingCommit, .codeStart(let session, let share)):
            guard case .code(let code) = method, session == sessionID else {
                throw HandoffError(.malformedData, "a sponsor named another pairing session or method: not this one")
            }
            let spake = PairingCrypto.spake(.b, code: code, sessionID: sessionID, secret: spakeSecret)
            guard let agreed = spake.finish(peerShare: share) else { throw PairingFailure.badPoint }
            keys = PairingCrypto.keys(spake: agreed)
            expectedConfirmation = agreed.confirmationA
            let reply = PairingMessage.codeShare(share: spake.share, confirmation: agreed.confirmationB).frame
            sharePayload = reply.payload
            state = .awaitingConfirm
            return PairingStep(send: [reply])
        case (.awaitingConfirm, .codeConfirm(let confirmation)):
            guard Crypto.constantTimeEqual(expectedConfirmation, confirmation) else { throw PairingFailure.codeMismatch }
            return accept()
        case (.awaitingKey, .key(let sealed)):
            guard let plain = PairingCrypto.open(sealed, key: keys.sponsorToJoiner, label: "key") else {
                throw PairingFailure.undecryptable("account key")
            }
            guard let name = PairingCrypto.deviceName(plain[AccountKey.size...]),
                  let key = try? AccountKey(bytes: Array(plain[..<AccountKey.size])) else {
                throw HandoffError(.malformedData, "the other device's key message is malformed: nothing was stored")
            }
            peerName = name
            receivedKey = key
            state = .storing
            return PairingStep(storeKey: key)
        default:
            throw PairingFailure.unexpected(frame, "the joiner was \(state)")
        }
    }
}
