// SPDX-License-Identifier: MIT OR Apache-2.0
import CSQLite
import HandoffModel

/// A thin, typed hold on one SQLite connection (the history's, docs/history.md).
/// Not thread-safe: one thread uses a connection (the history writer, or the
/// agent's loop for reads, or the `handoff` command).
final class SQLiteDatabase {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating when `create`) the database at `path`.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws(HandoffError) {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // One thread per connection: no mutex of SQLite's own.
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw HandoffError(.io, "cannot open the history database \(path): \(message)")
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows.
    func execute(_ sql: String) throws(HandoffError) {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        guard rc == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw failure(rc, message)
        }
    }

    func prepare(_ sql: String) throws(HandoffError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure(rc, lastMessage) }
        return SQLiteStatement(statement, database: self)
    }

    /// `body` inside BEGIN IMMEDIATE ... COMMIT, rolled back when it throws.
    func transaction<T>(_ body: () throws(HandoffError) -> T) throws(HandoffError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            // The failure is the body's or COMMIT's, not the rollback's
            // (after a failed COMMIT there may be nothing to roll back).
            let failed = lastFailure
            try? execute("ROLLBACK")
            lastFailure = failed
            throw error
        }
    }

    /// The result code of the latest failure this connection reported
    /// (`failure`), SQLITE_OK before any: whether it was a full disk.
    private(set) var lastFailure: Int32 = SQLITE_OK

    /// The latest failure was the disk's: full, or a write refused.
    var lastFailureWasDisk: Bool {
        let primary = lastFailure & 0xFF
        return primary == SQLITE_FULL || primary == SQLITE_IOERR
    }

    /// Pages this connection asked its cache for (hits and misses) since
    /// the last reset: a count of a statement's reading, for tests
    /// (`HistorySearchScaleTests`), whatever the page cache held.
    func pagesRead(reset: Bool) -> Int {
        var total = 0
        for counter in [SQLITE_DBSTATUS_CACHE_HIT, SQLITE_DBSTATUS_CACHE_MISS] {
            var current: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(handle, counter, &current, &highest, reset ? 1 : 0)
            total += Int(current)
        }
        return total
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// An error naming the database: `.io` for what the disk or another
    /// process did, `.malformedData` for a damaged file.
    func failure(_ rc: Int32, _ message: String) -> HandoffError {
        lastFailure = rc
        let primary = rc & 0xFF
        let code: HandoffError.Code = (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) ? .malformedData : .io
        return HandoffError(code, "history database \(path): \(message)")
    }

    static func isDamaged(_ error: HandoffError) -> Bool { error.code == .malformedData }
}

/// One prepared statement; `reset` before it is used again.
final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    enum Value {
        case null
        case integer(Int64)
        case text(String)
        case blob([UInt8])
    }

    /// Binds `values` to ?1, ?2, ... after a reset.
    func bind(_ values: [Value]) throws(HandoffError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .text(let s):
                rc = s.utf8CString.withUnsafeBufferPointer { p in
                    handoff_sqlite3_bind_text_copy(handle, index, p.baseAddress, Int32(p.count - 1))
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { p in
                    // A zero-length blob is a blob, not NULL: give it an address.
                    handoff_sqlite3_bind_blob_copy(handle, index, p.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(p.count))
                }
            }
            guard rc == SQLITE_OK else { throw database.failure(rc, database.lastMessage) }
        }
    }

    /// One step: true while a row is ready.
    func step() throws(HandoffError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.failure(rc, database.lastMessage)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs it to the end (for statements that return no rows).
    func run(_ values: [Value] = []) throws(HandoffError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Every row, each read by `row`.
    func rows<T>(_ values: [Value] = [], _ row: (SQLiteStatement) -> T) throws(HandoffError) -> [T] {
        try bind(values)
        var out: [T] = []
        while try step() { out.append(row(self)) }
        sqlite3_reset(handle)
        return out
    }

    /// Virtual-machine steps since the last `resetSteps` (a count of
    /// work, for tests: `HistoryTrustTests`).
    func steps(reset: Bool) -> Int {
        Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, reset ? 1 : 0))
    }

    /// Row by row while `row` says to go on (true); the rest is not read.
    func each(_ values: [Value] = [], _ row: (SQLiteStatement) -> Bool) throws(HandoffError) {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { if !row(self) { break } }
    }

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    func blob(_ column: Int32) -> [UInt8] {
        guard let p = sqlite3_column_blob(handle, column) else { return [] }
        let n = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}
