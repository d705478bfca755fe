# SPDX-License-Identifier: MIT OR Apache-2.0
"""The app's side of the history (issue 26, docs/history.md), against a
real agent: an app in agent mode (Tests/cli/history_app.py, the Python
binding over libhandoff; Tests/c/history_app.c, the C API) makes current
an activity eligible for search, and its entry appears in the agent's
database with its title, keywords and the searchable userInfo keys'
strings (never the other keys'); a save with new userInfo updates that one
entry; an activity not eligible for search is never stored, one eligible
for search only (not for handoff) is; deleting by persistent identifier
removes exactly this app's entry (another team's with the same identifier
stays), deleting all removes the bundle's; each completion runs once, on
the app's main thread."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from agent_desktop import LIBRARY, wait_for
from cli_support import ROOT, Process
from test_history import database, publish, start_agent

TYPE = "org.example.notes.edit"
BUNDLE = "org.example.notes"
TEAM = "NOTESTEAM"
PY_APP = Path(__file__).resolve().parent / "history_app.py"
C_APP = Path(os.environ.get("HANDOFF_HISTORY_APP") or ROOT / "build" / "bin" / "history_app")


def rows(device, where="1", *args):
    """The entries, read-only: (bundle, team, persistent_id, title, keywords, content)."""
    if not Path(database(device)).exists():
        return []
    with sqlite3.connect(f"file:{database(device)}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT bundle, team, persistent_id, title, keywords, content FROM entries WHERE "
                          + where + " ORDER BY id", args).fetchall()


class App:
    """The app under test, one command a line on its stdin."""

    def __init__(self, device, socket_path, command):
        env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path), HANDOFF_LIBRARY=str(LIBRARY))
        self.proc = Process(command, env, stdin=subprocess.PIPE)
        device.procs.append(self.proc)
        assert self.proc.event("connected")["mode"] == "AGENT"

    def send(self, **command):
        self.proc.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.proc.stdin.flush()

    def count(self, name):
        return sum(1 for e in self.proc.events() if e.get("event") == name)

    def quit(self):
        self.send(do="quit")
        assert self.proc.wait() == 0, self.proc.stderr


def scenario(device, ports, tmp_path, command):
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(device, socket_path, ports)
    app = App(device, socket_path, command)
    mine = "bundle = ? AND team = ?"

    # Eligible for search: its entry, with the listed keys' strings only.
    app.send(do="current", type=TYPE, title="Quarterly budget", keywords=["finance"],
             info={"body": "invoices from Zürich", "secret": "hunter2", "tags": ["alpha", "beta"]},
             searchable=["body", "tags"], persistent_id="doc-1", search=True)
    app.proc.event("current")
    [(bundle, team, pid, title, keywords, content)] = wait_for(lambda: rows(device) or None, "the entry")
    assert (bundle, team, pid, title) == (BUNDLE, TEAM, "doc-1", "Quarterly budget")
    assert "finance" in keywords
    assert "invoices from Zürich" in content and "alpha" in content and "beta" in content, content
    assert "hunter2" not in content + keywords + title

    # A save with new userInfo updates the one entry.
    app.send(do="save", info={"body": "receipts from Genève", "secret": "swordfish"})
    app.proc.event("saved")
    wait_for(lambda: "Genève" in (rows(device)[0][5] if rows(device) else "") or None, "the updated entry")
    [(_, _, pid, _, _, content)] = rows(device)
    assert pid == "doc-1" and "Zürich" not in content and "swordfish" not in content, content

    # Not eligible for search: never stored. Eligible for search only (not
    # for Handoff): stored. The second proves the first had its chance.
    app.send(do="current", type=TYPE, title="Private diary", persistent_id="doc-3", search=False)
    app.send(do="current", type=TYPE, title="Search only", persistent_id="doc-2", search=True, handoff=False)
    wait_for(lambda: rows(device, "title = ?", "Search only") or None, "the entry eligible for search only")
    assert rows(device, "title = ?", "Private diary") == []
    assert [r[2] for r in rows(device, mine, BUNDLE, TEAM)] == ["doc-1", "doc-2"]

    # Another team's entry with the same persistent identifier.
    other, _ = publish(device, socket_path, "--searchable", "--title", "Other team's doc", "--persistent-id", "doc-1")
    wait_for(lambda: rows(device, "team = ?", "HANDOFFCLI") or None, "the other team's entry")

    # Deleting by persistent identifier: exactly this app's doc-1.
    app.send(do="delete", ids=["doc-1"])
    done = app.proc.event("deleted")
    assert done["error"] is None and done["main"], done
    assert [r[2] for r in rows(device, mine, BUNDLE, TEAM)] == ["doc-2"]
    assert [r[3] for r in rows(device, "team = ?", "HANDOFFCLI")] == ["Other team's doc"]

    # No ids: success at once. Deleting all: the bundle's entries, no other.
    app.send(do="delete", ids=[])
    app.send(do="delete_all")
    app.proc.expect(lambda e: e.get("event") == "deleted" and app.count("deleted") == 3)
    deletions = [e for e in app.proc.events() if e.get("event") == "deleted"]
    assert all(e["error"] is None and e["main"] for e in deletions), deletions
    assert rows(device, mine, BUNDLE, TEAM) == []
    assert [r[3] for r in rows(device, "team = ?", "HANDOFFCLI")] == ["Other team's doc"]

    app.quit()
    assert app.count("deleted") == 3, app.proc.events()
    other.signal(signal.SIGTERM)
    other.wait()
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_a_python_app_indexes_updates_and_deletes_its_entries(device, ports, tmp_path):
    scenario(device, ports, tmp_path, [sys.executable, str(PY_APP), "--bundle", BUNDLE, "--team", TEAM,
                                       "--type", TYPE])


def test_a_c_app_indexes_updates_and_deletes_its_entries(device, ports, tmp_path):
    assert C_APP.exists(), f"{C_APP}: make {C_APP.relative_to(ROOT)}"
    scenario(device, ports, tmp_path, [str(C_APP), BUNDLE, TEAM, TYPE])
