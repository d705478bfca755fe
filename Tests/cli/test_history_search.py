# SPDX-License-Identifier: MIT OR Apache-2.0
"""The desktop's search of the history (issue 26, docs/history.md
"Searching from the desktop"), called exactly as GNOME Shell
(org.gnome.Shell.SearchProvider2) and KRunner (org.kde.krunner1) call it:
device B's agent on a private dbus-daemon (agent_desktop.Desktop), its
history in a temporary HANDOFF_HISTORY_DB into which the test writes
entries with sqlite3 (payloads are binary plists, docs/PROTOCOL.md §3),
busctl and dbus-send as the shell. Found by title prefix, keyword and
searchable content; subsearch narrows; metas carry name, "App · Device ·
when" and the app's icon; unknown ids are left out; hostile text is found
literally and never errors; wrong argument types answer InvalidArgs;
activating a result launches the app from its .desktop file, which
restores the saved activity. Apps the agent launched are killed by pid."""

import plistlib
import sqlite3
from contextlib import closing
import subprocess
import time
import uuid

import pytest

from agent_desktop import Desktop, json_lines, kill_apps, wait_for
from cli_support import WAIT, loopback
from test_agent_e2e import app_event
from tray_host import busctl

NAME = "org.libhandoff.History"
PATH = "/org/libhandoff/History"
GNOME = "org.gnome.Shell.SearchProvider2"
KRUNNER = "org.kde.krunner1"
TYPE = "com.example.history.edit"
BUNDLE = "org.example.Notes"
DEVICE = "Kitchen iMac"


class History:
    """B's agent serving its history on the private bus, and the database
    the test writes entries into."""

    def __init__(self, device, desktop, tmp_path, ports, *extra, language=lambda env: env):
        self.db = tmp_path / "history" / "history.sqlite"
        self.desktop = desktop
        socket_path = tmp_path / "run" / "agent.sock"
        env = language(dict(desktop.env(device.env, socket_path), HANDOFF_HISTORY_DB=str(self.db)))
        self.agent = device.spawn("--json", "agent", "--socket", socket_path, *loopback(ports[1], ports[0]), *extra,
                                  env=env)
        self.agent.expect_stderr('"event":"listening"')
        wait_for(self._ready, "the agent created the history database")

    def _ready(self):
        try:
            with closing(sqlite3.connect(self.db, timeout=WAIT)) as db:
                return db.execute("PRAGMA user_version").fetchone()[0] == 3  # HistorySchema.version
        except sqlite3.Error:
            return False

    def serving(self):
        wait_for(lambda: any(e["name"] == NAME for e in busctl(self.desktop.address, "list")[1]),
                 f"{NAME} on the bus; the agent's log: {self.agent.stderr}")

    def add(self, title, keywords=(), content=(), bundle=BUNDLE, device=DEVICE, seconds_ago=330,
            user_info=None, activity_type=TYPE):
        """An entry as the agent's writer stores it; returns its result id."""
        activity = uuid.uuid4()
        payload = plistlib.dumps({
            "version": 1, "activityID": str(activity).upper(), "activityType": activity_type,
            "userInfo": user_info or {"n": "42"}, "title": title, "keywords": sorted(keywords),
            "eligibleForSearch": True}, fmt=plistlib.FMT_BINARY)
        now = int(time.time() * 1000)
        seen = now - seconds_ago * 1000
        # Each write closes its connection: SQLite, closing what it takes
        # for the last one, would delete the WAL under an agent whose locks
        # were dropped (HistoryStore.prepareFile).
        with closing(sqlite3.connect(self.db, timeout=WAIT)) as db, db:
            cursor = db.execute(
                "INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, persistent_id, title,"
                " keywords, content, url, first_seen, last_seen, payload_size, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?, ?, ?, ?)",
                (uuid.uuid4().bytes, device, activity.bytes, bundle, "HANDOFFCLI", activity_type, title,
                 "\n".join(keywords), "\n".join(content), seen, seen, len(payload), payload))
            return f"h{cursor.lastrowid}"

    def call(self, interface, member, signature="", *args):
        reply = busctl(self.desktop.address, "call", NAME, PATH, interface, member, signature,
                       *[str(a) for a in args])[1]
        return reply["data"] if reply else []  # no output: an empty reply

    def search(self, *terms):
        return self.call(GNOME, "GetInitialResultSet", "as", len(terms), *terms)[0]

    def subsearch(self, previous, *terms):
        return self.call(GNOME, "GetSubsearchResultSet", "asas", len(previous), *previous, len(terms), *terms)[0]

    def metas(self, *ids):
        return [{k: v["data"] for k, v in meta.items()}
                for meta in self.call(GNOME, "GetResultMetas", "as", len(ids), *ids)[0]]

    def match(self, query):
        return self.call(KRUNNER, "Match", "s", query)[0]

    def send(self, member, *args):
        """dbus-send, which prints the D-Bus error's name: (code, output)."""
        done = subprocess.run(["dbus-send", f"--bus={self.desktop.address}", "--print-reply", f"--dest={NAME}",
                               PATH, member, *args], capture_output=True, text=True, timeout=WAIT)
        return done.returncode, done.stdout + done.stderr


@pytest.fixture
def history(pair, ports, tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    h = History(pair[1], desktop, tmp_path, ports)
    h.serving()
    return h


def test_gnome_shell_finds_by_title_keyword_and_content_and_subsearch_narrows(history):
    quarterly = history.add("Quarterly report draft", keywords=["finance", "budget"], content=["revenue forecast"])
    shopping = history.add("Shopping list", keywords=["groceries"], content=["oat milk", "quarterly sale"])
    holiday = history.add("Holiday plans", content=["Lisbon"])

    assert history.search("Quart") == [quarterly, shopping] or history.search("Quart") == [shopping, quarterly]
    assert history.search("quarterly", "report") == [quarterly]
    assert history.search("budg") == [quarterly]
    assert history.search("groceries") == [shopping]
    assert history.search("lisbon") == [holiday]
    assert history.search("oat", "milk") == [shopping]
    assert history.search("nothing-like-this") == []
    assert history.search() == []

    both = history.search("quarterly")
    assert set(both) == {quarterly, shopping}
    assert history.subsearch(both, "quarterly", "rep") == [quarterly]
    # Narrowing never adds what the previous results did not hold.
    assert history.subsearch([shopping], "holiday") == []
    assert history.subsearch([], "quarterly") == []


def test_metas_show_title_app_device_and_when_with_the_apps_icon_and_leave_unknown_ids_out(history, tmp_path):
    history.desktop.install(BUNDLE, BUNDLE, [TYPE], tmp_path / "never.jsonl", icon="accessories-text-editor")
    installed = history.add("Meeting notes", seconds_ago=330)
    # No desktop entry for its bundle, none here continues its type: the bundle id.
    gone = history.add("Old sketch", bundle="org.example.Gone", device="Pocket", seconds_ago=2 * 3600 + 60,
                       activity_type="com.example.nobody.sketch")
    untitled = history.add("", content=["untitledword"])

    metas = history.metas("h999999", installed, "x1", gone, "h", "h-1", untitled, installed)
    assert [m["id"] for m in metas] == [installed, gone, untitled, installed], metas
    assert metas[0] == {"id": installed, "name": "Meeting notes", "description": f"E2E app · {DEVICE} · 5 min ago",
                        "gicon": "accessories-text-editor"}, metas[0]
    assert metas[1]["description"] == "org.example.Gone · Pocket · 2 h ago" and metas[1]["gicon"] == "handoff", metas
    # No title: the activity's type names it.
    assert metas[2]["name"] == TYPE, metas[2]
    assert history.metas() == []
    assert history.metas("h0", "h99999999999999999999999") == []


def test_the_app_is_named_by_its_desktop_entry_and_by_its_bundle_id_only_without_one(history, tmp_path):
    """GNOME Shell 43 showed "org.libhandoff.handoff · root's computer · just
    now": the app's name comes from a desktop entry whenever one is known,
    in GNOME's metas and KRunner's matches alike."""
    apps = history.desktop.data / "applications"
    # Named like the bundle id, declaring nothing for Handoff: its Name
    # (in the person's language) and Icon all the same.
    (apps / "org.example.Plain.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Plain Editor\nName[de]=Einfacher Editor\nIcon=text-editor\n"
        "Exec=/bin/true\n")
    # An app here continues the type of an entry whose own app is not
    # here (`handoff publish` sends as org.libhandoff.handoff): the app
    # that opens it.
    history.desktop.install("org.example.Opener", "org.example.Opener", [TYPE], tmp_path / "never.jsonl",
                            icon="accessories-text-editor")
    plain = history.add("Plain note", bundle="org.example.Plain", activity_type="com.example.plain.edit")
    published = history.add("Published note", bundle="org.libhandoff.handoff")
    lost = history.add("Lost note", bundle="org.example.Gone", activity_type="com.example.nobody.edit")

    metas = {m["id"]: m for m in history.metas(plain, published, lost)}
    assert metas[plain]["description"] == f"Plain Editor · {DEVICE} · 5 min ago", metas
    assert metas[plain]["gicon"] == "text-editor", metas
    assert metas[published]["description"] == f"E2E app · {DEVICE} · 5 min ago", metas
    assert metas[published]["gicon"] == "accessories-text-editor", metas
    assert metas[lost]["description"] == f"org.example.Gone · {DEVICE} · 5 min ago", metas
    assert metas[lost]["gicon"] == "handoff", metas
    matches = {m[0]: m for m in history.match("note")}
    assert set(matches) == {plain, published, lost}, matches
    assert matches[plain][2] == "text-editor" and matches[published][2] == "accessories-text-editor", matches
    assert {i: m[5]["subtext"]["data"] for i, m in matches.items()} == {
        i: metas[i]["description"] for i in metas}, matches


def test_the_desktop_entrys_name_is_in_the_persons_language(pair, ports, tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    (desktop.data / "applications" / "org.example.Plain.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Plain Editor\nName[de]=Einfacher Editor\nExec=/bin/true\n")
    history = History(pair[1], desktop, tmp_path, ports, language=lambda env: dict(env, LANGUAGE="de", LC_ALL="C.UTF-8"))
    history.serving()
    plain = history.add("Notiz", bundle="org.example.Plain", activity_type="com.example.plain.edit")
    assert history.metas(plain)[0]["description"].startswith("Einfacher Editor · "), history.metas(plain)


def test_hostile_text_is_stored_and_found_literally_and_never_errors(history):
    near = history.add('NEAR(alpha beta) "quoted" * AND OR NOT')
    sql = history.add("Robert'); DROP TABLE entries; -- bobby")
    huge = history.add("Hugeword " + "x" * 1000, content=["é" * 4000])

    assert history.search("NEAR(") == [near]
    assert history.search('"quoted"') == [near]
    assert history.search("AND") == [near]
    assert history.search("NOT", "OR") == [near]
    assert history.search("Robert');") == [sql]
    assert history.search("DROP", "TABLE") == [sql]
    assert history.search("hugeword") == [huge]
    for nothing in ['"', "*", "(", ")", "'", "-", "^", ":", "NEAR(", ""]:
        history.search(nothing)  # answers (busctl would fail otherwise); `NEAR(` finds by its word
    assert history.search('"', "*") == []
    assert history.search("y" * 100_000) == []
    many = history.search(*(["quoted"] * 5000))
    assert many == [near]

    meta = history.metas(huge)[0]
    assert meta["name"].startswith("Hugeword x") and len(meta["name"].encode()) <= 256, meta
    # The table is still there: everything is found again.
    assert history.search("bobby") == [sql]
    with closing(sqlite3.connect(history.db)) as db:
        assert db.execute("SELECT count(*) FROM entries").fetchone()[0] == 3
    assert len(history.search("e")) <= 20


def test_at_most_twenty_results_a_query(history):
    ids = [history.add(f"Pile {i}", seconds_ago=60 * i + 5) for i in range(30)]
    found = history.search("pile")
    assert len(found) == 20 and set(found) <= set(ids)
    assert len(history.metas(*ids)) == 30
    assert len(history.match("pile")) == 20


WRONG = [
    (f"{GNOME}.GetInitialResultSet", ["string:x"], "GetInitialResultSet takes (as)"),
    (f"{GNOME}.GetInitialResultSet", [], "GetInitialResultSet takes (as)"),
    (f"{GNOME}.GetSubsearchResultSet", ["array:string:h1"], "GetSubsearchResultSet takes (as, as)"),
    (f"{GNOME}.GetResultMetas", ["int32:1"], "GetResultMetas takes (as)"),
    (f"{GNOME}.ActivateResult", ["string:h1"], "ActivateResult takes (s, as, u)"),
    (f"{GNOME}.ActivateResult", ["string:h1", "array:string:", "int32:3"], "ActivateResult takes (s, as, u)"),
    (f"{GNOME}.LaunchSearch", ["array:string:x"], "LaunchSearch takes (as, u)"),
    (f"{KRUNNER}.Match", ["array:string:x"], "Match takes (s)"),
    (f"{KRUNNER}.Run", ["string:h1"], "Run takes (s, s)"),
    (f"{KRUNNER}.Actions", ["string:x"], "Actions takes ()"),
    ("org.freedesktop.DBus.Introspectable.Introspect", ["string:x"], "Introspect takes ()"),
]


def test_wrong_argument_types_answer_invalid_args_and_the_agent_answers_on(history):
    entry = history.add("Still here")
    for member, args, text in WRONG:
        code, out = history.send(member, *args)
        assert code != 0 and "org.freedesktop.DBus.Error.InvalidArgs" in out and text in out, (member, args, out)
    code, out = history.send(f"{GNOME}.NoSuchMethod")
    assert code != 0 and "UnknownMethod" in out, out
    assert history.search("still") == [entry]
    introspection = history.call("org.freedesktop.DBus.Introspectable", "Introspect")[0]
    assert f'<interface name="{GNOME}">' in introspection and f'<interface name="{KRUNNER}">' in introspection
    # LaunchSearch opens nothing, and unknown ids activate nothing.
    assert history.call(GNOME, "LaunchSearch", "asu", 1, "still", 0) == []
    assert history.call(GNOME, "ActivateResult", "sasu", "h424242", 0, 0) == []
    assert history.call(KRUNNER, "Run", "ss", "not-an-id", "") == []
    assert history.agent.proc.poll() is None


def test_krunner_matches_with_subtext_and_icon(history, tmp_path):
    history.desktop.install(BUNDLE, BUNDLE, [TYPE], tmp_path / "never.jsonl", icon="/opt/notes/icon.png")
    first = history.add("Garden layout", keywords=["roses"], seconds_ago=330)
    second = history.add("Garden budget", seconds_ago=4 * 86400, bundle="org.example.Gone",
                         activity_type="com.example.nobody.budget")

    assert history.call(KRUNNER, "Actions") == [[]]
    matches = history.match("garden")
    # The index's order (FTS5 rank, then newest), as GNOME gets it.
    assert [m[0] for m in matches] == history.search("garden") and {m[0] for m in matches} == {first, second}
    assert matches[0][4] > matches[1][4], matches
    layout = next(m for m in matches if m[0] == first)
    # (id, text, icon, type, relevance, properties); a path icon is no theme name: the generic one.
    assert layout[1] == "Garden layout" and layout[2] == "handoff" and layout[3] == 30 and 0.5 <= layout[4] <= 1
    assert layout[5] == {"subtext": {"type": "s", "data": f"E2E app · {DEVICE} · 5 min ago"}}, layout
    budget = next(m for m in matches if m[0] == second)
    assert budget[5]["subtext"]["data"] == f"org.example.Gone · {DEVICE} · 4 d ago", budget
    assert [m[0] for m in history.match("  roses  ")] == [first]
    assert history.match("") == [] and history.match('" * NEAR(') == []
    # GNOME shows the path itself.
    assert history.metas(first)[0]["gicon"] == "/opt/notes/icon.png"


@pytest.mark.parametrize("shell", ["gnome", "krunner"])
def test_activating_a_result_launches_the_app_which_restores_the_saved_activity(history, tmp_path, shell):
    app_log = tmp_path / "app.jsonl"
    history.desktop.install(BUNDLE, BUNDLE, [TYPE], app_log)
    entry = history.add("Chapter three", keywords=["novel"], user_info={"page": "217"})
    try:
        assert history.search("chapter") == [entry]
        if shell == "gnome":
            assert history.call(GNOME, "ActivateResult", "sasu", entry, 1, "chapter", 12345) == []
        else:
            assert history.call(KRUNNER, "Run", "ss", entry, "") == []
        assert app_event(app_log, "connected")["mode"] == "AGENT"
        app_event(app_log, "will_continue", type=TYPE)
        restored = app_event(app_log, "continue", type=TYPE)
        assert restored["title"] == "Chapter three" and restored["user_info"] == {"page": "217"}, restored
        assert len({e["pid"] for e in json_lines(app_log)}) == 1
        assert history.agent.proc.poll() is None
    finally:
        kill_apps(app_log)


# KRunner 6.17+ as it runs a match: SetActivationToken, then Run, on one
# connection; the token from another connection is not this Run's.
KRUNNER_RUN = """
import sys
from gi.repository import Gio, GLib
address, token_from_other, match_id = sys.argv[1], sys.argv[2] == "other", sys.argv[3]
def bus():
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
def call(connection, member, args):
    connection.call_sync("org.libhandoff.History", "/org/libhandoff/History", "org.kde.krunner1", member, args,
                         None, Gio.DBusCallFlags.NONE, 10000, None)
runner = bus()
call(bus() if token_from_other else runner, "SetActivationToken", GLib.Variant("(s)", ("krunner-token-6f1",)))
call(runner, "Run", GLib.Variant("(ss)", (match_id, "")))
"""


@pytest.mark.parametrize("giver", ["runner", "other"])
def test_krunners_activation_token_reaches_the_app_only_from_the_runs_own_connection(history, tmp_path, giver):
    app_log = tmp_path / "app.jsonl"
    history.desktop.install(BUNDLE, BUNDLE, [TYPE], app_log)
    entry = history.add("Chapter four", keywords=["novel"])
    try:
        introspection = history.call("org.freedesktop.DBus.Introspectable", "Introspect")[0]
        assert '<method name="SetActivationToken"><arg name="token" type="s" direction="in"/></method>' in introspection
        subprocess.run(["/usr/bin/python3", "-c", KRUNNER_RUN, history.desktop.address, giver, entry],
                       check=True, timeout=WAIT)
        connected = app_event(app_log, "connected")
        expected = "krunner-token-6f1" if giver == "runner" else None
        assert connected["activation_token"] == expected and connected["startup_id"] == expected, connected
        app_event(app_log, "continue", type=TYPE)
    finally:
        kill_apps(app_log)


def test_no_search_leaves_the_name_unowned(pair, ports, tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    history = History(pair[1], desktop, tmp_path, ports, "--no-search")
    history.add("Kept anyway")
    names = busctl(desktop.address, "list")[1]
    assert not any(e["name"] == NAME for e in names), names
    assert not any('"event":"search"' in line for line in history.agent.stderr), history.agent.stderr


HOSTILE = ["", "h1", "h2", "h0", "h-1", "h" + "9" * 30, "x", "NEAR(", '"', "*", "AND", "'; --", "ü" * 300,
           "x" * 5000, "\t", "quarterly", "Quart", "e"]


def _random_call(rng):
    """One call: half well-typed with hostile values, the rest a member of
    either interface (or none) with arguments of random types."""
    def strings():
        n = rng.randrange(0, 6)
        return [str(n)] + [rng.choice(HOSTILE) for _ in range(n)]
    if rng.randrange(2) == 0:
        return rng.choice([
            [GNOME, "GetInitialResultSet", "as", *strings()],
            [GNOME, "GetSubsearchResultSet", "asas", *strings(), *strings()],
            [GNOME, "GetResultMetas", "as", *strings()],
            [GNOME, "ActivateResult", "sasu", rng.choice(HOSTILE), *strings(), str(rng.choice([0, 1, 2**32 - 1]))],
            [GNOME, "LaunchSearch", "asu", *strings(), "0"],
            [KRUNNER, "Match", "s", rng.choice(HOSTILE)],
            [KRUNNER, "Run", "ss", rng.choice(HOSTILE), rng.choice(HOSTILE)],
            [KRUNNER, "Actions", ""],
        ])
    interface = rng.choice([GNOME, KRUNNER, "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable",
                            "org.example.Nope"])
    member = rng.choice(["GetInitialResultSet", "GetSubsearchResultSet", "GetResultMetas", "ActivateResult",
                         "LaunchSearch", "Match", "Run", "Actions", "Get", "GetAll", "Set", "Introspect", "Nope"])
    signature, args = "", []
    for _ in range(rng.randrange(0, 5)):
        kind = rng.choice("suias")
        if kind == "s":
            signature += "s"
            args.append(rng.choice(HOSTILE))
        elif kind == "u":
            signature += "u"
            args.append(str(rng.choice([0, 7, 2**32 - 1])))
        elif kind == "i":
            signature += "i"
            args.append(str(rng.choice([0, -1, 2**31 - 1])))
        elif kind == "a":
            signature += "as"
            args += strings()
        else:
            signature += "v"
            args += rng.choice([["s", "hi"], ["as", "1", "h1"]])
    return [interface, member, signature, *args]


def test_random_calls_never_take_the_agent_down(history):
    """Fuzz-ish: 300 calls of random members, types and hostile values
    (fixed seed), each answered; then a search still finds and the agent
    still runs."""
    import random
    history.add("Quarterly numbers", content=["NEAR( AND"])
    history.add("Éclair recipe", keywords=["quarterly"])
    rng = random.Random(26)
    outcomes = {"reply": 0, "refused": 0, "busctl": 0}
    for _ in range(300):
        ok, answer = busctl(history.desktop.address, "call", NAME, PATH, *_random_call(rng), check=False)
        kind = "reply" if ok else "refused" if "Call failed" in answer else "busctl"
        outcomes[kind] += 1
    assert outcomes["reply"] > 100 and outcomes["refused"] > 50, outcomes
    assert len(history.search("quarterly")) == 2
    assert history.agent.proc.poll() is None


def test_a_search_starts_the_agent_through_the_bus_service_file(pair, ports, tmp_path, procs):
    """dist/search/org.libhandoff.History.service as installed (its Exec
    naming the command; a bus without systemd ignores SystemdService): the
    first search starts the agent, which answers it and the next ones. The
    agent is the bus's child, not ours: killed by the pid the bus names."""
    import os
    import signal
    from cli_support import ROOT, TOOL
    b = pair[1]
    desktop = Desktop(tmp_path / "desktop", procs)
    db = tmp_path / "history" / "history.sqlite"
    socket_path = tmp_path / "run" / "agent.sock"
    env = dict(desktop.env(b.env, socket_path), HANDOFF_HISTORY_DB=str(db))
    keep = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS", "HANDOFF_HISTORY_DB", "LC_ALL",
            "DBUS_SESSION_BUS_ADDRESS", "HANDOFF_AGENT_SOCKET")
    command = (["/usr/bin/env", "-i", f"PATH={os.environ['PATH']}"] + [f"{k}={env[k]}" for k in keep]
               + [str(TOOL), "--json", "agent", "--socket", str(socket_path), *loopback(ports[1], ports[0])])
    template = (ROOT / "dist" / "search" / f"{NAME}.service").read_text()
    assert "SystemdService=handoff-agent.service\n" in template
    (desktop.services / f"{NAME}.service").write_text(
        "".join(f"Exec={' '.join(command)}\n" if line.startswith("Exec=") else line + "\n"
                for line in template.splitlines()))
    def owned():
        return busctl(desktop.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                      "NameHasOwner", "s", NAME)[1]["data"][0]
    assert not owned()
    history = History.__new__(History)
    history.db, history.desktop = db, desktop
    pid = None
    try:
        assert history.search("anything") == []  # started by the bus, and answered
        assert owned()
        pid = busctl(desktop.address, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                     "GetConnectionUnixProcessID", "s", NAME)[1]["data"][0]
        wait_for(history._ready, "the activated agent's history database")
        entry = history.add("Activated draft")
        assert history.search("activated") == [entry]
    finally:
        if pid:
            os.kill(pid, signal.SIGTERM)
            wait_for(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z",
                     "the activated agent stopped")
