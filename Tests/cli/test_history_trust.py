# SPDX-License-Identifier: MIT OR Apache-2.0
"""History you can trust (issue 34, docs/history.md), end to end with a
real agent, a real app (Tests/cli/history_app.py over libhandoff) and the
real SQLite file: ids are never reused and read strictly, an unknown id
is an error; an unreadable, damaged or newer database is an error for
every `handoff history` action, never "empty"; deleted text leaves the
database and its WAL at once, and after SIGTERM; an entry expires while
nothing is written; a burst of 10,000 activities loses none uncounted;
deletion works on a full disk (a tmpfs mounted here, always unmounted)
and the full disk is logged once, and shown by doctor."""

import errno
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from agent_desktop import wait_for
from test_history import database, start_agent
from test_history_app import BUNDLE, PY_APP, TEAM, TYPE, App

import sys


def app(device, socket_path):
    return App(device, socket_path, [sys.executable, str(PY_APP), "--bundle", BUNDLE, "--team", TEAM,
                                     "--type", TYPE, "--seconds", "300"])


def history(device, *args):
    result = device.run("--json", "history", *args)
    assert result.code == 0, result
    return [json.loads(line) for line in result.out.splitlines() if line.strip()]


def count(device):
    if not Path(database(device)).exists():
        return 0
    with sqlite3.connect(f"file:{database(device)}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT count(*) FROM entries").fetchone()[0]


def hits(path, words):
    """How often any of `words` is in the database's files (any case)."""
    n = 0
    for suffix in ("", "-wal"):
        try:
            data = Path(str(path) + suffix).read_bytes().lower()
        except FileNotFoundError:
            continue
        n += sum(data.count(w.lower().encode()) for w in words)
    return n


def stop(agent, *apps):
    for a in apps:
        a.quit()
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_ids_are_never_reused_and_unknown_or_malformed_ids_are_errors(device, ports, tmp_path):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    a = app(device, socket_path)
    for i in range(3):  # one at a time: each is current when the library indexes it
        a.send(do="current", type=TYPE, title=f"entry {i}", search=True)
        wait_for(lambda: count(device) == i + 1, f"entry {i}")
    ids = [e["id"] for e in history(device)]
    newest = ids[0]
    assert history(device, "delete", newest) == [{"deleted": 1}]
    a.send(do="current", type=TYPE, title="after the deletion", search=True)
    wait_for(lambda: count(device) == 3, "the next entry")
    after = history(device)[0]
    assert after["title"] == "after the deletion" and after["id"] not in ids, (ids, after)
    # The deleted id names nothing now: an error, not "0 deleted".
    for args in (["show", newest], ["delete", newest], ["delete", "h999"], ["delete", ids[1], "h999"]):
        result = device.run("history", *args)
        assert result.code == 1 and "no entr" in result.err, (args, result)
    assert count(device) == 3, "nothing deleted when one id is unknown"
    # One spelling per id: "h05" is not "h5".
    number = ids[1][1:]
    for spelling in ("h0" + number, "0" + number, "h" + number + " ", "h+" + number):
        result = device.run("history", "show", spelling)
        assert result.code == 2 and "not a history entry's id" in result.err, (spelling, result)
    assert history(device, "show", "h" + number)[0]["id"] == ids[1]
    assert history(device, "show", number)[0]["id"] == ids[1]
    stop(agent, a)


@pytest.mark.parametrize("kind", ["newer", "damaged", "not-a-folder"])
def test_an_unreadable_database_is_an_error_everywhere(device, kind, tmp_path):
    path = Path(database(device))
    env = dict(device.env)
    if kind == "newer":
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA user_version = 99")
    elif kind == "damaged":
        path.write_bytes(b"Z" * 8192)
    else:
        (tmp_path / "afile").write_text("x")
        env["HANDOFF_HISTORY_DB"] = str(tmp_path / "afile" / "history.sqlite")
    for args in (["list"], ["search", "budget"], ["show", "h1"], ["delete", "h1"], ["delete", "--all"]):
        result = device.run("history", *args, env=env)
        assert result.code == 1, (kind, args, result)
        assert "history database" in result.err and "empty" not in result.out + result.err, (kind, args, result)
        assert "cannot create" not in result.err, (kind, args, result)
    if kind == "newer":
        assert "newer release" in device.run("history", "list", env=env).err


def test_deleted_text_is_gone_from_the_database_and_the_wal_also_after_sigterm(device, ports, tmp_path):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    a = app(device, socket_path)
    a.send(do="burst", n=50, type=TYPE)
    a.send(do="current", type=TYPE, title="Zebracorn Quarterly", keywords=["xylophonist"], search=True)
    wait_for(lambda: history(device, "search", "zebracorn"), "the entry to delete")
    before = settle(device, 51)
    words = ["zebracorn", "xylophonist"]
    assert hits(database(device), words) > 0
    secret = history(device, "search", "zebracorn")[0]["id"]
    assert history(device, "delete", secret) == [{"deleted": 1}]
    assert hits(database(device), words) == 0
    a.send(do="current", type=TYPE, title="Written after", search=True)  # the agent writes on
    wait_for(lambda: count(device) == before, "the write after")
    stop(agent, a)
    assert hits(database(device), words) == 0


def test_an_entry_expires_while_nothing_is_written(device, ports, tmp_path):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    a = app(device, socket_path)
    a.send(do="current", type=TYPE, title="Fresh entry", search=True)
    wait_for(lambda: count(device) == 1, "the fresh entry")
    # Another process leaves a three-day-old entry; then the limit becomes a day.
    with sqlite3.connect(database(device), timeout=10) as db:
        db.execute("""INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, title, keywords,
                      content, first_seen, last_seen, payload_size, payload)
                      VALUES (randomblob(16), 'Elsewhere', randomblob(16), 'b', 'T', 't', 'Stale entry', '', '',
                              ?1, ?1, 0, x'')""", (int(time.time() * 1000) - 3 * 86_400_000,))
    assert [e["title"] for e in history(device, "search", "stale")] == ["Stale entry"]
    assert device.run("settings", "history", "days", "1").code == 0
    wait_for(lambda: history(device, "search", "stale") == [], "the stale entry pruned with no write")
    assert [e["title"] for e in history(device)] == ["Fresh entry"]
    stop(agent, a)


def settle(device, n):
    """The entry count once it reached `n` or stayed put for two seconds."""
    last = [-1, 0]

    def settled():
        now = count(device)
        if now == n:
            return True
        last[1] = last[1] + 1 if now == last[0] else 0
        last[0] = now
        return last[1] >= 40

    wait_for(settled, "the burst written", timeout=120)
    return count(device)


def doctor(device, socket_path):
    env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path))
    result = device.run("--json", "doctor", "--listen", "0", env=env)
    return json.loads(result.out.splitlines()[-1]), result


def test_a_burst_of_ten_thousand_activities_loses_none_uncounted(device, ports, tmp_path):
    """An app making 10,000 distinct activities eligible for search
    current back to back: the agent keeps them, or counts what it could
    not keep (STATUS, doctor). The figure is printed for docs/history.md.
    Back to back, the app's library indexes only the activities still
    current when it encodes one (Application.offerCurrent): those it
    skips never reach the agent (`received`), which keeps every one it
    receives."""
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    a = app(device, socket_path)
    n = 10_000
    a.send(do="burst", n=n, type=TYPE)
    a.proc.event("burst", timeout=120)
    settle(device, n)

    def accounted():
        # Every record the agent received is an entry, or counted.
        report, result = doctor(device, socket_path)
        h = report.get("history") or {}
        done = "received" in h and h["entries"] + h["dropped"] + h["coalesced"] + h["failed"] == h["received"]
        return (report, result) if done else None

    report, result = wait_for(accounted, "every record received written or counted", timeout=120)
    kept = count(device)
    h = report.get("history")
    assert h is not None and "dropped" in h, (kept, report.get("via"), [l for l in agent.stderr if "history" in l or "error" in l][-10:], a.proc.stderr[-5:])
    print(f"burst of {n}: the agent received {h['received']}, kept {kept}, dropped {h['dropped']}, "
          f"failed {h['failed']}, coalesced {h['coalesced']}")
    # Every record the agent received is an entry, or counted: none lost in silence.
    assert h["failed"] == 0
    assert kept + h["dropped"] + h["coalesced"] == h["received"], h
    finding = [f for f in report["findings"] if f["check"] == "history.writes"]
    assert finding and (finding[0]["status"] == "ok") == (h["dropped"] == 0), finding
    assert h["entries"] == kept and h["schema"] == 3
    # list has no cap.
    assert len(history(device, "list", "--limit", "100000")) == kept
    stop(agent, a)


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MiB tmpfs (root only), always unmounted: room for the first
    burst's database and WAL even when readers keep the WAL from being
    reset under load (24 MiB filled up before the test filled it)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", str(mount)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_deleting_works_on_a_full_disk_and_the_full_disk_is_logged_once(device, ports, tmp_path, small_disk):
    device.env["HANDOFF_HISTORY_DB"] = str(small_disk / "history.sqlite")
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    a = app(device, socket_path)
    a.send(do="burst", n=2000, type=TYPE)
    a.proc.event("burst", timeout=60)
    assert settle(device, 2000) > 0
    # The disk fills up (a full tmpfs may refuse even the file's creation).
    try:
        with open(small_disk / "filler", "wb") as f:
            while True:
                f.write(b"\1" * 65536)
                f.flush()
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
    a.send(do="burst", n=300, type=TYPE)
    a.proc.event("burst", timeout=60)
    wait_for(lambda: any("full" in line for line in agent.stderr), "the full disk logged")
    time.sleep(2)  # the rest of the burst meets the full disk too
    full = [line for line in agent.stderr if "disk is full" in line]
    assert len(full) == 1, full
    report, result = doctor(device, socket_path)
    assert any(f["check"] == "history.disk" and f["status"] == "warn" for f in report["findings"]), result.out
    assert report["history"]["failed"] > 0, report["history"]
    result = device.run("history", "delete", "--all")
    assert result.code == 0 and "Deleted" in result.out, result
    assert count(device) == 0
    # Room again: writing works again, and says so once.
    (small_disk / "filler").unlink(missing_ok=True)
    a.send(do="current", type=TYPE, title="After the disk was freed", search=True)
    wait_for(lambda: count(device) == 1, "a write after the disk was freed")
    wait_for(lambda: any("works again" in line for line in agent.stderr), "the recovery logged")
    stop(agent, a)
