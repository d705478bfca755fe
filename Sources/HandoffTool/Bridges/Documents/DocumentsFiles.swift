// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The files the documents bridge reads, each bounded: the whole file or
/// nil (absent, unreadable, not a regular file, or over `max` bytes).
enum DocumentsFiles {
    static func read(_ path: String, max: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= max else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            if bytes.count > max { return nil }
        }
    }

    /// `realpath(3)`; nil when it does not resolve.
    static func resolve(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// KDE's recent documents: the `keep` newest `*.desktop` files of the
    /// folder (by modification time; at most 1024 names looked at).
    static func kdeRecentDocuments(in folder: String, keep: Int, home: String) -> [RecentBookmark] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var found: [(String, Double)] = []
        var seen = 0
        while let entry = readdir(dir), seen < 1024 {
            seen += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".desktop") else { continue }
            var info = stat()
            guard stat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append((name, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
        }
        return found.sorted { $0.1 > $1.1 }.prefix(keep).compactMap { name, modified in
            guard let bytes = read(folder + "/" + name, max: KDERecentDocument.maxBytes) else { return nil }
            return try? KDERecentDocument.read(bytes, source: name, modified: modified, home: home)
        }
    }
}
