# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent inside a real KDE Plasma 5.27 (Debian's kwin_wayland
headless, kded5, plasmashell: Tests/support/plasma.py), driven as a
person drives it: a pointer and keys through KWin's fake input
(Tests/support/kwin_input.py), what Plasma sent read off the bus
(bus_calls.py), screenshots of what it showed.

- The tray: kded5's StatusNotifierWatcher lists the agent's item,
  plasmashell reads it and draws it in the panel. A left click: Plasma
  hands the item a token from KWin (ProvideXdgActivationToken) and
  calls Activate; the newest offer is continued and the launched app
  holds that token. A right click: Plasma shows the item's own menu;
  the offer picked there is continued with the token of that click.
- Plasma's notification server shows the offer; its Continue button
  makes Plasma send ActivationToken then ActionInvoked("continue"): the
  app holds that token.
- KRunner (Plasma's own, activated on the bus, the runner installed as
  `make install` installs it) asks the agent's runner for a word, shows
  the history entry, and Enter runs it: the app restores the activity.
  KRunner 5.27 gives a D-Bus runner no token (krunner1 has no way to),
  so that app has none.
- A real Wayland app (GTK 3, wayland_window.py) continued from the tray
  is started holding the token Plasma gave and its window gets the
  focus. (KWin 5.27 here also focuses a new window started without a
  token, whatever its focus-stealing prevention level: the focus shows
  the path works end to end, the token is what Plasma's click gave.)

Each test starts its own Plasma (about 8 s here) and ends it with all it
started. Skipped without Plasma (scripts/install-deps.sh installs it)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import kwin_input
import plasma
from agent_desktop import TEAM, Desktop, json_lines, kill_apps, wait_for
from bus_calls import BusCalls
from cli_support import loopback, publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event
from test_history_search import BUNDLE, TYPE as HISTORY_TYPE, History

pytestmark = pytest.mark.skipif(plasma.available() is not None,
                                reason=f"no KDE Plasma here: {plasma.available()}")

ROOT = Path(__file__).resolve().parents[2]
WINDOW = Path(__file__).resolve().parent / "wayland_window.py"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
NOTIFICATIONS = "org.freedesktop.Notifications"
BTN_RIGHT = 0x111
# Right of this, the panel holds the clock and "show desktop", which may
# change by themselves; the tray's items are left of it.
CLOCK_SPAN = 200


class Session:
    """Plasma, the stand-in desktop on its bus (the apps' .desktop files),
    and what went over that bus."""

    def __init__(self, tmp_path, procs):
        root = tmp_path / "desktop"
        self.plasma = plasma.Plasma(tmp_path / "plasma", servicedirs=[Desktop.services_folder(root)])
        procs.append(self.plasma)
        self.desktop = Desktop(root, procs, fake=False, bus=self.plasma.bus)
        self.bus = BusCalls(self.plasma.bus.address, procs, tmp_path / "bus.log")
        self.width, self.height = self.plasma.size

    def from_plasmashell(self, kind, interface, member):
        """Each such call or signal that plasmashell sent."""
        shell = self.plasma.unique_name("org.kde.plasmashell")
        return [h for h in self.bus.heard(kind, interface, member) if h["sender"] == shell]

    def changed(self, before, box, what):
        """Where the screen inside `box` differs from `before`, once two
        screenshots in a row agree (what Plasma draws is drawn whole)."""
        last = [None]

        def settled():
            now = self.plasma.look().changed(before, box)
            agreed = now is not None and now == last[0]
            last[0] = now
            return now if agreed else None
        return wait_for(settled, what)

    def tray_icon(self, before):
        """Where the tray draws the agent's icon: the leftmost pixels of
        the panel's tray that changed since `before` (Plasma puts
        ApplicationStatus items first)."""
        box = (self.width // 2, self.height - plasma.PANEL + 4, self.width - CLOCK_SPAN, self.height - 4)
        return self.changed(before, box, "the tray drew the agent's icon")[0] + 10, self.height - plasma.PANEL // 2


def token_of(call):
    """The string a ProvideXdgActivationToken or ActivationToken carried."""
    return next(a.split(" ", 1)[1].strip('"') for a in call["args"] if a.startswith("string "))


def connected(app_log, count):
    return wait_for(lambda: [e for e in json_lines(app_log) if e["event"] == "connected"][count - 1:],
                    f"the app connected {count} time(s)")[0]


def test_plasmas_tray_shows_the_item_and_its_clicks_continue_offers_with_kwins_token(pair, ports, tmp_path, procs):
    a, b = pair
    session = Session(tmp_path, procs)
    app_log = tmp_path / "app.jsonl"
    session.desktop.install("org.example.Plasma", "org.example.Plasma", [TYPE], app_log)
    try:
        before = session.plasma.look()
        agent = start_agent(b, session.desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
        name = f"{ITEM}-{agent.proc.pid}-1"
        assert wait_for(lambda: session.plasma.watcher_property("RegisteredStatusNotifierItems"),
                        "an item in the watcher") == [f"{name}/StatusNotifierItem"]
        wait_for(lambda: [c for c in session.from_plasmashell("method call", "org.freedesktop.DBus.Properties", "GetAll")
                          if c["destination"] == name], "plasmashell read the item")
        icon = session.tray_icon(before)
        screenshot(session.plasma, "plasma-tray")

        # A left click: the newest offer, with the token KWin gave Plasma.
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Left click")
        agent_event(agent, "tray", offers=1)
        pointer = session.plasma.input()
        pointer.click(*icon)
        provided = wait_for(lambda: session.from_plasmashell("method call", ITEM, "ProvideXdgActivationToken"),
                            "Plasma provided a token")
        assert session.from_plasmashell("method call", ITEM, "Activate"), session.bus.heard("method call", ITEM, "")
        token = token_of(provided[0])
        assert token.startswith("kwin-"), f"KWin refused Plasma a token: {token}"
        assert agent_event(agent, "chosen", surface="tray")["token"] is True
        first = connected(app_log, 1)
        assert first["activation_token"] == token and first["startup_id"] == token, first
        assert app_event(app_log, "continue", type=TYPE)["title"] == "Left click"
        sender.event("continued", id=published["id"])
        sender.kill()
        kill_apps(app_log)
        agent_event(agent, "closed", reason="peer")

        # A right click: Plasma shows the item's menu; Down picks the
        # offer (the first item that can be chosen), Return chooses it.
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "From the menu")
        wait_for(lambda: [e for e in map(_event, agent.stderr) if e.get("event") == "tray" and e.get("offers") == 1][1:],
                 "the tray told of the second offer")
        pointer.click(*icon, button=BTN_RIGHT)
        wait_for(lambda: any('string "opened"' in e["args"]
                             for e in session.from_plasmashell("method call", MENU, "Event")), "the menu opened")
        screenshot(session.plasma, "plasma-tray-menu")
        pointer.key(kwin_input.KEY_DOWN)
        pointer.key(kwin_input.KEY_ENTER)
        clicked = wait_for(lambda: [e for e in session.from_plasmashell("method call", MENU, "Event")
                                    if 'string "clicked"' in e["args"]], "Plasma clicked a menu item")
        assert len(clicked) == 1, clicked
        provided = session.from_plasmashell("method call", ITEM, "ProvideXdgActivationToken")
        assert len(provided) == 2 and token_of(provided[1]).startswith("kwin-"), provided
        second = connected(app_log, 2)
        assert second["activation_token"] == token_of(provided[1]) != token, second
        assert app_event(app_log, "continue", type=TYPE, title="From the menu")
        sender.event("continued", id=published["id"])
        chosen = [e["token"] for e in map(_event, agent.stderr) if e.get("event") == "chosen"]
        assert chosen == [True, True], chosen
    finally:
        kill_apps(app_log)


def test_plasmas_notification_shows_the_offer_and_its_continue_button_hands_over_plasmas_token(
        pair, ports, tmp_path, procs):
    a, b = pair
    session = Session(tmp_path, procs)
    app_log = tmp_path / "app.jsonl"
    session.desktop.install("org.example.Plasma", "org.example.Plasma", [TYPE], app_log)
    try:
        agent = start_agent(b, session.desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
        agent_event(agent, "notifications", available=True)
        before = session.plasma.look()
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Shopping list")
        notify = wait_for(lambda: session.bus.strings("method call", NOTIFICATIONS, "Notify"), "the agent notified")
        assert notify[0][:4] == ["Handoff", "handoff", "Shopping list", "Continue in E2E app · from Device A"], notify
        # The popup: what changed above the panel (the button at its
        # bottom right, inside Plasma's shadow).
        left, top, right, bottom = session.changed(
            before, (0, 0, session.width - 1, session.height - plasma.PANEL - 2), "Plasma's popup")
        screenshot(session.plasma, "plasma-notification")
        session.plasma.input().click(right - 48, bottom - 27)

        invoked = wait_for(lambda: session.from_plasmashell("signal", NOTIFICATIONS, "ActionInvoked"),
                           "Plasma invoked an action")
        assert [token_of(i) for i in invoked] == ["continue"], invoked
        tokens = session.from_plasmashell("signal", NOTIFICATIONS, "ActivationToken")
        assert len(tokens) == 1 and token_of(tokens[0]).startswith("kwin-"), tokens
        assert agent_event(agent, "chosen")["token"] is True
        app = connected(app_log, 1)
        assert app["activation_token"] == token_of(tokens[0]), app
        assert app_event(app_log, "continue", type=TYPE)["title"] == "Shopping list"
        sender.event("continued", id=published["id"])
    finally:
        kill_apps(app_log)


def test_a_wayland_app_continued_from_plasmas_tray_holds_the_token_and_gets_the_focus(pair, ports, tmp_path, procs):
    a, b = pair
    session = Session(tmp_path, procs)
    windows = tmp_path / "windows.jsonl"
    (session.desktop.data / "applications" / "org.example.Window.desktop").write_text(
        f"[Desktop Entry]\nType=Application\nName=Window app\nExec=/usr/bin/python3 {WINDOW} {windows} Continued\n"
        f"X-Handoff-ActivityTypes={TYPE};\nX-Handoff-TeamIdentifier={TEAM}\n"
        "X-Handoff-BundleIdentifier=org.example.Window\n")
    socket_path = tmp_path / "run" / "agent.sock"
    # As in a session: the agent knows the Wayland display its apps use.
    env = dict(session.desktop.env(b.env, socket_path), WAYLAND_DISPLAY=session.plasma.env["WAYLAND_DISPLAY"],
               XDG_RUNTIME_DIR=session.plasma.env["XDG_RUNTIME_DIR"])
    try:
        before = session.plasma.look()
        agent = b.spawn("--json", "agent", "--socket", socket_path, *loopback(ports[1], ports[0]), env=env)
        agent.expect_stderr('"event":"listening"')
        icon = session.tray_icon(before)
        sender, _ = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Focus")
        agent_event(agent, "tray", offers=1)
        session.plasma.input().click(*icon)
        provided = wait_for(lambda: session.from_plasmashell("method call", ITEM, "ProvideXdgActivationToken"),
                            "Plasma provided a token")
        shown = wait_for(lambda: [e for e in json_lines(windows) if e["event"] == "shown"], "the window app started")
        assert [e["token"] for e in shown] == [token_of(provided[0])], shown
        wait_for(lambda: any(e["event"] == "active" and e["value"] for e in json_lines(windows)),
                 "the continued app's window has the focus")
        screenshot(session.plasma, "plasma-continued-window")
        sender.kill()
    finally:
        kill_apps(windows)


def test_krunner_finds_the_history_entry_and_enter_continues_it(pair, ports, tmp_path, procs):
    session = Session(tmp_path, procs)
    plugins = session.plasma.home / ".local/share/krunner/dbusplugins"
    plugins.mkdir(parents=True)
    # Where `make install` puts it (share/krunner/dbusplugins).
    shutil.copy(ROOT / "dist/search/org.libhandoff.History.krunner.desktop", plugins / "org.libhandoff.History.desktop")
    app_log = tmp_path / "app.jsonl"
    session.desktop.install(BUNDLE, BUNDLE, [HISTORY_TYPE], app_log)
    history = History(pair[1], session.desktop, tmp_path, ports)
    history.serving()
    entry = history.add("Chapter three", keywords=["novel"], user_info={"page": "217"})
    history.add("Grocery list", keywords=["errands"])
    try:
        before = session.plasma.look()
        # What Alt+Space and typing do: KRunner's own D-Bus call.
        subprocess.run(["gdbus", "call", "--session", "-d", "org.kde.krunner", "-o", "/App",
                        "-m", "org.kde.krunner.App.query", "novel"], env=session.plasma.env, check=True,
                       capture_output=True, timeout=plasma.CALL_WAIT)
        krunner = wait_for(lambda: session.plasma.unique_name("org.kde.krunner"), "KRunner on the bus")
        wait_for(lambda: [c for c in session.bus.heard("method call", "org.kde.krunner1", "Match")
                          if c["sender"] == krunner and c["args"] == ['string "novel"']], "KRunner asked the agent")
        session.changed(before, (0, 0, session.width - 1, 120), "KRunner's window with its results")
        screenshot(session.plasma, "plasma-krunner")
        session.plasma.input().key(kwin_input.KEY_ENTER)
        runs = wait_for(lambda: session.bus.heard("method call", "org.kde.krunner1", "Run"), "KRunner ran a match")
        assert [(r["sender"], r["args"]) for r in runs] == [(krunner, [f'string "{entry}"', 'string ""'])], runs
        restored = app_event(app_log, "continue", type=HISTORY_TYPE)
        assert restored["title"] == "Chapter three" and restored["user_info"] == {"page": "217"}, restored
        assert connected(app_log, 1)["activation_token"] is None
    finally:
        kill_apps(app_log)


def _event(line):
    return json.loads(line) if line.startswith("{") else {}


def screenshot(shell, name):
    """Into /work/screens when that folder exists (a person looks at it;
    not part of the assertions)."""
    folder = Path("/work/screens")
    if folder.is_dir():
        shell.screenshot(folder / f"{name}.png")
