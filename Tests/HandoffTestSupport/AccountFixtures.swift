// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel
@testable import HandoffContinuity

/// Helpers of the account and device tests (and of the relay's, which
/// use the same keys and temporary directories).
public enum AccountFixtures {
    /// The bytes of a hex string (test vectors); traps on bad input.
    public static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).filter { $0 != UInt8(ascii: " ") }
        precondition(digits.count % 2 == 0, "odd hex string")
        return stride(from: 0, to: digits.count, by: 2).map { i in
            UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16)!
        }
    }

    public static func hex(_ bytes: [UInt8]) -> String { AccountEncoding.hex(bytes) }

    /// The account key 00 01 02 ... 1f of the documented test vectors.
    public static let sequentialKey = try! AccountKey(bytes: (0..<32).map { UInt8($0) })

    /// A deterministic key per seed: SHA-256 of the seed's decimal digits.
    public static func key(seed: Int) -> AccountKey {
        try! AccountKey(bytes: Crypto.sha256(Array("seed \(seed)".utf8)))
    }

    /// Runs `body` with a fresh directory under /tmp, removed afterwards.
    public static func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
        var template = Array("/tmp/handoff-account-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HandoffError(.io, "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: made)
        defer { removeTree(path) }
        return try body(path)
    }

    /// rm -rf, without following symbolic links.
    public static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            chmod(path, 0o700)
            for name in entries(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Names in a directory, without "." and "..".
    public static func entries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Permission bits of a path (lstat).
    public static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Writes a file with the given mode, whatever the umask.
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) {
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, mode)
        precondition(fd >= 0, "cannot create \(path)")
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        close(fd)
    }

    public static func write(_ path: String, _ text: String, mode: mode_t = 0o600) {
        write(path, Array(text.utf8), mode: mode)
    }

    public static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }
}

extension AccountFixtures {
    /// `withTemporaryDirectory` for async bodies.
    public static func withTemporaryDirectoryAsync<R>(_ body: (String) async throws -> R) async throws -> R {
        var template = Array("/tmp/handoff-account-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HandoffError(.io, "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: made)
        defer { removeTree(path) }
        return try await body(path)
    }
}
