// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a whole (small) file. Plain POSIX, because FoundationEssentials'
/// `Data(contentsOf:)` leaks a page on an empty file.
enum FileReading {
    /// Files larger than this are refused: manifests are a few KB.
    static let maxSize = 16 << 20

    static func read(_ path: String) throws(HandoffError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            if bytes.count > maxSize {
                throw HandoffError(.io, "\(Identifier.quoted(path)) is larger than \(maxSize) bytes; that is no Info.plist")
            }
        }
    }

    private static func failure(_ path: String) -> HandoffError {
        HandoffError(.io, "cannot read \(Identifier.quoted(path)): \(String(cString: strerror(errno)))")
    }
}
