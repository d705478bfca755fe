// SPDX-License-Identifier: MIT OR Apache-2.0
import CSQLite
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// What a deletion takes away.
public enum HistoryDeletion: Sendable, Equatable {
    /// These entries (their numbers).
    case entries([Int64])
    /// An app's own: those of `team` with these persistent identifiers.
    case persistentIdentifiers([String], team: String)
    /// Every entry of an app (its bundle).
    case bundle(String)
    /// Every entry from one device (16 bytes).
    case device([UInt8])
    case all
}

/// The history index: one SQLite connection to the database
/// (docs/history.md). One thread uses a store; the agent keeps one for its
/// writer thread and one for reads on its loop, the `handoff` command its
/// own; SQLite's WAL lets them work at once.
public final class HistoryStore {
    /// At most this many results a query.
    public static let maxResults = 50
    /// A search query longer than this is cut (terms past it are not read).
    public static let maxQueryBytes = 1024

    let db: SQLiteDatabase
    public var path: String { db.path }
    private var statements: [String: SQLiteStatement] = [:]

    /// `$HANDOFF_HISTORY_DB`, else `$XDG_DATA_HOME/handoff/history.sqlite`
    /// (`$HOME/.local/share/...`); nil when neither HOME nor XDG_DATA_HOME
    /// is an absolute path.
    public static func defaultPath(_ environment: [String: String]) -> String? {
        if let path = environment["HANDOFF_HISTORY_DB"], path.hasPrefix("/") { return path }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/handoff/history.sqlite" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/share/handoff/history.sqlite" }
        return nil
    }

    /// Opens the database at `path`, creating it (folder 0700, file 0600)
    /// when `create`, and migrating an older schema forward.
    /// - Parameter create: false for a reader (`handoff history`, the
    ///   agent's search): a missing file is `.notFound`-like `.io`, never
    ///   made.
    /// - Throws: `.io` when it cannot be opened or created (unreadable,
    ///   missing without `create`); `.malformedData` for a damaged file;
    ///   `.invalidState` for the schema of a newer release.
    public init(path: String, readOnly: Bool = false, create: Bool = true) throws(HandoffError) {
        let create = create && !readOnly
        if create { try Self.prepareFile(path) }
        db = try SQLiteDatabase(path: path, readOnly: readOnly, create: create)
        // Wait for the other connection's write rather than fail at once.
        sqlite3_busy_timeout(db.handle, 5000)
        if readOnly {
            let version = try HistorySchema.userVersion(db)
            guard version == HistorySchema.version else {
                throw HandoffError(.invalidState, "the history database \(path) has schema version \(version); this release reads \(HistorySchema.version)")
            }
        } else {
            // WAL: readers and the writer work at once, and a kill at any
            // moment loses at most the transaction being written.
            // secure_delete: what is deleted is overwritten, not left in
            // free pages. temp_store: a statement journal in memory, not a
            // file that a full disk refuses.
            try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA temp_store = MEMORY")
            try HistorySchema.migrate(db)
        }
        // The search's ranking (a function of this connection's).
        let rc = handoff_sqlite3_register_rank(db.handle)
        guard rc == SQLITE_OK else { throw db.failure(rc, "cannot register the ranking function: \(db.lastMessage)") }
        // Fails for a file that is not a database (SQLite reads lazily).
        _ = try count()
        if create { ensureReserve() }
    }

    /// Creates the folder (0700) and the file (0600) before SQLite does,
    /// so neither is ever more open than that (SQLite gives its -wal and
    /// -shm files the database file's mode).
    static func prepareFile(_ path: String) throws(HandoffError) {
        guard let slash = path.lastIndex(of: "/") else { throw HandoffError(.invalidArgument, "the history database's path \(path) is not absolute") }
        let folder = String(path[..<slash])
        if !folder.isEmpty {
            var prefix = ""
            for component in folder.split(separator: "/") {
                prefix += "/" + component
                if mkdir(prefix, 0o700) == 0 {
                    // The umask may have taken bits away, never added: make it exact.
                    chmod(prefix, 0o700)
                    continue
                }
                var info = stat()
                if stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
                throw HandoffError(.io, "cannot create the folder \(prefix) for the history: \(String(cString: strerror(errno)))")
            }
        }
        // Created here only when missing (O_EXCL). An existing file is never
        // opened and closed by hand: closing any descriptor of a file drops
        // every POSIX lock this process holds on it, so the agent's other
        // connection would lose its lock and another process could then
        // take the database for its own (and reset the WAL under it).
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)  // exact, whatever the umask
            close(fd)
            return
        }
        guard errno == EEXIST else {
            throw HandoffError(.io, "cannot create the history database \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw HandoffError(.io, "the history database \(path) is not a regular file (a link, or a folder): move it away")
        }
        if info.st_mode & 0o077 != 0 { chmod(path, 0o600) }
    }

    /// The SQL of every statement this store prepared (a test explains
    /// each one's query plan: no statement may scan the entries).
    var preparedSQL: [String] { Array(statements.keys) }

    /// Virtual-machine steps of every prepared statement (tests count a
    /// write's work this way, not by its time).
    func vmSteps(reset: Bool) -> Int {
        statements.values.reduce(0) { $0 + $1.steps(reset: reset) }
    }

    func statement(_ sql: String) throws(HandoffError) -> SQLiteStatement {
        if let s = statements[sql] { return s }
        let s = try db.prepare(sql)
        statements[sql] = s
        return s
    }

    // MARK: Writing

    /// Writes `records` in one transaction: each updates the entry of its
    /// activity, else that of the same app, device and persistent
    /// identifier, else is added.
    ///
    /// Transactions of at most 256 records or 1 MiB of payloads, each
    /// copied into the file and the WAL emptied after it (`checkpoint`):
    /// at rest the WAL is empty, so a deletion on a full disk never has to
    /// grow the file for pages written before it (docs/history.md
    /// "Deleting").
    public func write(_ records: [HistoryRecord]) throws(HandoffError) {
        var start = 0
        while start < records.count {
            var end = start, bytes = 0
            while end < records.count, end - start < 256, bytes < 1 << 20 {
                bytes += records[end].payload.count
                end += 1
            }
            try db.transaction { () throws(HandoffError) in
                for r in records[start..<end] { try write(r) }
            }
            try? checkpoint()
            start = end
        }
    }

    private func write(_ r: HistoryRecord) throws(HandoffError) {
        let find = try statement("SELECT id FROM entries WHERE device_id = ?1 AND activity_id = ?2")
        var existing = try find.rows([.blob(r.deviceID), .blob(r.activityID.bytes)]) { $0.integer(0) }.first
        if existing == nil, let pid = r.persistentIdentifier {
            let same = try statement("""
                SELECT id FROM entries WHERE team = ?1 AND persistent_id = ?2 AND bundle = ?3 AND device_id = ?4
                ORDER BY last_seen DESC
                """)
            let ids = try same.rows([.text(r.team), .text(pid), .text(r.bundle), .blob(r.deviceID)]) { $0.integer(0) }
            existing = ids.first
            // Older duplicates (none unless written by hand): one entry each.
            for id in ids.dropFirst() { try statement("DELETE FROM entries WHERE id = ?1").run([.integer(id)]) }
        }
        let fields: [SQLiteStatement.Value] = [
            .blob(r.deviceID), .text(r.deviceName), .blob(r.activityID.bytes), .text(r.bundle), .text(r.team),
            .text(r.activityType), r.persistentIdentifier.map { .text($0) } ?? .null, .text(r.text.title),
            .text(r.text.keywords.joined(separator: "\n")), .text(r.text.content.joined(separator: "\n")),
            r.url.map { .text($0) } ?? .null, .integer(r.seen), .integer(Int64(r.payload.count)), .blob(r.payload),
        ]
        if let existing {
            try statement("""
                UPDATE entries SET device_id = ?1, device_name = ?2, activity_id = ?3, bundle = ?4, team = ?5, type = ?6,
                    persistent_id = ?7, title = ?8, keywords = ?9, content = ?10, url = ?11,
                    last_seen = max(last_seen, ?12), payload_size = ?13, payload = ?14
                WHERE id = ?15
                """).run(fields + [.integer(existing)])
        } else {
            try statement("""
                INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, persistent_id, title,
                    keywords, content, url, first_seen, last_seen, payload_size, payload)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14)
                """).run(fields)
        }
    }

    // MARK: Reading

    static let columns = """
        e.id, e.device_id, e.device_name, e.activity_id, e.bundle, e.team, e.type, e.persistent_id, e.title,
        e.keywords, e.content, e.url, e.first_seen, e.last_seen, e.payload_size
        """

    static func entry(_ s: SQLiteStatement) -> HistoryEntry {
        func lines(_ text: String) -> [String] { text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let activityBytes = s.blob(3)
        return HistoryEntry(id: s.integer(0), deviceID: s.blob(1), deviceName: s.text(2),
                            activityID: activityBytes.count == 16 ? ActivityID(bytes: activityBytes) : ActivityID(bytes: [UInt8](repeating: 0, count: 16)),
                            bundle: s.text(4), team: s.text(5), activityType: s.text(6), persistentIdentifier: s.optionalText(7),
                            title: s.text(8), keywords: lines(s.text(9)), content: lines(s.text(10)), url: s.optionalText(11),
                            firstSeen: s.integer(12), lastSeen: s.integer(13), payloadSize: Int(s.integer(14)))
    }

    /// The FTS5 query for what a person typed: each term (split at white
    /// space) quoted as a string and matched as a word prefix, all
    /// required; terms with no letter or digit are left out (they match
    /// no word). Nil when no term is left.
    public static func matchExpression(_ query: String) -> String? {
        let terms = truncateUTF8(query, to: maxQueryBytes)
            .split(whereSeparator: { $0.isWhitespace })
            .filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
        guard !terms.isEmpty else { return nil }
        return terms.prefix(32).map { "\"" + $0.replacingAll("\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }

    /// Ranking looks at this many of the newest matches at most: a search
    /// costs the same however long the history grows (docs/history.md
    /// "Searching").
    public static let rankedWindow = 200

    /// The entries matching `query`: the best `limit` among the newest
    /// `rankedWindow` that match (`handoff_rank`, then newest). FTS5 reads
    /// the prefix index newest first and stops at the window; the ranking
    /// reads only the rows it ranks (bm25() would read every match of
    /// each term for its rarity).
    public func search(_ query: String, limit: Int = 20) throws(HandoffError) -> [HistoryEntry] {
        guard let match = Self.matchExpression(query) else { return [] }
        return try statement("""
            SELECT \(Self.columns) FROM (
                SELECT rowid, handoff_rank(entries_fts) AS score FROM entries_fts WHERE entries_fts MATCH ?1
                ORDER BY rowid DESC LIMIT ?3
            ) AS newest JOIN entries e ON e.id = newest.rowid ORDER BY newest.score, e.last_seen DESC LIMIT ?2
            """).rows([.text(match), .integer(Int64(min(max(limit, 0), Self.maxResults))),
                       .integer(Int64(Self.rankedWindow))], Self.entry)
    }

    /// The newest entries, of one app or device when given.
    public func list(bundle: String? = nil, deviceID: [UInt8]? = nil, limit: Int = 20) throws(HandoffError) -> [HistoryEntry] {
        try statement("""
            SELECT \(Self.columns) FROM entries e
            WHERE (?1 IS NULL OR e.bundle = ?1) AND (?2 IS NULL OR e.device_id = ?2)
            ORDER BY e.last_seen DESC, e.id DESC LIMIT ?3
            """).rows([bundle.map { .text($0) } ?? .null, deviceID.map { .blob($0) } ?? .null,
                       .integer(Int64(max(limit, 0)))], Self.entry)
    }

    /// The entries with these numbers that still exist, in the order asked.
    public func entries(_ ids: [Int64]) throws(HandoffError) -> [HistoryEntry] {
        let s = try statement("SELECT \(Self.columns) FROM entries e WHERE e.id = ?1")
        var out: [HistoryEntry] = []
        for id in ids {  // callers bound how many (the desktop's 50, the command line's 64)
            out += try s.rows([.integer(id)], Self.entry)
        }
        return out
    }

    /// The payload saved for an entry, nil when the entry is gone.
    public func payload(of id: Int64) throws(HandoffError) -> [UInt8]? {
        try statement("SELECT payload FROM entries WHERE id = ?1").rows([.integer(id)]) { $0.blob(0) }.first
    }

    /// The devices the history has entries from: id and latest name.
    public func devices() throws(HandoffError) -> [(id: [UInt8], name: String)] {
        try statement("""
            SELECT device_id, device_name FROM entries e
            WHERE last_seen = (SELECT max(last_seen) FROM entries f WHERE f.device_id = e.device_id)
            GROUP BY device_id
            """).rows { ($0.blob(0), $0.text(1)) }
    }

    /// How many entries there are (kept by the triggers: no count of the table).
    public func count() throws(HandoffError) -> Int {
        Int(try statement("SELECT entries FROM stats WHERE id = 1").rows { $0.integer(0) }.first ?? 0)
    }
}

extension Substring {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
