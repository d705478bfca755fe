// SPDX-License-Identifier: MIT OR Apache-2.0
import CSQLite
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Deleting (docs/history.md "Deleting"): what is deleted is gone from the
/// file and its WAL when `delete` returns, and deleting works on a full
/// disk.
///
/// - Gone at once: `secure_delete` overwrites the deleted rows' bytes, the
///   full-text index is merged into one segment (FTS5 keeps a deleted
///   entry's words in its older segments until a merge), and a TRUNCATE
///   checkpoint copies the WAL into the file and empties it.
/// - A full disk: a WAL transaction appends pages, so a deletion grows the
///   WAL even though the file shrinks. The store keeps `reserveBytes` of
///   disk in `PATH-reserve`; a deletion the disk refuses frees it,
///   empties the WAL and tries again, in smaller transactions (each at
///   most `deletionChunk` entries, halved down to one, a checkpoint after
///   each: the WAL never needs more than one chunk's pages). The reserve
///   is made again once there is room.
extension HistoryStore {
    /// Disk kept back for deletions.
    public static let reserveBytes = 4 << 20
    /// Entries deleted in one transaction at most.
    static let deletionChunk = 1024

    public var reservePath: String { path + "-reserve" }

    /// Deletes what `deletion` names; returns how many entries went.
    /// - Throws: `.io` when even one entry cannot be deleted (the disk
    ///   full with no reserve left, an unwritable file); what went before
    ///   the failure stays deleted.
    @discardableResult
    public func delete(_ deletion: HistoryDeletion) throws(HandoffError) -> Int {
        var deleted = 0
        // What was written between the look and the deletion is looked for again.
        for _ in 0..<8 {
            let ids = try ids(of: deletion)
            if ids.isEmpty { break }
            deleted += try delete(ids: ids)
            if case .entries = deletion { break }
            if case .persistentIdentifiers = deletion { break }
        }
        if deleted > 0 { scrub() }
        ensureReserve()
        return deleted
    }

    /// The entries `deletion` names, each looked up through an index.
    private func ids(of deletion: HistoryDeletion) throws(HandoffError) -> [Int64] {
        switch deletion {
        case .entries(let ids):
            let s = try statement("SELECT id FROM entries WHERE id = ?1")
            var out: [Int64] = []
            for id in ids { out += try s.rows([.integer(id)]) { $0.integer(0) } }
            return out
        case .persistentIdentifiers(let pids, let team):
            let s = try statement("SELECT id FROM entries WHERE team = ?1 AND persistent_id = ?2")
            var out: [Int64] = []
            for pid in pids { out += try s.rows([.text(team), .text(pid)]) { $0.integer(0) } }
            return out
        case .bundle(let bundle):
            return try statement("SELECT id FROM entries WHERE bundle = ?1").rows([.text(bundle)]) { $0.integer(0) }
        case .device(let id):
            return try statement("SELECT id FROM entries WHERE device_id = ?1").rows([.blob(id)]) { $0.integer(0) }
        case .all:
            return try statement("SELECT id FROM entries ORDER BY id").rows { $0.integer(0) }
        }
    }

    /// Deletes `ids` in transactions of at most `deletionChunk`, smaller
    /// when the disk refuses (see the type's comment).
    func delete(ids: [Int64]) throws(HandoffError) -> Int {
        var chunk = Self.deletionChunk
        var start = 0
        var deleted = 0
        let one = try statement("DELETE FROM entries WHERE id = ?1")
        while start < ids.count {
            let part = ids[start..<min(ids.count, start + chunk)]
            do {
                deleted += try db.transaction { () throws(HandoffError) -> Int in
                    var n = 0
                    for id in part { try one.run([.integer(id)]); n += db.changes }
                    return n
                }
                start += part.count
                // The next chunk starts the WAL from its beginning.
                if start < ids.count { try? checkpoint() }
            } catch {
                guard db.lastFailureWasDisk else { throw error }
                let freed = releaseReserve()
                try? checkpoint()
                if !freed {
                    guard chunk > 1 else { throw error }
                    chunk = max(1, chunk / 2)
                }
            }
        }
        return deleted
    }

    /// After a deletion: the full-text index merged (the deleted words
    /// leave its older segments), then the WAL copied into the file and
    /// emptied. On a full disk the merge may not fit: the deletion stands,
    /// the words stay in the index's segments until the next deletion
    /// with room merges them (`scrubbed` false).
    @discardableResult
    func scrub() -> Bool {
        var merged = true
        do {
            try db.transaction { () throws(HandoffError) in
                try db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('optimize')")
            }
        } catch {
            merged = false
        }
        do { try checkpoint() } catch { return false }
        return merged
    }

    /// Copies the WAL into the database file and truncates it to nothing
    /// (waits, through the busy timeout, for readers of older pages).
    func checkpoint() throws(HandoffError) {
        let rows = try statement("PRAGMA wal_checkpoint(TRUNCATE)").rows { ($0.integer(0), $0.integer(1), $0.integer(2)) }
        if let (busy, _, _) = rows.first, busy != 0 {
            throw HandoffError(.io, "history database \(path): the WAL could not be emptied (another connection is reading)")
        }
    }

    /// Makes `PATH-reserve` (`reserveBytes`, 0600) when it is missing and
    /// the disk has room; false when it is not there after.
    @discardableResult
    public func ensureReserve() -> Bool {
        var info = stat()
        if lstat(reservePath, &info) == 0 { return info.st_size >= off_t(Self.reserveBytes) || fillReserve() }
        let fd = open(reservePath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        fchmod(fd, 0o600)
        let ok = posix_fallocate(fd, 0, off_t(Self.reserveBytes)) == 0
        close(fd)
        if !ok { unlink(reservePath) }
        return ok
    }

    private func fillReserve() -> Bool {
        let fd = open(reservePath, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return posix_fallocate(fd, 0, off_t(Self.reserveBytes)) == 0
    }

    /// Frees the reserve for a deletion; false when there was none.
    func releaseReserve() -> Bool {
        unlink(reservePath) == 0
    }
}

