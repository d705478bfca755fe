// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
@testable import HandoffModel
import HandoffTestSupport
import Testing
@testable import HandoffAgent

/// A search that stays fast as the history grows (docs/history.md
/// "Searching"): what a person types is read newest first from a prefix
/// index and ranked without reading every match. Counted in pages read,
/// never in time.
@Suite struct HistorySearchScaleTests {
    typealias T = HistoryStoreTests

    /// Entries that every query below matches, newest last, each term
    /// many times in the searchable text: the index then holds long
    /// position lists, so reading every match shows in the pages read.
    static func records(_ n: Int, from start: Int) throws -> [HistoryRecord] {
        let words = ["garden", "invoice", "lantern", "meadow"]
        let body = String(repeating: "budget ", count: 200) + String(repeating: "quarterly gardening ", count: 50)
        return try (start..<(start + n)).map { i in
            try T.record(try T.payload(title: "budget \(words[i % words.count]) \(i)", keywords: ["quarterly"],
                                       userInfo: ["body": .string(body)], searchable: ["body"]),
                         seen: 1_800_000_000_000 + Int64(i))
        }
    }

    /// Prefixes of every length up to 8 characters, and two terms: the
    /// pages one search asks for (its reading, cache hits included) with
    /// 8,000 matching entries are at most one and a half times those with
    /// 1,000, a window's worth and more for every query (1.2 times: the
    /// b-trees are deeper). With bm25(), or a prefix without its index,
    /// every match is read: 1.6 to 2.7 times here, and more as the
    /// history grows.
    @Test func aSearchReadsAboutAsMuchAtEightThousandMatchesAsAtOneThousand() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        let queries = ["b", "bu", "bud", "budg", "budge", "budget", "quarter", "quarterl", "budget gard"]
        func pages() throws -> [Int] {
            try queries.map { query in
                _ = store.db.pagesRead(reset: true)
                let found = try store.search(query)
                let pages = store.db.pagesRead(reset: true)
                #expect(found.count == 20, "\(query)")
                return pages
            }
        }
        try store.write(try Self.records(1000, from: 0))
        let small = try pages()
        try store.write(try Self.records(7000, from: 1000))
        let large = try pages()
        for (i, query) in queries.enumerated() {
            #expect(2 * large[i] <= 3 * small[i], "\(query): \(small[i]) pages at 1,000 entries, \(large[i]) at 8,000")
        }
    }

    /// The ranking: more of the terms in fewer words first, whatever the
    /// age; equal ranks newest first; only the newest `rankedWindow`
    /// matches are ranked.
    @Test func theBestOfTheNewestMatchesComeFirst() throws {
        let tree = TemporaryTree()
        let store = try HistoryStore(path: tree.path("history.sqlite"))
        try store.write([
            try T.record(try T.payload(title: "garden garden plan"), seen: 1_000),
            try T.record(try T.payload(title: "garden plan for the long summer with many words"), seen: 2_000),
            try T.record(try T.payload(title: "garden plan for spring"), seen: 3_000),
            try T.record(try T.payload(title: "garden plan for autumn"), seen: 4_000),
        ])
        #expect(try store.search("gard").map(\.title) == [
            "garden garden plan", "garden plan for autumn", "garden plan for spring",
            "garden plan for the long summer with many words",
        ])
        #expect(try store.search("gard", limit: 1).map(\.title) == ["garden garden plan"])
        try store.write(try (0..<HistoryStore.rankedWindow).map { i in
            try T.record(try T.payload(title: "budget garden \(i)"), seen: 10_000 + Int64(i))
        })
        #expect(try store.search("gard", limit: 50).allSatisfy { $0.title.hasPrefix("budget") },
                "the four older matches are past the window")
    }

    /// A database of schema version 2 (made by the statements the release
    /// before ran) migrates in place: every entry kept with its id, the
    /// full-text index made again with the prefix indexes, and whole.
    @Test func aVersionTwoDatabaseMigratesInPlace() throws {
        let tree = TemporaryTree()
        let path = tree.path("history.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.transaction { () throws(HandoffError) in
                for n in 1...2 { try db.execute(HistorySchema.migrations[n]!) }
                try db.execute("PRAGMA user_version = 2")
            }
            for (id, title) in [(1, "alpha quarterly"), (2, "beta budget"), (7, "gamma zürich")] {
                try db.execute("""
                    INSERT INTO entries VALUES (\(id), x'A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0', 'Desk', randomblob(16), 'b', 'T', 't',
                        'p\(id)', '\(title)', '', '', NULL, \(id), \(id), 3, x'000102')
                    """)
            }
        }
        let store = try HistoryStore(path: path)
        #expect(try HistorySchema.userVersion(store.db) == 3)
        let sql = try store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'entries_fts'").rows { $0.text(0) }
        #expect(sql.first?.contains("prefix='1 2 3 4 5 6 7 8'") == true, "\(sql)")
        #expect(try store.search("q").map(\.id) == [1])
        #expect(try store.search("quarterl").map(\.id) == [1])
        #expect(try store.search("budg").map(\.id) == [2])
        #expect(try store.search("zur").map(\.id) == [7])
        #expect(try store.count() == 3)
        try store.db.execute("INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')")
        #expect(try store.db.prepare("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"])
        try store.write(try Self.records(1, from: 9))
        #expect(try store.list(limit: 1).first?.id == 8)
    }
}
