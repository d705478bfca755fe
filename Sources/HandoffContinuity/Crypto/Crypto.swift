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

    /// HKDF-SHA256 (RFC 5869), extract then expand, through EVP_KDF.
    public static func hkdfSHA256(key: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { fatalError("libhandoff: OpenSSL has no HKDF") }
        defer { EVP_KDF_free(kdf) }
        guard let ctx = EVP_KDF_CTX_new(kdf) else { fatalError("libhandoff: out of memory") }
        defer { EVP_KDF_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: length)
        var key = key, salt = salt, info = info
        var digest = Array("SHA256".utf8CString)
        let ok = key.withUnsafeMutableBytes { k in
            salt.withUnsafeMutableBytes { s in
                info.withUnsafeMutableBytes { i in
                    digest.withUnsafeMutableBufferPointer { d in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, d.baseAddress, 0),
                            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, k.baseAddress, k.count),
                            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, s.baseAddress, s.count),
                            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, i.baseAddress, i.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_KDF_derive(ctx, &out, out.count, &params)
                    }
                }
            }
        }
        precondition(ok == 1, "libhandoff: OpenSSL HKDF failed")
        return out
    }
}
