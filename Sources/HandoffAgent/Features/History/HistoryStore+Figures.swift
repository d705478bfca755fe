// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// What `handoff doctor` says of the history (docs/cli.md "Doctor's
/// findings", `history`).
public struct HistoryFigures: Sendable, Equatable {
    public var entries: Int
    public var payloadBytes: Int64
    /// The database file and its WAL, in bytes.
    public var fileBytes: Int64
    public var walBytes: Int64
    public var schemaVersion: Int
    /// Free to this user on the file's filesystem; nil when unknown.
    public var freeBytes: Int64?
    /// The disk kept back for deletions is there (`PATH-reserve`).
    public var reserved: Bool
}

extension HistoryStore {
    /// The schema this release reads and writes (`PRAGMA user_version`).
    public static var schemaVersion: Int { HistorySchema.version }

    public func figures() throws(HandoffError) -> HistoryFigures {
        let (entries, bytes) = try totals()
        func size(_ p: String) -> Int64 {
            var info = stat()
            return lstat(p, &info) == 0 ? Int64(info.st_size) : 0
        }
        var fs = statvfs()
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let free: Int64? = statvfs(folder.isEmpty ? "/" : folder, &fs) == 0 ? Int64(fs.f_bavail) * Int64(fs.f_frsize) : nil
        var info = stat()
        let reserved = lstat(reservePath, &info) == 0 && info.st_size >= off_t(Self.reserveBytes)
        return HistoryFigures(entries: entries, payloadBytes: bytes, fileBytes: size(path), walBytes: size(path + "-wal"),
                              schemaVersion: try HistorySchema.userVersion(db), freeBytes: free, reserved: reserved)
    }
}
