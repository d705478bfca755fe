// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The history database's schema, by version (`PRAGMA user_version`;
/// docs/history.md "The database"). Each migration takes the database
/// from the version before it; all run in one transaction, so a database
/// is at one version or the one before, never between.
enum HistorySchema {
    static let version = 3

    /// Migration n takes version n-1 to n.
    static let migrations: [Int: String] = [
        1: """
        CREATE TABLE entries(
            id INTEGER PRIMARY KEY,
            device_id BLOB NOT NULL,
            device_name TEXT NOT NULL,
            activity_id BLOB NOT NULL,
            bundle TEXT NOT NULL,
            team TEXT NOT NULL,
            type TEXT NOT NULL,
            persistent_id TEXT,
            title TEXT NOT NULL,
            keywords TEXT NOT NULL,
            content TEXT NOT NULL,
            url TEXT,
            first_seen INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            payload_size INTEGER NOT NULL,
            payload BLOB NOT NULL
        );
        CREATE UNIQUE INDEX entries_activity ON entries(device_id, activity_id);
        CREATE INDEX entries_persistent ON entries(team, persistent_id) WHERE persistent_id IS NOT NULL;
        CREATE INDEX entries_last_seen ON entries(last_seen);
        CREATE INDEX entries_bundle ON entries(bundle);
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            title, keywords, content,
            content='entries', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2', prefix='2 3'
        );
        CREATE TRIGGER entries_insert AFTER INSERT ON entries BEGIN
            INSERT INTO entries_fts(rowid, title, keywords, content) VALUES (new.id, new.title, new.keywords, new.content);
        END;
        CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
            INSERT INTO entries_fts(entries_fts, rowid, title, keywords, content)
                VALUES ('delete', old.id, old.title, old.keywords, old.content);
        END;
        CREATE TRIGGER entries_update AFTER UPDATE ON entries BEGIN
            INSERT INTO entries_fts(entries_fts, rowid, title, keywords, content)
                VALUES ('delete', old.id, old.title, old.keywords, old.content);
            INSERT INTO entries_fts(rowid, title, keywords, content) VALUES (new.id, new.title, new.keywords, new.content);
        END;
        """,
        // Version 2: ids never reused (AUTOINCREMENT; the old
        // ids are copied as they were), the persistent-id lookup on an
        // index of all four columns it compares (the partial index of
        // version 1 could not be proven to apply to a bound parameter, so
        // SQLite looked entries up by bundle: a write cost the app's entry
        // count), and the count and payload bytes kept in `stats` by the
        // triggers (retention reads them instead of counting).
        2: """
        CREATE TABLE entries_v2(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            device_id BLOB NOT NULL,
            device_name TEXT NOT NULL,
            activity_id BLOB NOT NULL,
            bundle TEXT NOT NULL,
            team TEXT NOT NULL,
            type TEXT NOT NULL,
            persistent_id TEXT,
            title TEXT NOT NULL,
            keywords TEXT NOT NULL,
            content TEXT NOT NULL,
            url TEXT,
            first_seen INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            payload_size INTEGER NOT NULL,
            payload BLOB NOT NULL
        );
        INSERT INTO entries_v2 SELECT id, device_id, device_name, activity_id, bundle, team, type, persistent_id, title,
            keywords, content, url, first_seen, last_seen, payload_size, payload FROM entries;
        DROP TABLE entries;
        ALTER TABLE entries_v2 RENAME TO entries;
        CREATE UNIQUE INDEX entries_activity ON entries(device_id, activity_id);
        CREATE INDEX entries_persistent ON entries(team, persistent_id, bundle, device_id, last_seen);
        CREATE INDEX entries_last_seen ON entries(last_seen);
        CREATE INDEX entries_bundle ON entries(bundle);
        CREATE TABLE stats(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            entries INTEGER NOT NULL,
            payload_bytes INTEGER NOT NULL
        );
        INSERT INTO stats VALUES (1, (SELECT count(*) FROM entries), (SELECT coalesce(sum(payload_size), 0) FROM entries));
        CREATE TRIGGER entries_insert AFTER INSERT ON entries BEGIN
            INSERT INTO entries_fts(rowid, title, keywords, content) VALUES (new.id, new.title, new.keywords, new.content);
            UPDATE stats SET entries = entries + 1, payload_bytes = payload_bytes + new.payload_size WHERE id = 1;
        END;
        CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
            INSERT INTO entries_fts(entries_fts, rowid, title, keywords, content)
                VALUES ('delete', old.id, old.title, old.keywords, old.content);
            UPDATE stats SET entries = entries - 1, payload_bytes = payload_bytes - old.payload_size WHERE id = 1;
        END;
        CREATE TRIGGER entries_update AFTER UPDATE ON entries BEGIN
            INSERT INTO entries_fts(entries_fts, rowid, title, keywords, content)
                VALUES ('delete', old.id, old.title, old.keywords, old.content);
            INSERT INTO entries_fts(rowid, title, keywords, content) VALUES (new.id, new.title, new.keywords, new.content);
            UPDATE stats SET payload_bytes = payload_bytes - old.payload_size + new.payload_size WHERE id = 1;
        END;
        """,
        // Version 3: prefix indexes for prefixes of 1 to 8 characters
        // (version 2 had 2 and 3), so what a person types reads the
        // newest matches first and stops (docs/history.md "Searching"); a
        // longer prefix, or one without its index, made FTS5 gather every
        // match of every word it begins before the first could be read.
        // FTS5 cannot change an index's options: it is made again from the
        // entries (secure_delete overwrites the old one's pages).
        3: """
        DROP TABLE entries_fts;
        CREATE VIRTUAL TABLE entries_fts USING fts5(
            title, keywords, content,
            content='entries', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2', prefix='1 2 3 4 5 6 7 8'
        );
        INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
        """,
    ]

    /// Brings `db` to `version`: nothing when it is there, the missing
    /// migrations in one transaction when it is older.
    /// - Throws: `.invalidState` for a database of a newer release.
    static func migrate(_ db: SQLiteDatabase) throws(HandoffError) {
        let current = try userVersion(db)
        guard current <= version else {
            throw HandoffError(.invalidState,
                "the history database \(db.path) has schema version \(current), written by a newer release (this one reads \(version)); history is off until that release runs again or the file is removed")
        }
        guard current < version else { return }
        try db.transaction { () throws(HandoffError) in
            // Read again under the write lock: another connection (the
            // agent, `handoff history`) may have migrated meanwhile.
            let now = try userVersion(db)
            guard now < version else { return }
            for n in (now + 1)...version {
                try db.execute(migrations[n]!)
            }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    static func userVersion(_ db: SQLiteDatabase) throws(HandoffError) -> Int {
        let s = try db.prepare("PRAGMA user_version")
        let rows = try s.rows { Int($0.integer(0)) }
        return rows.first ?? 0
    }
}
