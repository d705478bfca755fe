// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// What identifies a file's version without reading it: a cache key.
struct FileStamp: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int
    var changed: Int64
    var changedNanoseconds: Int

    /// stat(2), following links; nil unless it is a regular file.
    static func regularFile(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                         modified: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec),
                         changed: Int64(info.st_ctim.tv_sec), changedNanoseconds: Int(info.st_ctim.tv_nsec))
    }
}

/// Lists desktop entry files under each data directory's `applications`
/// folder and resolves desktop-file ids (Desktop Entry Specification,
/// "Desktop File ID"): the path below `applications/` with `/` turned into
/// `-`; the first data directory that has an id wins it, whatever its file
/// says (a `Hidden=true` entry in `$XDG_DATA_HOME` hides the system one).
/// Within one directory, names are taken in byte order, so when both
/// `a-b.desktop` and `a/b.desktop` exist (the spec leaves it undefined) the
/// choice is stable.
///
/// Bounded: folders at most `maxDepth` below `applications`, at most
/// `maxEntries` directory entries looked at in all.
public struct DesktopFileScanner {
    static let maxDepth = 4
    static let maxEntries = 16384

    public struct Found: Sendable, Equatable {
        public var id: String
        public var path: String
        public var directoryIndex: Int
        var stamp: FileStamp
    }

    /// By id, and the ids in precedence order (data directory, then id).
    private(set) var byID: [String: Found] = [:]
    public private(set) var ordered: [Found] = []
    private(set) var warnings: [String] = []
    private var entriesSeen = 0

    public init(directories: [String]) {
        for (index, directory) in directories.enumerated() {
            var here: [Found] = []
            walk(directory + "/applications", prefix: "", depth: 0, index: index, into: &here)
            for found in here.sorted(by: { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }) where byID[found.id] == nil {
                byID[found.id] = found
                ordered.append(found)
            }
        }
    }

    private mutating func walk(_ folder: String, prefix: String, depth: Int, index: Int, into found: inout [Found]) {
        guard let names = Self.list(folder) else { return }
        for name in names {
            entriesSeen += 1
            guard entriesSeen <= Self.maxEntries else {
                if entriesSeen == Self.maxEntries + 1 {
                    warnings.append("\(folder): more than \(Self.maxEntries) files in the applications folders; the rest are not looked at")
                }
                return
            }
            let path = folder + "/" + name
            if name.hasSuffix(".desktop"), name.count > 8, let stamp = FileStamp.regularFile(path) {
                found.append(Found(id: prefix + name, path: path, directoryIndex: index, stamp: stamp))
            } else if depth < Self.maxDepth, Self.isDirectory(path) {
                walk(path, prefix: prefix + name + "-", depth: depth + 1, index: index, into: &found)
            }
        }
    }

    /// Names in a folder, sorted bytewise, without `.` and `..`; nil when
    /// it cannot be opened (absent is normal).
    static func list(_ folder: String) -> [String]? {
        guard let dir = opendir(folder) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // A name that is not UTF-8 cannot be a desktop-file id.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(validating: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let name, name != "." && name != ".." { names.append(name) }
            if names.count > maxEntries { break }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
