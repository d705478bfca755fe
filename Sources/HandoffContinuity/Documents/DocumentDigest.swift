// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of a file's content, with its size and time.
public enum DocumentDigest {
    /// The facts of an open regular file; nil for anything else or a read
    /// error.
    public static func facts(ofOpenFile fd: Int32) -> DocumentFacts? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let hasher = SHA256Stream()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total: UInt64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(total)) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += UInt64(n)
        }
        let modified = Timestamp(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + 1e-9 * Double(st.st_mtim.tv_nsec))
        return DocumentFacts(size: total, modified: modified, sha256: hasher.finish())
    }
}

/// SHA-256 over bytes that come in pieces (OpenSSL's EVP digest).
public final class SHA256Stream {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "libhandoff: OpenSSL SHA-256 failed")
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "libhandoff: OpenSSL SHA-256 failed")
    }

    /// The digest (32 bytes); the stream is done after it.
    public func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "libhandoff: OpenSSL SHA-256 failed")
        return digest
    }
}
