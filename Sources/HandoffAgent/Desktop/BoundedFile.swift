// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Reads a small regular file whole, refusing anything larger than a bound
/// before reading it (and again while reading, should it grow). Opened
/// non-blocking so a FIFO planted where a desktop entry should be cannot
/// hang the agent; symbolic links are followed (distributions install
/// desktop entries as links).
enum BoundedFile {
    static func read(_ path: String, maxBytes: Int) throws(HandoffError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw failure(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw HandoffError(.io, "\(path): not a regular file")
        }
        guard Int(info.st_size) <= maxBytes else {
            throw HandoffError(.malformedData, "\(path): \(info.st_size) bytes, over the \(maxBytes)-byte limit")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path)
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maxBytes else {
            throw HandoffError(.malformedData, "\(path): over the \(maxBytes)-byte limit")
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    private static func failure(_ path: String) -> HandoffError {
        HandoffError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
    }
}
