// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
@testable import HandoffModel
import HandoffTestSupport
import Testing
@testable import HandoffAgent

/// The history's store on a real SQLite database (docs/history.md).
@Suite struct HistoryStoreTests {
    static let here: [UInt8] = Array(repeating: 0xA0, count: 16)
    static let there: [UInt8] = Array(repeating: 0xB0, count: 16)

    /// A payload of an activity eligible for search, as an app encodes it.
    static func payload(_ id: ActivityID = ActivityID(), type: String = "com.example.notes.edit", title: String,
                        keywords: Set<String> = [], userInfo: UserInfo = [:], searchable: Set<String> = [],
                        persistent: String? = nil, eligible: Bool = true) throws -> [UInt8] {
        var s = ActivityState()
        s.title = title
        s.keywords = keywords
        s.userInfo = userInfo
        s.searchableUserInfoKeys = searchable
        s.persistentIdentifier = persistent
        s.isEligibleForSearch = eligible
        return try ActivityCoding.encode(UserActivity(activityType: type, activityID: id, state: s))
    }

    static func record(_ payload: [UInt8], device: [UInt8] = here, bundle: String = "com.example.notes",
                       team: String = "TEAM1", seen: Int64 = 1_800_000_000_000) throws -> HistoryRecord {
        try HistoryRecord.make(payload: payload, activityID: nil, deviceID: device, deviceName: "Desk",
                               bundle: bundle, team: team, seen: seen).get()
    }

    @Test func recordsAreFoundByTitleKeywordsAndSearchableTextOnly() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("h/history.sqlite"))
        try store.write([try Self.record(try Self.payload(title: "Quarterly budget", keywords: ["finance"],
                                                           userInfo: ["body": .string("invoices from Zürich"),
                                                                      "secret": .string("password hunter2"),
                                                                      "blob": .data([0x41, 0x42])],
                                                           searchable: ["body", "blob"]))])
        #expect(try store.search("budg").map(\.title) == ["Quarterly budget"])
        #expect(try store.search("finance").count == 1)
        #expect(try store.search("zurich").count == 1, "diacritics are folded")
        #expect(try store.search("invoices zür").count == 1, "every term must match, as a prefix")
        #expect(try store.search("budget hunter2").isEmpty, "unlisted keys are never indexed")
        #expect(try store.search("hunter2").isEmpty)
        #expect(try store.search("AB").isEmpty, "data is never indexed")
        let entry = try #require(try store.search("budget").first)
        #expect(entry.content == ["invoices from Zürich"])
        #expect(entry.keywords == ["finance"])
        #expect(try store.payload(of: entry.id).map { try ActivityCoding.decode($0).title } == "Quarterly budget")
    }

    @Test func theFileIsPrivateAndInWALMode() throws {
        let tree = TemporaryTree()
        let path = tree.path("deep/er/history.sqlite")
        let store = try HistoryStore(path: path)
        try store.write([try Self.record(try Self.payload(title: "x"))])
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(tree.path("deep/er"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(path + "-wal", &info) == 0 && info.st_mode & 0o077 == 0)
        let mode = try store.db.prepare("PRAGMA journal_mode").rows { $0.text(0) }
        #expect(mode == ["wal"])
        #expect(try HistorySchema.userVersion(store.db) == HistorySchema.version)
    }

    @Test func hostileTextIsStoredAndFoundLiterally() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let hostile = [
            "Robert'); DROP TABLE entries;--",
            "NEAR(a b) AND \"quoted\" OR * NOT title:x ^start",
            String(repeating: "huge ", count: 12_000),
        ]
        for title in hostile { try store.write([try Self.record(try Self.payload(title: title))]) }
        #expect(try store.count() == 3)
        for query in ["'); DROP", "DROP TABLE", "NEAR(", "\"quoted\"", "AND", "title:x", "^start", "*", "\"", "')", "huge huge"] {
            _ = try store.search(query)  // never an error
        }
        #expect(try store.search("DROP TABLE").map(\.title) == [hostile[0]])
        #expect(try store.search("NEAR(a").map(\.title) == [hostile[1]])
        #expect(try store.search("title:x").map(\.title) == [hostile[1]])
        #expect(try store.search("*").isEmpty && store.search("\"").isEmpty && store.search("").isEmpty)
        let huge = try #require(try store.search("huge").first)
        #expect(huge.title.utf8.count <= SearchableText.maxTitle)
    }

    @Test func aSaveUpdatesItsEntryAndAPersistentIdentifierIsOneEntry() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let id = ActivityID()
        try store.write([try Self.record(try Self.payload(id, title: "Draft one"), seen: 1000)])
        try store.write([try Self.record(try Self.payload(id, title: "Draft two"), seen: 2000)])
        #expect(try store.count() == 1)
        #expect(try store.search("two").first?.firstSeen == 1000)
        #expect(try store.search("one").isEmpty)
        // A new activity of the same document replaces it; another device's stays apart.
        try store.write([try Self.record(try Self.payload(title: "Doc A", persistent: "doc-1"), seen: 3000)])
        try store.write([try Self.record(try Self.payload(title: "Doc A again", persistent: "doc-1"), seen: 4000)])
        try store.write([try Self.record(try Self.payload(title: "Doc A elsewhere", persistent: "doc-1"), device: Self.there, seen: 5000)])
        #expect(try store.search("doc").map(\.title) .sorted() == ["Doc A again", "Doc A elsewhere"])
    }

    @Test func deletionsTakeWhatTheyNameAndNothingElse() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        try store.write([
            try Self.record(try Self.payload(title: "Mine one", persistent: "p1")),
            try Self.record(try Self.payload(title: "Mine two", persistent: "p2")),
            try Self.record(try Self.payload(title: "Other team", persistent: "p1"), bundle: "org.other.app", team: "OTHER"),
            try Self.record(try Self.payload(title: "From there"), device: Self.there),
        ])
        #expect(try store.delete(.persistentIdentifiers(["p1", "nope"], team: "TEAM1")) == 1)
        #expect(try store.search("other").count == 1, "another team's entry with the same identifier stays")
        #expect(try store.delete(.device(Self.there)) == 1)
        #expect(try store.delete(.bundle("com.example.notes")) == 1)
        #expect(try store.list().map(\.title) == ["Other team"])
        let other = try #require(try store.list().first)
        #expect(try store.delete(.entries([other.id, 99_999])) == 1)
        #expect(try store.count() == 0 && store.search("other").isEmpty, "the full-text index follows")
    }

    @Test func retentionDropsTheOldestFirst() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let day: Int64 = 86_400_000
        let now: Int64 = 1_800_000_000_000
        try store.write(try (0..<150).map { i in
            try Self.record(try Self.payload(title: "entry " + String(1000 + i).dropFirst()), seen: now - Int64(i) * day / 10 - 1)
        })
        // 150 entries, one every 2.4 h: 10 days keeps the 100 newest.
        #expect(try store.prune(HistoryRetention(days: 10, entries: 120), now: now) == 50)
        #expect(try store.count() == 100)
        #expect(try store.prune(HistoryRetention(days: 30, entries: 100), now: now) == 0)
        try store.write([try Self.record(try Self.payload(title: "entry new"), seen: now)])  // as long as the others
        #expect(try store.prune(HistoryRetention(days: 30, entries: 100), now: now) == 1)
        #expect(try store.search("entry 099").isEmpty && store.search("new").count == 1)
        let size = try #require(try store.list(limit: 1).first).payloadSize
        #expect(try store.prune(HistoryRetention(days: 30, entries: 100, payloadBytes: size * 10), now: now) == 90)
        #expect(try store.count() == 10)
    }

    @Test func aNewerSchemaIsRefusedAndADamagedFileIsSetAside() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        do {
            let store = try HistoryStore(path: path)
            try store.db.execute("PRAGMA user_version = 99")
        }
        #expect(throws: HandoffError.self) { try HistoryStore(path: path) }
        let damaged = tree.write("bad.sqlite", Array(repeating: 0x5A, count: 8192), mode: 0o600)
        let error = #expect(throws: HandoffError.self) { try HistoryStore(path: damaged) }
        #expect(error.map(SQLiteDatabase.isDamaged) == true)
        let history = try AgentHistory(path: damaged, settings: { .defaults }) { _ in }
        defer { history.stop() }
        #expect(tree.exists("bad.sqlite.damaged"))
        #expect(history.search("anything", limit: 5).isEmpty)
    }

    @Test func theWriterKeepsOrderAndBoundsWhatWaits() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let writer = HistoryWriter(store: store, retention: { HistoryRetention() }) { _ in }
        defer { writer.stop() }
        let record = try Self.record(try Self.payload(title: "kept then forgotten", persistent: "gone"))
        writer.submit(.write(key: nil, bytes: 0) { record })
        let outcome = Locked<Int?>(nil)
        writer.submit(.delete(.persistentIdentifiers(["gone"], team: "TEAM1")) { result in outcome.withLock { $0 = try? result.get() } })
        writer.flush()
        #expect(outcome.withLock { $0 } == 1, "a deletion after an index deletes what was indexed")
        // Far more than may wait, submitted faster than written: some are
        // dropped, none is lost without being counted, nothing grows unbounded.
        let payload = try Self.payload(title: "flood")
        for i in 0..<5000 {
            writer.submit(.write(key: nil, bytes: payload.count) { try? Self.record(payload, device: [UInt8](repeating: UInt8(i % 256), count: 15) + [UInt8(i / 256)]) })
        }
        writer.flush(seconds: 60)
        let written = try HistoryStore(path: tree.path("history.sqlite")).count()
        #expect(written + writer.dropped == 5000)
    }
}

/// Found with Tests/cli/test_history_search.py: opening a second store in
/// the process (the agent's reader beside its writer) must not drop the
/// first one's POSIX locks, or another process's last close takes the
/// database for its own and resets the WAL under the agent, which then
/// never sees a later write.
@Suite struct HistoryStoreLockTests {
    @Test func anotherProcessesWritesStayVisibleWithTwoStoresOpen() throws {
        guard access("/usr/bin/sqlite3", X_OK) == 0 else { return }  // scripts/install-deps.sh installs it
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        let writer = try HistoryStore(path: path)
        let reader = try HistoryStore(path: path)
        try writer.write([try HistoryStoreTests.record(try HistoryStoreTests.payload(title: "first"))])
        #expect(try reader.count() == 1)
        for round in 0..<3 {
            let insert = """
                INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, title, keywords, content,
                    first_seen, last_seen, payload_size, payload)
                VALUES (randomblob(16), 'Elsewhere', randomblob(16), 'b', 'T', 't', 'outside \(round)', '', '', 1, 1, 0, x'');
                """
            let child = try ChildProcess.start("/usr/bin/sqlite3", [path, insert])
            #expect(child.wait(timeout: 30) == 0)
            #expect(try reader.count() == 2 + round, "the reader sees the other process's write")
            #expect(try writer.count() == 2 + round)
        }
        #expect(try reader.search("outside").count == 3)
    }
}
