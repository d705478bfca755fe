#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What a history write costs as the history grows (issue 34,
docs/history.md "The database"): the schema of each version, read from
Sources/HandoffAgent/Features/History/HistorySchema.swift, and the statements the
store runs for one write (HistoryStore.write: the lookup by activity, by
persistent id, then the insert, in transactions of 256 followed by a
TRUNCATE checkpoint from version 2 on), over the same libsqlite3 the
agent links. For each size the history is filled with one app's entries,
then 500 more are written through the write path: the persistent-id
lookup's time and the writes per second at that size.

    python3 bench/history_writes.py [--sizes 1000,10000,100000]
"""

import argparse
import os
import re
import sqlite3
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = (ROOT / "Sources/HandoffAgent/Features/History/HistorySchema.swift").read_text()
MIGRATIONS = dict((int(n), sql) for n, sql in re.findall(r'(\d+): """\n(.*?)\n        """', SCHEMA, re.S))

LOOKUP = ("SELECT id FROM entries WHERE team = ?1 AND persistent_id = ?2 AND bundle = ?3 AND device_id = ?4 "
          "ORDER BY last_seen DESC")
BY_ACTIVITY = "SELECT id FROM entries WHERE device_id = ?1 AND activity_id = ?2"
INSERT = ("INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, persistent_id, title, "
          "keywords, content, url, first_seen, last_seen, payload_size, payload) "
          "VALUES (?1, 'Desk', ?2, 'org.example.notes', 'TEAM', 'org.example.notes.edit', ?3, ?4, '', '', NULL, ?5, ?5, "
          "length(?6), ?6)")
DEVICE = b"\xa0" * 16


def row(i):
    return (DEVICE, os.urandom(16), f"doc-{i}", f"Note number {i} about budgets", i, os.urandom(600))


def open_db(path, version):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA secure_delete = ON")
    db.execute("BEGIN")
    for n in range(1, version + 1):
        for statement in split(MIGRATIONS[n]):
            db.execute(statement)
    db.execute("COMMIT")
    return db


def split(sql):
    """Statements of a migration (triggers hold semicolons)."""
    out, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return out


def write(db, version, rows):
    """HistoryStore.write's statements for `rows` (all new entries)."""
    for start in range(0, len(rows), 256):
        db.execute("BEGIN IMMEDIATE")
        for r in rows[start:start + 256]:
            db.execute(BY_ACTIVITY, (r[0], r[1])).fetchall()
            db.execute(LOOKUP, ("TEAM", r[2], "org.example.notes", DEVICE)).fetchall()
            db.execute(INSERT, r)
        db.execute("COMMIT")
        if version >= 2:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def measure(version, size):
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(os.path.join(folder, "h.sqlite"), version)
        db.execute("BEGIN")
        for i in range(size):
            db.execute(INSERT, row(i))
        db.execute("COMMIT")
        plan = " / ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + LOOKUP, ("TEAM", "doc-1", "org.example.notes", DEVICE)))
        probes = 50
        t = time.perf_counter()
        for i in range(probes):
            db.execute(LOOKUP, ("TEAM", f"doc-{(i * 7919) % size}", "org.example.notes", DEVICE)).fetchall()
        lookup_ms = (time.perf_counter() - t) / probes * 1000
        n = 500 if version >= 2 or size <= 10_000 else 100
        rows = [row(size + i) for i in range(n)]
        t = time.perf_counter()
        write(db, version, rows)
        rate = n / (time.perf_counter() - t)
        db.close()
        return lookup_ms, rate, plan


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    print(f"SQLite {sqlite3.sqlite_version}")
    for size in [int(s) for s in args.sizes.split(",")]:
        for version in (1, max(MIGRATIONS)):
            lookup_ms, rate, plan = measure(version, size)
            print(f"schema {version}, {size:>7,} entries: lookup {lookup_ms:8.3f} ms, {rate:8.0f} writes/s  ({plan})")


if __name__ == "__main__":
    main()
