// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel

/// The few primitives libhandoff needs, all from OpenSSL 3's EVP layer:
/// never a hand-written cryptographic primitive.
public enum Crypto {
    /// Cryptographically secure random bytes (OpenSSL's DRBG).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(ok == 1, "libhandoff: OpenSSL RAND_bytes failed")
        return bytes
    }

    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "libhandoff: OpenSSL SHA-256 failed")
        return digest
    }

    /// HKDF-SHA256 (RFC 5869), extract then expand. Through EVP_PKEY's
    /// HKDF setters, which copy their inputs: the OSSL_PARAM route keeps
    /// pointers to its parameter names, which Swift strings do not outlive.
    public static func hkdfSHA256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { fatalError("libhandoff: OpenSSL has no HKDF") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: length)
        var outLength = length
        let ok = EVP_PKEY_derive_init(ctx) == 1
            && EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1
            && EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, Int32(salt.count)) == 1
            && EVP_PKEY_CTX_set1_hkdf_key(ctx, key, Int32(key.count)) == 1
            && EVP_PKEY_CTX_add1_hkdf_info(ctx, info, Int32(info.count)) == 1
            && EVP_PKEY_derive(ctx, &out, &outLength) == 1
        precondition(ok && outLength == length, "libhandoff: OpenSSL HKDF failed")
        return out
    }
}
