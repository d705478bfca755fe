// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
@testable import HandoffModel
import HandoffContinuity
import Testing
@testable import HandoffAgent

/// Issue 34, "History you can trust": writes that cost the same however
/// big the history, ids never reused and read strictly, deleted text gone
/// from the file and its WAL, deletion on a full disk.
@Suite struct HistoryTrustTests {
    typealias T = HistoryStoreTests

    static func records(_ n: Int, from start: Int = 0, bundle: String = "com.example.notes",
                        seen: Int64 = 1_800_000_000_000, bytes: Int = 0) throws -> [HistoryRecord] {
        let filler = String(repeating: "x", count: bytes)
        return try (start..<(start + n)).map { i in
            try T.record(try T.payload(title: "note \(i)", userInfo: bytes > 0 ? ["pad": .string(filler)] : [:],
                                       persistent: "doc-\(i)"),
                         bundle: bundle, seen: seen + Int64(i))
        }
    }

    /// Every statement the write, delete and prune paths prepare, through
    /// EXPLAIN QUERY PLAN: each looks entries up through an index (the
    /// persistent-id lookup through `entries_persistent`), none scans the
    /// table or sorts in a temporary b-tree. Delete-all reads every id by
    /// definition; the prune walks `entries_last_seen` from the old end
    /// and stops at the first entry kept.
    @Test func everyStatementOfTheWritePathUsesAnIndex() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        try store.write(try Self.records(300))
        let id = ActivityID()
        try store.write([try T.record(try T.payload(id, title: "again"))])
        try store.write([try T.record(try T.payload(id, title: "again, saved"))])  // its own entry, updated
        try store.write([try T.record(try T.payload(title: "reopened", persistent: "doc-7"))])  // the document's entry
        try store.prune(HistoryRetention(days: 1, entries: 100, payloadBytes: 1 << 20), now: 1_800_000_000_000 + 86_400_000 * 3 / 2)
        for deletion: HistoryDeletion in [.entries([5, 6]), .persistentIdentifiers(["doc-9"], team: "TEAM1"), .bundle("com.example.notes"),
                                           .device(T.there), .all] {
            try store.delete(deletion)
        }
        let sql = store.preparedSQL
        #expect(sql.count >= 12, "the paths ran: \(sql)")
        var lookedUpByPersistentID = false
        for statement in sql {
            let plan = try store.db.prepare("EXPLAIN QUERY PLAN " + statement).rows { $0.text(3) }
            let allowed: [String] = switch statement {
            case "SELECT id FROM entries ORDER BY id": ["SCAN entries"]
            case _ where statement.contains("ORDER BY last_seen, id"): ["SCAN entries USING INDEX entries_last_seen"]
            default: []
            }
            for line in plan {
                #expect(!line.contains("TEMP B-TREE"), "\(statement): \(line)")
                guard line.hasPrefix("SCAN") else { continue }
                #expect(allowed.contains(line), "a scan: \(statement): \(plan)")
            }
            if statement.contains("persistent_id = ?2 AND bundle = ?3") {
                lookedUpByPersistentID = true
                #expect(plan.contains { $0.contains("INDEX entries_persistent (team=? AND persistent_id=? AND bundle=? AND device_id=?)") }, "\(plan)")
            }
        }
        #expect(lookedUpByPersistentID)
    }

    /// The class of the slow write, in counts rather than time: the
    /// virtual machine steps one write of an app takes are the same with
    /// 100 entries of that app as with 4,000.
    @Test func aWriteTakesAsManyStepsAtFourThousandEntriesAsAtAHundred() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        func steps(writing records: [HistoryRecord]) throws -> Int {
            _ = store.vmSteps(reset: true)
            for r in records { try store.write([r]) }
            return store.vmSteps(reset: true)
        }
        try store.write(try Self.records(100))
        let small = try steps(writing: try Self.records(20, from: 100_000))
        try store.write(try Self.records(4000, from: 200))
        let large = try steps(writing: try Self.records(20, from: 200_000))
        #expect(large <= small + small / 4, "steps for 20 writes: \(small) at 100 entries, \(large) at 4,000")
    }

    @Test func idsAreNeverReusedAndParsedStrictly() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        try store.write(try Self.records(3))
        let newest = try #require(try store.list(limit: 1).first)
        #expect(newest.id == 3)
        try store.delete(.entries([newest.id]))
        try store.write(try Self.records(1, from: 10))
        #expect(try store.list(limit: 1).first?.id == 4, "the deleted newest's id is not given again")
        try store.delete(.all)
        try store.write(try Self.records(1, from: 20))
        #expect(try store.list(limit: 1).first?.id == 5)
        #expect(HistoryEntry.number(ofResult: "h5") == 5)
        for bad in ["h05", "h0", "h", "5", "h+5", "h-5", "h 5", "h5 ", "H5", "h٣", "h9223372036854775808", "h1e3"] {
            #expect(HistoryEntry.number(ofResult: bad) == nil, "\(bad)")
        }
        #expect(HistoryEntry.number(ofResult: "h9223372036854775807") == Int64.max)
    }

    /// A version-1 database (ids 1, 2 and 5; 3 and 4 deleted) migrates to
    /// the current schema with every id naming the entry it named, its
    /// full-text index intact, and ids after it never below 6.
    @Test func theMigrationKeepsOldIdsMeaningful() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute(HistorySchema.migrations[1]!)
            for (id, title) in [(1, "alpha one"), (2, "beta two"), (5, "gamma five")] {
                try db.execute("""
                    INSERT INTO entries VALUES (\(id), x'A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0', 'Desk', randomblob(16), 'b', 'T', 't',
                        'p\(id)', '\(title)', '', '', NULL, \(id), \(id), 3, x'000102')
                    """)
            }
            try db.execute("PRAGMA user_version = 1")
        }
        let store = try HistoryStore(path: path)
        #expect(try HistorySchema.userVersion(store.db) == HistorySchema.version)
        #expect(try store.entries([1, 2, 5]).map(\.title) == ["alpha one", "beta two", "gamma five"])
        #expect(try store.search("gamma").map(\.id) == [5])
        #expect(try store.count() == 3)
        try store.write(try Self.records(1, from: 9))
        #expect(try store.list(limit: 1).first?.id == 6)
        #expect(try store.db.prepare("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"])
    }

    /// The bytes of the database and its WAL hold no word of a deleted
    /// entry once `delete` returns (the row overwritten, the full-text
    /// index merged, the WAL emptied), with the store still open.
    @Test func deletedTextLeavesTheFileAndTheWALAtOnce() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        let store = try HistoryStore(path: path)
        try store.write(try Self.records(300))
        try store.write([try T.record(try T.payload(title: "Zebracorn Quarterly", keywords: ["Xylophonist"], persistent: "secret"))])
        try store.write(try Self.records(5, from: 1000))
        func hits() -> Int {
            [path, path + "-wal"].reduce(0) { n, file in
                n + Self.occurrences(of: ["zebracorn", "xylophonist"], in: Self.bytes(file))
            }
        }
        #expect(hits() > 0, "written, the words are in the files")
        #expect(try store.delete(.persistentIdentifiers(["secret"], team: "TEAM1")) == 1)
        #expect(hits() == 0)
        #expect(try store.count() == 305 && store.search("note").count == 20)
    }

    /// On a filesystem with no free byte, every kind of deletion works:
    /// the reserve is given up for it, in small enough transactions. A
    /// tmpfs mounted here (root only) and always unmounted.
    @Test func deletionWorksOnAFullDisk() throws {
        guard geteuid() == 0 else { return }
        let tree = TemporaryTree()
        let dir = tree.path("small")
        mkdir(dir, 0o700)
        guard "size=12m,mode=0700".withCString({ mount("tmpfs", dir, "tmpfs", 0, $0) }) == 0 else { return }
        defer { withExtendedLifetime(tree) { _ = umount2(dir, 2 /* MNT_DETACH */) } }
        let path = dir + "/history.sqlite"
        let store = try HistoryStore(path: path)
        #expect(access(store.reservePath, F_OK) == 0)
        // Fill with entries until the disk refuses, then with a file.
        var written = 0
        var full = false
        while !full && written < 20_000 {
            do {
                try store.write(try Self.records(50, from: written, bytes: 1500))
                written += 50
            } catch {
                full = true
            }
        }
        #expect(full && written > 500, "\(written) written")
        let filler = open(dir + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let block = [UInt8](repeating: 1, count: 4096)
        while Glibc.write(filler, block, block.count) > 0 {}
        close(filler)
        #expect((try? store.write(try Self.records(1, from: 90_000))) == nil, "the disk is full")
        let before = try store.count()
        // Another connection (as `handoff history delete` is) deletes one by id, then the app's way, then all.
        let other = try HistoryStore(path: path, create: false)
        let oldest = try #require(try other.list(limit: before).last)
        #expect(try other.delete(.entries([oldest.id])) == 1)
        #expect(try store.delete(.persistentIdentifiers(["doc-1", "doc-2"], team: "TEAM1")) == 2)
        #expect(try store.delete(.all) == before - 3)
        #expect(try store.count() == 0 && other.count() == 0)
        #expect(try store.db.prepare("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"])
    }

    @Test func theErrorLatchSpeaksOncePerChangeOfState() {
        var latch = HistoryErrorLatch()
        let full = HandoffError(.io, "database or disk is full")
        var lines: [String] = []
        #expect(latch.succeeded("writing") == nil)
        for _ in 0..<1000 { if let line = latch.failed(full) { lines.append(line) } }
        if let line = latch.failed(HandoffError(.io, "disk I/O error")) { lines.append(line) }
        if let line = latch.succeeded("writing") { lines.append(line) }
        #expect(latch.succeeded("writing") == nil)
        #expect(lines == ["database or disk is full", "disk I/O error", "writing works again (1001 failed meanwhile)"])
    }

    /// The age limit's timer: one deadline at the oldest entry's expiry,
    /// none for an empty history, the prune asked once when it passes,
    /// and not again at once when the prune took nothing.
    @Test func theExpiryTimerWakesOnceAtTheOldestExpiry() {
        final class Clock: @unchecked Sendable { var wall: Int64 = 1_000_000; var mono = 100.0 }
        let clock = Clock()
        let timer = HistoryExpiryTimer(wallMilliseconds: { clock.wall }, monotonic: { clock.mono })
        var expiry: Int64? = nil
        var prunes = 0
        timer.configure(nextExpiry: { expiry }, prune: { prunes += 1 })
        #expect(timer.timeoutMilliseconds == -1, "an empty history asks for no wake-up")
        expiry = clock.wall + 5_000
        #expect(timer.timeoutMilliseconds == -1, "nothing changed: not looked up again")
        timer.changed()
        #expect(timer.timeoutMilliseconds == 5_000)
        clock.wall += 5_000; clock.mono += 5
        #expect(timer.timeoutMilliseconds == 0)
        timer.process()
        #expect(prunes == 1 && timer.timeoutMilliseconds == -1)
        // The prune took nothing away: the same expiry, asked again no sooner than a minute.
        timer.changed()
        #expect(timer.timeoutMilliseconds == 60_000)
        // It did: the next entry's expiry.
        expiry = clock.wall + 86_400_000 * 40
        timer.changed()
        #expect(timer.timeoutMilliseconds == Int32.max, "beyond 24.8 days: the longest wait, then a look again")
    }

    /// A history kept by the agent, with an entry that expires while
    /// nothing is written: the timer prunes it, no write needed.
    @Test func anEntryExpiresWithoutAWrite() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        let now = Int64(wallMilliseconds())
        do {
            let store = try HistoryStore(path: path)
            try store.write([try T.record(try T.payload(title: "old news"), seen: now - 86_400_000 + 1_500)])
            try store.write([try T.record(try T.payload(title: "fresh"), seen: now)])
        }
        var settings = HandoffSettings.defaults
        settings.historyDays = 1
        let fixed = settings
        let history = try AgentHistory(path: path, settings: { fixed }) { _ in }
        defer { history.stop() }
        history.writer.flush()
        #expect(history.search("old", limit: 5).count == 1, "not expired yet")
        let wait = history.expiry.timeoutMilliseconds
        #expect(wait > 0 && wait <= 1_500)
        let deadline = monotonicSeconds() + 10
        while history.expiry.timeoutMilliseconds != 0 && monotonicSeconds() < deadline { usleep(50_000) }
        history.expiry.process()
        history.writer.flush()
        #expect(history.search("old", limit: 5).isEmpty && history.search("fresh", limit: 5).count == 1)
    }

    /// The database gone from under the agent: the desktop's search
    /// answers nothing and the agent says why once, not at each key
    /// typed; once it is back, it says so once and answers again.
    @Test func anUnreadableDatabaseAnswersNothingAndIsLoggedOnce() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        let lines = Locked<[String]>([])
        let history = try AgentHistory(path: path, settings: { .defaults }) { line in lines.withLock { $0.append(line) } }
        defer { history.stop() }
        history.writer.submit(.write(key: nil, bytes: 0) { try? T.record(try T.payload(title: "Quarterly budget")) })
        history.writer.flush()
        for suffix in ["", "-wal", "-shm"] { rename(path + suffix, path + ".away" + suffix) }
        for _ in 0..<20 { #expect(history.search("budget", limit: 5).isEmpty) }
        #expect(history.newest(5).isEmpty && history.entries([1]).isEmpty)
        #expect(lines.withLock { $0 }.filter { $0.contains("history database") }.count == 1, "\(lines.withLock { $0 })")
        for suffix in ["", "-wal", "-shm"] { rename(path + ".away" + suffix, path + suffix) }
        #expect(history.search("budget", limit: 5).count == 1)
        #expect(history.search("budget", limit: 5).count == 1)
        #expect(lines.withLock { $0 }.filter { $0.contains("works again") }.count == 1, "\(lines.withLock { $0 })")
    }

    /// Many states of a few activities coalesce to the newest of each; a
    /// flood of distinct ones is bounded; none is lost uncounted.
    @Test func theWriterCoalescesAndCountsWhatItCannotKeep() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let gate = Awaitable(false)
        let writer = HistoryWriter(store: store, retention: { HistoryRetention(entries: 100_000) }) { _ in }
        defer { writer.stop() }
        // Hold the writer so that everything below waits.
        hold(writer, gate)
        let ids = (0..<20).map { _ in ActivityID() }
        for round in 0..<50 {
            for (i, id) in ids.enumerated() {
                let payload = try T.payload(id, title: "doc \(i) state \(round)")
                writer.submit(.write(key: .init(device: T.here, activity: id), bytes: payload.count) { try? T.record(payload) })
            }
        }
        gate.update { $0 = true }
        writer.flush(seconds: 300)  // a bound: the machine may be busy
        #expect(writer.counts == .init(received: 20 * 50, coalesced: 20 * 49, dropped: 0, failed: 0))
        #expect(try store.count() == 20)
        #expect(try store.search("state").allSatisfy { $0.title.hasSuffix("state 49") })
        let payload = try T.payload(title: "flood")
        let gate2 = Awaitable(false)
        hold(writer, gate2)
        let n = HistoryWriter.maxWaitingRecords + 1000
        for i in 0..<n {
            let id = ActivityID()
            writer.submit(.write(key: .init(device: T.there, activity: id), bytes: payload.count) {
                try? T.record(payload, device: [UInt8](repeating: UInt8(i % 256), count: 14) + [UInt8(i / 256 % 256), UInt8(i / 65536)])
            })
        }
        gate2.update { $0 = true }
        writer.flush(seconds: 300)
        #expect(writer.counts.dropped == 1000)
        #expect(try store.count() - 20 + writer.counts.dropped == n, "\(writer.counts)")
    }

    /// The writer's thread waits in a job until `gate` opens; returns once it does.
    func hold(_ writer: HistoryWriter, _ gate: Awaitable<Bool>) {
        let started = Awaitable(false)
        writer.submit(.run { _ in
            started.update { $0 = true }
            gate.wait(until: { $0 }, seconds: 300) { _, _ in }
        })
        started.wait(until: { $0 }, seconds: 60) { _, _ in }
    }

    static func bytes(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    /// How often any of `words` occurs in `bytes`, ignoring ASCII case.
    static func occurrences(of words: [String], in bytes: [UInt8]) -> Int {
        let lower = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        var n = 0
        for word in words {
            let w = Array(word.lowercased().utf8)
            guard lower.count >= w.count else { continue }
            var i = 0
            while i <= lower.count - w.count {
                if lower[i] == w[0] && Array(lower[i..<(i + w.count)]) == w { n += 1 }
                i += 1
            }
        }
        return n
    }
}
