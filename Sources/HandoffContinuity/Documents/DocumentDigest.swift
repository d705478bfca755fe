// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of a file's content, with its size and time.
public enum DocumentDigest {
    /// The facts of an open regular file; nil for anything else or a read
    /// error. A file hashed before and unchanged since costs an `fstat`
    /// (`DocumentDigestCache.shared`).
    public static func facts(ofOpenFile fd: Int32) -> DocumentFacts? {
        DocumentDigestCache.shared.facts(ofOpenFile: fd)
    }

    /// Reads the whole file and hashes it, uncached; nil unless it is a
    /// regular file that did not change while it was read. Never more than
    /// its size when it was looked at, and one byte: a file grown since
    /// (a sparse terabyte) is not read to its new end.
    static func hash(ofOpenFile fd: Int32, stat before: stat) -> DocumentFacts? {
        let hasher = SHA256Stream()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total: UInt64 = 0
        let most = UInt64(max(0, before.st_size)) + 1
        while total < most {
            let want = Int(min(UInt64(buffer.count), most - total))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(total)) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            total += UInt64(n)
        }
        var after = stat()
        guard fstat(fd, &after) == 0, DocumentDigestCache.Key(after) == DocumentDigestCache.Key(before),
              total == UInt64(after.st_size) else { return nil }
        let modified = Timestamp(timeIntervalSince1970: Double(after.st_mtim.tv_sec) + 1e-9 * Double(after.st_mtim.tv_nsec))
        return DocumentFacts(size: total, modified: modified, sha256: hasher.finish())
    }
}

/// Digests already computed, by what identifies a file's state without
/// reading it: device, inode, size, modification and change time (ns;
/// the change time too, since a program can set the modification time
/// back). Bounded: the least recently used goes first. Thread-safe.
public final class DocumentDigestCache: Sendable {
    /// The one every part of the process shares.
    public static let shared = DocumentDigestCache()

    struct Key: Hashable, Sendable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int64, changed: Int64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }
    }

    private struct State {
        var entries: [Key: (facts: DocumentFacts, used: UInt64)] = [:]
        var tick: UInt64 = 0
        var hashes = 0
    }

    public let capacity: Int
    private let state = Locked(State())

    public init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// How many times a file was read whole (the cache missed).
    public var hashes: Int { state.withLock { $0.hashes } }

    /// As `DocumentDigest.facts(ofOpenFile:)`, remembered.
    public func facts(ofOpenFile fd: Int32) -> DocumentFacts? {
        factsAndState(ofOpenFile: fd)?.facts
    }

    /// The facts and the state (device, inode, size, times) of the file
    /// they were read from: the file was that state before and after it
    /// was hashed.
    func factsAndState(ofOpenFile fd: Int32) -> (facts: DocumentFacts, state: Key)? {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let key = Key(info)
        let known = state.withLock { state -> DocumentFacts? in
            state.tick += 1
            guard let entry = state.entries[key] else { return nil }
            state.entries[key]!.used = state.tick
            return entry.facts
        }
        if let known { return (known, key) }
        state.withLock { $0.hashes += 1 }
        // Hashed outside the lock: other threads' stats go on meanwhile.
        guard let facts = DocumentDigest.hash(ofOpenFile: fd, stat: info) else { return nil }
        state.withLock { state in
            if state.entries.count >= capacity, state.entries[key] == nil,
               let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key {
                state.entries[oldest] = nil
            }
            state.tick += 1
            state.entries[key] = (facts, state.tick)
        }
        return (facts, key)
    }

    /// How many digests are kept now.
    public var count: Int { state.withLock { $0.entries.count } }
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
