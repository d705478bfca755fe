// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One pairing message (docs/PROTOCOL.md §9 "Messages"), carried in a
/// channel-style frame. Every type has a fixed size or a narrow range, so
/// a reader refuses a wrong N from the frame header alone, before reading
/// or allocating the payload (`allowedLengths`).
public enum PairingMessage: Sendable, Equatable {
    /// S → J: version, the joiner's session ID and SHA-256 commitment to pkS ‖ nS.
    case commit(sessionID: [UInt8], commitment: [UInt8])
    /// J → S: the joiner's public key and nonce.
    case share(publicKey: [UInt8], nonce: [UInt8])
    /// S → J: the sponsor's public key and nonce, opening the commitment.
    case reveal(publicKey: [UInt8], nonce: [UInt8])
    /// J → S, sealed: the joiner's device name (its person accepted).
    case accept(sealed: [UInt8])
    /// S → J, sealed: the account key and the sponsor's device name.
    case key(sealed: [UInt8])
    /// J → S, sealed: the account ID bytes of the stored key.
    case done(sealed: [UInt8])
    /// Either way: this side ends the pairing.
    case reject
    /// One-time code, S → J: version, the joiner's session ID and SPAKE2's pA.
    case codeStart(sessionID: [UInt8], share: [UInt8])
    /// One-time code, J → S: SPAKE2's pB and the joiner's confirmation cB.
    case codeShare(share: [UInt8], confirmation: [UInt8])
    /// One-time code, S → J: the sponsor's confirmation cA.
    case codeConfirm(confirmation: [UInt8])

    public static let commitType: UInt8 = 0x21
    public static let shareType: UInt8 = 0x22
    public static let revealType: UInt8 = 0x23
    public static let acceptType: UInt8 = 0x24
    public static let keyType: UInt8 = 0x25
    public static let doneType: UInt8 = 0x26
    public static let rejectType: UInt8 = 0x27
    public static let codeStartType: UInt8 = 0x28
    public static let codeShareType: UInt8 = 0x29
    public static let codeConfirmType: UInt8 = 0x2A

    public static let version: UInt8 = 1
    public static let nonceSize = 16
    static let shareSize = X25519KeyPair.keySize + nonceSize
    static let commitSize = 1 + PairingBeacon.sessionIDSize + 32
    static let sealOverhead = AESGCM.overhead
    static let accountIDSize = 8
    static let confirmationSize = 32
    static let codeStartSize = 1 + PairingBeacon.sessionIDSize + P256.pointSize
    static let codeShareSize = P256.pointSize + confirmationSize

    /// The values of N (type byte + payload) a frame of `type` may have;
    /// nil for a type that is no pairing message.
    public static func allowedLengths(type: UInt8) -> ClosedRange<Int>? {
        switch type {
        case commitType: 1 + commitSize...1 + commitSize
        case shareType, revealType: 1 + shareSize...1 + shareSize
        case acceptType: 1 + sealOverhead + 1...1 + sealOverhead + DeviceIdentity.maxNameLength
        case keyType: 1 + sealOverhead + AccountKey.size + 1...1 + sealOverhead + AccountKey.size + DeviceIdentity.maxNameLength
        case doneType: 1 + sealOverhead + accountIDSize...1 + sealOverhead + accountIDSize
        case rejectType: 1...1
        case codeStartType: 1 + codeStartSize...1 + codeStartSize
        case codeShareType: 1 + codeShareSize...1 + codeShareSize
        case codeConfirmType: 1 + confirmationSize...1 + confirmationSize
        default: nil
        }
    }

    /// The message in `frame`; `.malformedData` for an unknown type or a
    /// payload of the wrong size.
    public init(_ frame: Frame) throws(HandoffError) {
        guard let lengths = Self.allowedLengths(type: frame.type), lengths.contains(frame.length) else {
            throw HandoffError(.malformedData,
                "a pairing message of type \(frame.type) and \(frame.payload.count) payload bytes is no message of pairing v1")
        }
        let p = frame.payload
        switch frame.type {
        case Self.commitType, Self.codeStartType:
            guard p[0] == Self.version else {
                throw HandoffError(.malformedData, "the other device speaks pairing version \(p[0]), not \(Self.version): update libhandoff on both")
            }
            self = frame.type == Self.commitType
                ? .commit(sessionID: Array(p[1..<17]), commitment: Array(p[17...]))
                : .codeStart(sessionID: Array(p[1..<17]), share: Array(p[17...]))
        case Self.codeShareType:
            self = .codeShare(share: Array(p[..<P256.pointSize]), confirmation: Array(p[P256.pointSize...]))
        case Self.codeConfirmType: self = .codeConfirm(confirmation: p)
        case Self.shareType:
            self = .share(publicKey: Array(p[..<32]), nonce: Array(p[32...]))
        case Self.revealType:
            self = .reveal(publicKey: Array(p[..<32]), nonce: Array(p[32...]))
        case Self.acceptType: self = .accept(sealed: p)
        case Self.keyType: self = .key(sealed: p)
        case Self.doneType: self = .done(sealed: p)
        default: self = .reject
        }
    }

    public var frame: Frame {
        switch self {
        case .commit(let session, let commitment):
            Frame(type: Self.commitType, payload: [Self.version] + session + commitment)
        case .share(let key, let nonce): Frame(type: Self.shareType, payload: key + nonce)
        case .reveal(let key, let nonce): Frame(type: Self.revealType, payload: key + nonce)
        case .accept(let sealed): Frame(type: Self.acceptType, payload: sealed)
        case .key(let sealed): Frame(type: Self.keyType, payload: sealed)
        case .done(let sealed): Frame(type: Self.doneType, payload: sealed)
        case .reject: Frame(type: Self.rejectType, payload: [])
        case .codeStart(let session, let share): Frame(type: Self.codeStartType, payload: [Self.version] + session + share)
        case .codeShare(let share, let confirmation): Frame(type: Self.codeShareType, payload: share + confirmation)
        case .codeConfirm(let confirmation): Frame(type: Self.codeConfirmType, payload: confirmation)
        }
    }
}
