// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel

/// AES-256-GCM with a 12-byte nonce and the full 16-byte tag, through
/// OpenSSL's EVP interface. A sealed message is nonce || ciphertext || tag.
public struct AESGCM: Sendable {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16
    public static let overhead = nonceSize + tagSize

    private let key: [UInt8]

    public init(key: [UInt8]) {
        precondition(key.count == Self.keySize, "AES-256-GCM needs a 32-byte key")
        self.key = key
    }

    /// Seals `plaintext`; a fresh random nonce unless one is given (tests
    /// and test vectors only: never reuse a nonce under one key).
    public func seal(_ plaintext: [UInt8], aad: [UInt8], nonce: [UInt8]? = nil) -> [UInt8] {
        let nonce = nonce ?? Crypto.randomBytes(Self.nonceSize)
        precondition(nonce.count == Self.nonceSize)
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("libhandoff: out of memory") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var tag = [UInt8](repeating: 0, count: Self.tagSize)
        var length: Int32 = 0, total = 0
        var ok = EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1
        if !aad.isEmpty {
            ok = ok && EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1
        }
        ok = ok && out.withUnsafeMutableBufferPointer { o in
            EVP_EncryptUpdate(ctx, o.baseAddress, &length, plaintext, Int32(plaintext.count)) == 1
        }
        total = Int(length)
        ok = ok && out.withUnsafeMutableBufferPointer { o in
            EVP_EncryptFinal_ex(ctx, o.baseAddress! + total, &length) == 1
        }
        total += Int(length)
        ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), &tag) == 1
        precondition(ok, "libhandoff: OpenSSL AES-256-GCM seal failed")
        return nonce + out[0..<total] + tag
    }

    /// Opens a sealed message; nil when it does not authenticate (wrong
    /// key, altered, truncated): the caller drops it.
    public func open(_ sealed: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard sealed.count >= Self.overhead else { return nil }
        let nonce = Array(sealed[0..<Self.nonceSize])
        let body = Array(sealed[Self.nonceSize..<(sealed.count - Self.tagSize)])
        var tag = Array(sealed[(sealed.count - Self.tagSize)...])
        guard let ctx = EVP_CIPHER_CTX_new() else { fatalError("libhandoff: out of memory") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: body.count + 16)
        var length: Int32 = 0, total = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return nil }
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }
        }
        let updated = out.withUnsafeMutableBufferPointer { o in
            EVP_DecryptUpdate(ctx, o.baseAddress, &length, body, Int32(body.count)) == 1
        }
        guard updated else { return nil }
        total = Int(length)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), &tag) == 1 else { return nil }
        let finished = out.withUnsafeMutableBufferPointer { o in
            EVP_DecryptFinal_ex(ctx, o.baseAddress! + total, &length) == 1
        }
        guard finished else { return nil }
        total += Int(length)
        return Array(out[0..<total])
    }
}
