#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What a history write costs as the history grows (docs/history.md
"The database"): the schema of each version, read from
Sources/HandoffAgent/Features/History/HistorySchema.swift, and the statements the
store runs for one write (HistoryStore.write: the lookup by activity, by
persistent id, then the insert, in one transaction followed by a TRUNCATE
checkpoint from version 2 on), over the same libsqlite3 the agent links.
For each size the history is filled with one app's entries (titles,
keywords and text from bench/history.c's vocabulary), then more are
written through the write path:

- write p50: one record a transaction, as the agent's writer writes a
  record that arrives alone (an app's activity made current), checkpoint
  included (its fsyncs); the same without the checkpoint; and the CPU
  time of that (the statements' own work, this script's sqlite3 calls
  included). Each next to the same at the smallest size (goal: <= 0.1 ms
  at 100,000 entries);
- writes/s in batches of 256 (a burst), and the persistent-id lookup.

    python3 bench/history_writes.py [--sizes 10000,100000] [--versions 2,3]
"""

import argparse
import os
import random
import re
import sqlite3
import statistics
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
          "VALUES (?1, 'Desk', ?2, 'org.example.notes', 'TEAM', 'org.example.notes.edit', ?3, ?4, ?5, ?6, NULL, ?7, ?7, "
          "length(?8), ?8)")
DEVICE = b"\xa0" * 16


WORDS = ["budget", "otter", "river", "invoice", "garden", "meeting", "holiday", "recipe", "quarterly", "report",
         "draft", "letter", "zürich", "lisbon", "kyoto", "piano", "chapter", "thesis", "travel", "summit",
         "harbour", "lantern", "meadow", "canyon", "orbit", "pepper", "saffron", "violet", "walnut", "yonder",
         "glacier", "marble", "compass", "velvet", "ember", "falcon", "juniper", "kettle", "lagoon", "nectar"]


def row(i):
    pick = random.Random(i).choice
    return (DEVICE, os.urandom(16), f"doc-{i}", f"Note {i}: {pick(WORDS)} {pick(WORDS)} {pick(WORDS)}",
            f"{pick(WORDS)}\n{pick(WORDS)}", " ".join(pick(WORDS) for _ in range(5)), i, os.urandom(600))


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


def write_one(db, version, r):
    """HistoryStore.write of one record that arrived alone."""
    db.execute("BEGIN IMMEDIATE")
    db.execute(BY_ACTIVITY, (r[0], r[1])).fetchall()
    db.execute(LOOKUP, ("TEAM", r[2], "org.example.notes", DEVICE)).fetchall()
    db.execute(INSERT, r)
    db.execute("COMMIT")


def measure(version, size):
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(os.path.join(folder, "h.sqlite"), version)
        db.execute("BEGIN")
        for i in range(size):
            db.execute(INSERT, row(i))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        plan = " / ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + LOOKUP, ("TEAM", "doc-1", "org.example.notes", DEVICE)))
        probes = 50
        t = time.perf_counter()
        for i in range(probes):
            db.execute(LOOKUP, ("TEAM", f"doc-{(i * 7919) % size}", "org.example.notes", DEVICE)).fetchall()
        lookup_ms = (time.perf_counter() - t) / probes * 1000
        alone, bare, cpu = [], [], []
        for i in range(300):
            r = row(size + i)
            t, c = time.perf_counter(), time.thread_time()
            write_one(db, version, r)
            t1, c1 = time.perf_counter(), time.thread_time()
            if version >= 2:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            alone.append(time.perf_counter() - t)
            bare.append(t1 - t)
            cpu.append(c1 - c)
        n = 512 if version >= 2 or size <= 10_000 else 100
        rows = [row(size + 1000 + i) for i in range(n)]
        t = time.perf_counter()
        write(db, version, rows)
        rate = n / (time.perf_counter() - t)
        db.close()
        return (lookup_ms, rate, plan, statistics.median(alone) * 1000, statistics.median(bare) * 1000,
                statistics.median(cpu) * 1000)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--versions", default=f"{max(MIGRATIONS) - 1},{max(MIGRATIONS)}")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"\nhistory writes (bench/history_writes.py): the store's statements over SQLite {sqlite3.sqlite_version}")
    for version in [int(v) for v in args.versions.split(",")]:
        first = None
        for size in sizes:
            lookup_ms, rate, plan, alone_ms, bare_ms, cpu_ms = measure(version, size)
            first = first or (size, alone_ms, bare_ms, cpu_ms)
            print(f"  schema {version}, {size:>7,} entries: write p50 {alone_ms:6.3f} ms, {bare_ms:6.3f} without the "
                  f"checkpoint, of it CPU {cpu_ms:5.3f} ms ({alone_ms / first[1]:4.2f}x, {bare_ms / first[2]:4.2f}x, "
                  f"{cpu_ms / first[3]:4.2f}x the {first[0]:,}-entry figures); {rate:5.0f} writes/s in batches of "
                  f"256; lookup {lookup_ms:5.3f} ms ({plan})")
    print(f"  {'':34} goal: write p50 <= 0.1 ms at 100,000 entries, the same as at 10,000")


if __name__ == "__main__":
    main()
