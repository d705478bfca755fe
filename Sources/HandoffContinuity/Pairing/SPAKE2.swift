// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// SPAKE2 (RFC 9382), ciphersuite SPAKE2-P256-SHA256-HKDF-HMAC, for the
/// one-time-code pairing (docs/PROTOCOL.md §9 "One-time code"). The group
/// arithmetic is OpenSSL's (`P256`); this is the protocol's bookkeeping:
/// shares, the transcript TT, the key schedule and the confirmations.
/// Tested against RFC 9382's Appendix B vectors.
struct SPAKE2: @unchecked Sendable {
    // @unchecked: its OpenSSL objects are never mutated after init, and a
    // pairing machine (the only owner) is driven by one thread at a time.
    enum Role { case a, b }

    /// What both sides hold once the peer's share is in.
    struct Keys: Equatable {
        var transcript: [UInt8]
        /// The shared key Ke (first half of SHA-256(TT)).
        var sharedKey: [UInt8]
        /// cA and cB: each side sends its own and checks the other's.
        var confirmationA: [UInt8]
        var confirmationB: [UInt8]
    }

    /// RFC 9382 §4, P-256, compressed.
    static let m: [UInt8] = hex("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f")
    static let n: [UInt8] = hex("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49")

    let role: Role
    /// pA for A, pB for B: 65 bytes, uncompressed.
    let share: [UInt8]
    private let curve: P256
    private let w: P256.Scalar
    private let secret: P256.Scalar
    private let identityA: [UInt8]
    private let identityB: [UInt8]
    private let aad: [UInt8]

    /// - Parameters: `password` the scalar w as big-endian bytes (reduced
    ///   mod n here); `secret` x or y, random unless a test vector fixes it.
    init(role: Role, password: [UInt8], identityA: [UInt8], identityB: [UInt8], aad: [UInt8], secret: [UInt8]? = nil) {
        let curve = P256()
        self.curve = curve
        self.role = role
        self.identityA = identityA
        self.identityB = identityB
        self.aad = aad
        w = curve.scalar(reducing: password)
        self.secret = secret.map { curve.scalar(reducing: $0) } ?? curve.randomScalar()
        let mask = curve.point(role == .a ? Self.m : Self.n)!
        share = curve.encode(curve.multiplyAdd(generator: self.secret, mask, w))
    }

    /// The keys given the peer's share; nil when that share is no point of
    /// P-256 (or is infinity) or K comes out at infinity.
    func finish(peerShare: [UInt8]) -> Keys? {
        guard peerShare.count == P256.pointSize, let peer = curve.point(peerShare) else { return nil }
        // K = secret · (peer − w · peer's mask).
        let peerMask = curve.point(role == .a ? Self.n : Self.m)!
        let unmasked = curve.subtract(peer, curve.multiply(peerMask, w))
        guard !curve.isInfinity(unmasked) else { return nil }
        let k = curve.multiply(unmasked, secret)
        guard !curve.isInfinity(k) else { return nil }
        let (pA, pB) = role == .a ? (share, peerShare) : (peerShare, share)
        var transcript: [UInt8] = []
        for part in [identityA, identityB, pA, pB, curve.encode(k), curve.bytes(w)] {
            transcript += Self.littleEndian64(part.count) + part
        }
        let hash = Crypto.sha256(transcript)
        let confirmationKeys = Crypto.hkdfSHA256(key: Array(hash[16...]), salt: [],
                                                 info: Array("ConfirmationKeys".utf8) + aad, length: 32)
        return Keys(transcript: transcript, sharedKey: Array(hash[..<16]),
                    confirmationA: Crypto.hmacSHA256(key: Array(confirmationKeys[..<16]), transcript),
                    confirmationB: Crypto.hmacSHA256(key: Array(confirmationKeys[16...]), transcript))
    }

    private static func littleEndian64(_ value: Int) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(value) >> (8 * $0)) }
    }

    private static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
}
