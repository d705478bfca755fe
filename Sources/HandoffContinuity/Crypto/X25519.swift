// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel

/// An X25519 key pair (RFC 7748) through OpenSSL's EVP_PKEY_X25519, made
/// fresh for each pairing. The private key never leaves OpenSSL.
public final class X25519KeyPair: @unchecked Sendable {
    public static let keySize = 32

    private let key: OpaquePointer
    /// The 32-byte public key, as sent on the wire.
    public let publicKey: [UInt8]

    private init(key: OpaquePointer) {
        self.key = key
        var out = [UInt8](repeating: 0, count: Self.keySize)
        var length = Self.keySize
        let ok = EVP_PKEY_get_raw_public_key(key, &out, &length) == 1 && length == Self.keySize
        precondition(ok, "libhandoff: OpenSSL could not give an X25519 public key")
        publicKey = out
    }

    deinit { EVP_PKEY_free(key) }

    /// A new random key pair (OpenSSL's DRBG).
    public static func generate() -> X25519KeyPair {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_X25519, nil) else { fatalError("libhandoff: OpenSSL has no X25519") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let key else {
            fatalError("libhandoff: OpenSSL X25519 key generation failed")
        }
        return X25519KeyPair(key: key)
    }

    /// The key pair of a given 32-byte private key: test vectors only.
    public static func fromPrivateKey(_ bytes: [UInt8]) -> X25519KeyPair? {
        guard bytes.count == keySize,
              let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, bytes, bytes.count) else { return nil }
        return X25519KeyPair(key: key)
    }

    /// The shared secret with `peer`'s public key; nil when OpenSSL refuses
    /// it, which includes an all-zero result (a small-order point), which
    /// is also refused here in case a provider does not check.
    public func sharedSecret(with peer: [UInt8]) -> [UInt8]? {
        guard peer.count == Self.keySize,
              let peerKey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, peer.count) else { return nil }
        defer { EVP_PKEY_free(peerKey) }
        guard let ctx = EVP_PKEY_CTX_new(key, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: Self.keySize)
        var length = Self.keySize
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peerKey) == 1,
              EVP_PKEY_derive(ctx, &out, &length) == 1, length == Self.keySize else {
            ERR_clear_error()
            return nil
        }
        guard out.contains(where: { $0 != 0 }) else { return nil }
        return out
    }
}
