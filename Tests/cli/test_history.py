# SPDX-License-Identifier: MIT OR Apache-2.0
"""The history end to end (issue 26, docs/history.md): an app publishing
through the agent an activity eligible for search (`handoff publish
--searchable`, the library's INDEX) lands in the agent's SQLite database;
`handoff history` lists, searches, shows and deletes it; an activity not
eligible is never stored; the agent killed with SIGKILL at any moment
while activities are saved leaves a database that opens and answers.
Apps in C and Python deleting their own entries: test_history_app.py."""

import json
import os
import random
import signal
import sqlite3
import threading
import time

from agent_desktop import wait_for
from cli_support import loopback

TYPE = "org.example.notes.edit"


def start_agent(device, socket_path, ports):
    if not device.account_file.exists():
        assert device.run("account", "create").code == 0
        assert device.run("device", "--name", "Desk").code == 0
    agent = device.spawn("--json", "agent", "--no-notifications", "--no-tray", "--socket", socket_path,
                         *loopback(ports[0], ports[1]))
    agent.expect_stderr('"event":"listening"')
    return agent


def publish(device, socket_path, *extra, timeout="30"):
    """`handoff publish` through the agent (an app of team HANDOFFCLI)."""
    env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path))
    proc = device.spawn("--json", "publish", "--agent", "--type", TYPE, "--timeout", timeout, *extra, env=env)
    return proc, proc.event("publishing")


def history(device, *args):
    result = device.run("--json", "history", *args)
    assert result.code == 0, result
    return [json.loads(line) for line in result.out.splitlines() if line.strip()]


def database(device):
    return device.env["HANDOFF_HISTORY_DB"]


def test_an_eligible_activity_is_kept_found_shown_and_deleted(device, ports, tmp_path):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    kept, _ = publish(device, socket_path, "--searchable", "--title", "Quarterly budget", "--keyword", "finance",
                      "--info", "body=invoices from Zürich", "--info", "secret=hunter2", "--searchable-key", "body",
                      "--persistent-id", "doc-1")
    hidden, _ = publish(device, socket_path, "--title", "Private diary")
    entries = wait_for(lambda: history(device) or None, "the entry in the history")
    assert [e["title"] for e in entries] == ["Quarterly budget"], entries
    e = entries[0]
    assert e["app"] == "org.libhandoff.handoff" and e["team"] == "HANDOFFCLI" and e["type"] == TYPE, e
    assert e["keywords"] == ["finance"] and e["content"] == ["invoices from Zürich"], e
    assert e["persistent_id"] == "doc-1" and e["id"].startswith("h"), e
    for query in (["budg"], ["FINANCE"], ["zurich"], ["quarterly", "invoices"]):
        assert [x["id"] for x in history(device, "search", *query)] == [e["id"]], query
    for query in (["hunter2"], ["diary"], ["NEAR("], ["'); DROP TABLE entries;--"]):
        assert history(device, "search", *query) == [], query
    shown = history(device, "show", e["id"])
    assert shown == [e]
    human = device.run("history", "show", e["id"])
    assert "Quarterly budget" in human.out and "| invoices from Zürich" in human.out, human
    # The database: private, and without the activity that was not eligible.
    assert oct(os.stat(database(device)).st_mode & 0o777) == "0o600"
    with sqlite3.connect(f"file:{database(device)}?mode=ro", uri=True) as db:
        titles = [r[0] for r in db.execute("SELECT title FROM entries")]
    assert titles == ["Quarterly budget"], titles
    assert history(device, "delete", e["id"]) == [{"deleted": 1}]
    assert history(device) == []
    for proc in (kept, hidden):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_history_off_keeps_nothing_new_and_delete_by_app(device, ports, tmp_path):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    first, _ = publish(device, socket_path, "--searchable", "--title", "Kept one")
    wait_for(lambda: history(device) or None, "the first entry")
    assert device.run("settings", "history", "off").code == 0
    second, _ = publish(device, socket_path, "--searchable", "--title", "Not kept")
    # A third, after turning it on again, proves the second had its chance.
    assert device.run("settings", "history", "on").code == 0
    third, _ = publish(device, socket_path, "--searchable", "--title", "Kept again")
    wait_for(lambda: len(history(device)) == 2 or None, "the third entry")
    assert sorted(e["title"] for e in history(device)) == ["Kept again", "Kept one"]
    assert history(device, "delete", "--app", "org.libhandoff.handoff") == [{"deleted": 2}]
    bad = device.run("history", "delete", "h1", "--all")
    assert bad.code == 2, bad
    for proc in (first, second, third):
        proc.signal(signal.SIGTERM)
        proc.wait()
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_the_database_survives_sigkill_at_any_moment(device, ports, tmp_path):
    """The agent is killed with SIGKILL ten times while apps keep saving
    activities eligible for search; after each kill the database passes
    SQLite's integrity check and answers `handoff history`, and the next
    agent opens it and keeps writing."""
    socket_path = tmp_path / "run" / "agent.sock"
    stop = threading.Event()
    failures = []

    def saver():
        n = 0
        while not stop.is_set() and n < 400:
            n += 1
            env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path))
            result = device.run("publish", "--agent", "--type", TYPE, "--searchable", "--timeout", "0.2",
                                "--title", f"saved {n} {'x' * random.randint(0, 2000)}", env=env)
            if result.code not in (0, 1):
                failures.append(result)

    savers = [threading.Thread(target=saver) for _ in range(3)]
    rng = random.Random(26)
    try:
        agent = start_agent(device, socket_path, ports)
        for t in savers:
            t.start()
        for _ in range(10):
            time.sleep(rng.uniform(0.3, 1.5))
            agent.proc.send_signal(signal.SIGKILL)
            agent.wait()
            with sqlite3.connect(f"file:{database(device)}?mode=ro", uri=True, timeout=10) as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
                db.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'saved'").fetchone()
            listed = device.run("--json", "history", "search", "saved")
            assert listed.code == 0, listed
            agent = start_agent(device, socket_path, ports)
    finally:
        stop.set()
        for t in savers:
            t.join(timeout=60)
    # The last agent still takes what is saved.
    count = len(history(device, "--limit", "10000"))
    last, _ = publish(device, socket_path, "--searchable", "--title", "after the kills")
    wait_for(lambda: history(device, "search", "after", "kills") or None, "an entry written by the last agent")
    last.signal(signal.SIGTERM)
    last.wait()
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
    assert count > 0 and not failures, (count, failures[:3])
    with sqlite3.connect(database(device), timeout=10) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        # FTS5's own check: the index matches the entries, row for row.
        db.execute("INSERT INTO entries_fts(entries_fts) VALUES('integrity-check')")



def test_other_devices_activities_are_kept_only_when_turned_on(pair, ports, tmp_path):
    """Device B's agent with `handoff settings history other-devices on`
    keeps what device A offers eligible for search (fetched once after 10 s
    shown; A is not told it was continued); an activity not eligible is
    fetched and dropped; with the setting off nothing of A's is kept."""
    a, b = pair
    socket_path = tmp_path / "run" / "agent.sock"
    assert b.run("settings", "history", "other-devices", "on").code == 0
    agent = b.spawn("--json", "agent", "--no-notifications", "--no-tray", "--no-search", "--socket", socket_path,
                    *loopback(ports[1], ports[0]))
    agent.expect_stderr('"event":"listening"')
    kept = a.spawn("--json", "publish", *loopback(ports[0], ports[1]), "--type", TYPE, "--searchable",
                   "--title", "Drafted on A", "--keyword", "elsewhere")
    kept.event("publishing")
    entries = wait_for(lambda: history(b, "search", "elsewhere") or None, "A's activity in B's history", timeout=60)
    assert [e["title"] for e in entries] == ["Drafted on A"] and entries[0]["device"] == "Device A", entries
    assert not any(e.get("event") == "continued" for e in kept.events() if isinstance(e, dict)), \
        "a fetch for the history is not a continuation"
    # Off: nothing new of A's is kept.
    assert history(b, "delete", "--all") == [{"deleted": 1}]
    assert b.run("settings", "history", "other-devices", "off").code == 0
    kept.signal(signal.SIGTERM)
    kept.wait()
    again = a.spawn("--json", "publish", *loopback(ports[0], ports[1]), "--type", TYPE, "--searchable",
                    "--title", "Drafted again", "--keyword", "elsewhere")
    again.event("publishing")
    time.sleep(12)  # past the 10 s the agent would have waited to fetch it
    assert history(b) == []
    again.signal(signal.SIGTERM)
    again.wait()
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
