// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real folders for the documents' tests: under the repository's .build/
/// (not /tmp, whose files are never described), removed afterwards.
enum DocumentTestFolders {
    static func with<R>(_ body: (String) throws -> R) throws -> R {
        let parent = RepositoryFiles.documentsScratch
        makeFolders(parent)
        var template = Array((parent + "/run-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HandoffError(.io, "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: made)
        defer { AccountFixtures.removeTree(path) }
        return try body(path)
    }

    /// `mkdir -p`.
    static func makeFolders(_ path: String) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            _ = mkdir(prefix, 0o755)
        }
    }

    /// Writes `text` at `path`, its folders made first.
    static func write(_ path: String, _ text: String) throws {
        makeFolders(String(path[..<path.lastIndex(of: "/")!]))
        try TestFiles.write(path, Array(text.utf8))
    }

    /// The names in `path`, sorted (hidden ones too).
    static func names(_ path: String) -> [String] {
        AccountFixtures.entries(path).sorted()
    }

    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
