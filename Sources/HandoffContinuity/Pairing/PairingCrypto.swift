// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The pairing's derivations (docs/PROTOCOL.md §9 "Order", step 4), all
/// from OpenSSL: the commitment, the transcript hash, the six-digit code
/// and the two direction keys, and the sealing of the three secret
/// messages.
public enum PairingCrypto {
    static let label: [UInt8] = Array("libhandoff pair v1".utf8)
    static let commitLabel: [UInt8] = Array("libhandoff pair commit v1".utf8)

    /// C = SHA-256("libhandoff pair commit v1" ‖ pk ‖ n).
    public static func commitment(publicKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        Crypto.sha256(commitLabel + publicKey + nonce)
    }

    /// TH = SHA-256("libhandoff pair v1" ‖ COMMIT ‖ SHARE ‖ REVEAL payloads).
    public static func transcriptHash(commit: [UInt8], share: [UInt8], reveal: [UInt8]) -> [UInt8] {
        Crypto.sha256(label + commit + share + reveal)
    }

    /// The code: HKDF-SHA256 over both public keys and nonces, bound to the
    /// transcript, 8 bytes read big-endian, mod 10⁶.
    public static func code(sponsorKey: [UInt8], joinerKey: [UInt8], sponsorNonce: [UInt8], joinerNonce: [UInt8],
                            transcript: [UInt8]) -> ComparisonCode {
        let bytes = Crypto.hkdfSHA256(key: sponsorKey + joinerKey + sponsorNonce + joinerNonce, salt: label,
                                      info: Array("sas".utf8) + transcript, length: 8)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return ComparisonCode(value: UInt32(value % 1_000_000))!
    }

    /// The direction keys: sponsor → joiner and joiner → sponsor.
    public static func keys(sharedSecret: [UInt8], transcript: [UInt8]) -> (sponsorToJoiner: [UInt8], joinerToSponsor: [UInt8]) {
        (Crypto.hkdfSHA256(key: sharedSecret, salt: transcript, info: Array("pair key s to j".utf8), length: 32),
         Crypto.hkdfSHA256(key: sharedSecret, salt: transcript, info: Array("pair key j to s".utf8), length: 32))
    }

    static let codeLabel: [UInt8] = Array("libhandoff pair code v1".utf8)

    /// A one-time-code run's SPAKE2 for `role`: identities and AAD bound to
    /// the session (docs/PROTOCOL.md §9 "One-time code", "Derivation").
    static func spake(_ role: SPAKE2.Role, code: OneTimeCode, sessionID: [UInt8], secret: [UInt8]?) -> SPAKE2 {
        SPAKE2(role: role, password: code.password, identityA: Array("libhandoff sponsor".utf8),
               identityB: Array("libhandoff joiner".utf8), aad: codeLabel + sessionID, secret: secret)
    }

    /// The direction keys of a one-time-code run, from SPAKE2's Ke.
    static func keys(spake: SPAKE2.Keys) -> (sponsorToJoiner: [UInt8], joinerToSponsor: [UInt8]) {
        let salt = Crypto.sha256(spake.transcript)
        return (Crypto.hkdfSHA256(key: spake.sharedKey, salt: salt, info: Array("pair key s to j".utf8), length: 32),
                Crypto.hkdfSHA256(key: spake.sharedKey, salt: salt, info: Array("pair key j to s".utf8), length: 32))
    }

    /// seal(k, label, m): AES-256-GCM, AAD "libhandoff pair v1 " ‖ label.
    /// A random nonce unless one is given (test vectors only).
    public static func seal(_ message: [UInt8], key: [UInt8], label: String, nonce: [UInt8]? = nil) -> [UInt8] {
        AESGCM(key: key).seal(message, aad: aad(label), nonce: nonce)
    }

    public static func open(_ sealed: [UInt8], key: [UInt8], label: String) -> [UInt8]? {
        AESGCM(key: key).open(sealed, aad: aad(label))
    }

    private static func aad(_ label: String) -> [UInt8] {
        Self.label + Array(" \(label)".utf8)
    }

    /// A device name from a sealed message: §4's rule, else nil.
    static func deviceName(_ bytes: some Collection<UInt8>) -> String? {
        guard let name = String(validating: bytes, as: UTF8.self) else { return nil }
        do throws(HandoffError) {
            try DeviceIdentity.validateName(name)
        } catch {
            return nil
        }
        return name
    }

    /// The 8 raw bytes behind an account ID.
    static func accountIDBytes(_ key: AccountKey) -> [UInt8] {
        DerivedKeys.derive(key.bytes, label: "account id", length: 8)
    }
}
