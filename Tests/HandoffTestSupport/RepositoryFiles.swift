// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel

/// Files of this repository that tests read (fuzz corpora, the protocol
/// document), found from this file's path so tests run from any folder.
public enum RepositoryFiles {
    /// The repository's root folder, without a trailing slash.
    public static let root: String = {
        var path = #filePath
        // Tests/HandoffTestSupport/RepositoryFiles.swift: three levels up.
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    /// Where tests keep real folders of documents: the tree's .build, or,
    /// for a tree under /tmp or /var/tmp (whose files a device never
    /// describes), `$HOME/handoff-tests`.
    public static let documentsScratch: String = {
        let temporary = ["/tmp/", "/var/tmp/"].contains { (root + "/").hasPrefix($0) }
        guard temporary, let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else {
            return root + "/.build/documents-tests"
        }
        return home + "/handoff-tests/documents-tests"
    }()

    /// The whole file at `path` (relative to the root).
    /// - Throws: `.io` when it cannot be opened or read.
    public static func read(_ path: String) throws(HandoffError) -> [UInt8] {
        let full = root + "/" + path
        let fd = open(full, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HandoffError(.io, "cannot open \(full)") }
        defer { close(fd) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n >= 0 else { throw HandoffError(.io, "cannot read \(full)") }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    /// The names in the folder at `path` (relative to the root), sorted,
    /// without hidden ones; none when it cannot be opened.
    public static func names(in path: String) -> [String] {
        guard let dir = opendir(root + "/" + path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }
}
