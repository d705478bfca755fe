# SPDX-License-Identifier: MIT OR Apache-2.0
"""Focus on Wayland, inside a real GNOME Shell (Debian's 43, headless,
Tests/support/gnome_shell.py) with the extension enabled (docs/gnome-shell.md)
and B's real agent on its bus: a real GTK app (Tests/cli/gtk_handoff_app.py,
GTK 3 and GTK 4) adopts Handoff through the Python bindings, and the
window that has the keyboard focus is read from Mutter
(global.display.focus_window), polled with a bound.

- Not running: the person clicks the offer in the extension's menu (a real
  pointer click, through a virtual pointer of the shell's seat) while
  another app's window has the focus: the agent launches the GTK app under
  the shell with the shell's token in its environment, and its window gets
  the focus. (Mutter 43 also focuses a new window that came without a
  token, so here the token is checked to arrive, not to decide.)
- Already running, another window focused after it: a Continue without a
  token (Agent1.Continue with no platform data, as a front end without
  one sends it) makes the app present its window and Mutter keeps the
  focus where it was; the click in the menu continues it with the shell's
  token, the app hands it to GTK and the focus moves to it.
- The overview's search: the person types a word and clicks Handoff
  History's result; the extension continues it with the shell's token
  (GNOME's ActivateResult carries none) and the running app takes the focus.

One shell for the module (its start is most of the cost); each test has
its own devices and agent. Screenshots go to /work/screens when that
folder exists."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import gnome_shell
from agent_desktop import TEAM, Desktop, OwnedProcess, exec_quoted, json_lines, kill_apps, wait_for
from cli_support import loopback, pair_of_devices, publish
from test_agent_launch import agent_event
from test_gnome_shell_extension import CLOSE, INDICATOR, READ_MENU, install_extension, serves_agent1
from test_history_gnome_shell import PROVIDER, RESULTS, install_provider
from test_history_search import History

PYTHON = "/usr/bin/python3"  # the system's, with GObject introspection


def gtk_missing():
    """Why the GTK app cannot run here, or None."""
    why = gnome_shell.available()
    if why:
        return f"no GNOME Shell here: {why}"
    for version in ("3.0", "4.0"):
        probe = subprocess.run([PYTHON, "-c", f"import gi; gi.require_version('Gtk', '{version}')"],
                               capture_output=True, timeout=30)
        if probe.returncode != 0:
            return f"no GTK {version} for {PYTHON} (scripts/install-deps.sh installs gir1.2-gtk-{version})"
    return None


MISSING = gtk_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

APP = Path(__file__).with_name("gtk_handoff_app.py")
UUID = "handoff@libhandoff.org"
OTHER = "org.example.OtherWindow"


class Variant:
    """The GTK app of one GTK version: its desktop entry, its type, its log."""

    def __init__(self, gtk, root):
        self.gtk = gtk
        self.app_id = f"org.example.GtkFocus{gtk}"
        self.type = f"org.example.gtkfocus.gtk{gtk}"
        self.title = f"GTK {gtk} notes"
        self.log = root / f"gtk{gtk}.jsonl"

    def command(self):
        return [PYTHON, str(APP), "--log", str(self.log), "--gtk", self.gtk, "--app-id", self.app_id,
                "--title", self.title, "--bundle", self.app_id, "--team", TEAM, "--type", self.type]

    def events(self, name, pid=None):
        return [e for e in json_lines(self.log) if e["event"] == name and (pid is None or e["pid"] == pid)]

    def event(self, name, **fields):
        return wait_for(lambda: next((e for e in json_lines(self.log) if e["event"] == name
                                      and all(e.get(k) == v for k, v in fields.items())), None),
                        f"the GTK {self.gtk} app's {name} {fields}; its log: {json_lines(self.log)}")


def desktop_entry(folder, desktop_id, name, command, types=(), bundle=None):
    lines = ["[Desktop Entry]", "Type=Application", f"Name={name}",
             f"Exec={' '.join(map(exec_quoted, command))}", "StartupNotify=true"]
    if types:
        lines += [f"X-Handoff-ActivityTypes={';'.join(types)};", f"X-Handoff-TeamIdentifier={TEAM}",
                  f"X-Handoff-BundleIdentifier={bundle}"]
    (folder / f"{desktop_id}.desktop").write_text("\n".join(lines) + "\n")


class Bed:
    """The shell, the desktop on its bus, the apps' desktop entries."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        data = root / "desktop" / "data"
        (data / "applications").mkdir(parents=True)
        install_extension(data)
        search = root / "search-data"  # the history's search provider, as installed
        install_provider(search)
        # The entries before the shell starts: it knows the apps at once
        # (their names in the top bar, the windows matched to them).
        self.variants = {gtk: Variant(gtk, root) for gtk in ("3", "4")}
        for v in self.variants.values():
            desktop_entry(data / "applications", v.app_id, v.title, v.command(), [v.type], v.app_id)
        self.other_log = root / "other.jsonl"
        self.other_command = [PYTHON, str(APP), "--log", str(self.other_log), "--plain", "--app-id", OTHER,
                              "--title", "Another app"]
        desktop_entry(data / "applications", OTHER, "Another app", self.other_command)
        self.shell = gnome_shell.GnomeShell(root / "shell", servicedirs=[Desktop.services_folder(root / "desktop")],
                                            env={"XDG_DATA_HOME": str(data), "XDG_DATA_DIRS": f"{search}:/usr/share"})
        self.procs.append(self.shell)
        self.shell.enable_extensions([UUID])
        wait_for(lambda: self.shell.eval(f"imports.ui.main.extensionManager.lookup('{UUID}')?.state === 1"),
                 f"the shell enabled {UUID}: {self.shell.log_tail()}")
        self.desktop = Desktop(root / "desktop", self.procs, fake=False, bus=self.shell.bus)

    def fresh(self, gtk):
        """The app of this GTK version, with no process and no log left
        from an earlier test."""
        for log in (self.variants[gtk].log, self.other_log):
            kill_apps(log)
            log.unlink(missing_ok=True)
        return self.variants[gtk]

    def close(self):
        for log in [v.log for v in self.variants.values()] + [self.other_log]:
            kill_apps(log)
        for proc in reversed(self.procs):
            proc.kill()


@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    bed = Bed(tmp_path_factory.mktemp("focus"))
    try:
        yield bed
    finally:
        bed.close()


def start_agent(bed, device, tmp_path, ports):
    """B's agent on the shell's bus, in the session's Wayland display (the
    apps it launches are the shell's clients)."""
    socket_path = tmp_path / "run" / "agent.sock"
    env = bed.shell.wayland_env(bed.desktop.env(device.env, socket_path))
    agent = device.spawn("--json", "agent", "--socket", socket_path, *loopback(ports[1], ports[0]), env=env)
    agent.expect_stderr('"event":"listening"')
    agent_event(agent, "session-api", state="on")
    return agent, env


def start_app(command, env, procs):
    """An app the test starts itself (killed and reaped with the test)."""
    procs.append(OwnedProcess(subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))


def open_other_window(bed, procs):
    """Another app, opened from the shell (with the token its launch
    context makes), so its window has the focus now."""
    env = bed.shell.wayland_env()
    env["XDG_ACTIVATION_TOKEN"] = bed.shell.activation_token(f"{OTHER}.desktop")
    before = {e["pid"] for e in json_lines(bed.other_log)}
    start_app(bed.other_command, env, procs)
    mapped = wait_for(lambda: next((e for e in json_lines(bed.other_log)
                                    if e["event"] == "mapped" and e["pid"] not in before), None),
                      "the other window on screen")
    return focused_on(bed, mapped["pid"], "Another app")


def focused_on(bed, pid, title):
    """Mutter's focus window, once it is `pid`'s window titled `title`."""
    seen = []

    def look():
        seen[:] = [bed.shell.windows()]
        return next((w for w in seen[0] if w["focused"] and w["pid"] == pid and w["title"] == title), None)
    try:
        return wait_for(look, f"the focus on {title!r} (pid {pid})")
    except AssertionError as error:
        raise AssertionError(f"{error}; the windows: {seen}") from None


def window_of(bed, pid):
    return next((w for w in bed.shell.windows() if w["pid"] == pid), None)


# The offer's row in the Handoff menu (Quick Settings and the menu open).
ROW = "%s.offers._getMenuItems().find(i => i.titleLabel && i.titleLabel.text === %%s)" % INDICATOR


def click_offer(bed, title):
    """The person opens Quick Settings and the Handoff menu and clicks the
    offer's row with the pointer."""
    def clicked():
        menu = bed.shell.eval(READ_MENU)
        if not menu or not any(r["title"] == title and r["reactive"] for r in menu["offers"]):
            return False
        return bed.shell.click(ROW % json.dumps(title))
    wait_for(clicked, f"the offer {title!r} in the menu, clicked")


def screenshot(shell, name):
    """Into /work/screens when that folder exists (a person looks at it;
    not part of the assertions)."""
    folder = Path("/work/screens")
    if folder.is_dir() and shutil.which("gdbus"):
        shell.screenshot(folder / f"{name}.png")


@pytest.fixture
def devices(tmp_path, procs, ports, bed):
    a, b = pair_of_devices(tmp_path, procs)
    if not serves_agent1(b):
        pytest.skip("the agent under test does not serve org.libhandoff.Agent1")
    return a, b


@pytest.mark.parametrize("gtk", ["3", "4"])
def test_a_click_on_the_offer_launches_the_gtk_app_whose_window_gets_the_focus(
        bed, devices, ports, tmp_path, procs, gtk):
    a, b = devices
    app = bed.fresh(gtk)
    agent, _ = start_agent(bed, b, tmp_path, ports)
    open_other_window(bed, procs)
    title = f"Offer for GTK {gtk}"
    sender, published = publish(a, ports[0], ports[1], "--type", app.type, "--title", title)
    try:
        click_offer(bed, title)
        agent_event(agent, "chosen", surface="session-bus", token=True)
        started = app.event("started")
        assert started["activation_token"], started  # the shell's token, from the agent
        pid = started["pid"]
        app.event("continue", pid=pid, title=title)
        focused = focused_on(bed, pid, app.title)
        screenshot(bed.shell, f"gnome-shell-focus-launched-gtk{gtk}")
        assert focused["wmClass"] == app.app_id, focused
        sender.event("continued", id=published["id"])
    finally:
        kill_apps(app.log)
        kill_apps(bed.other_log)


@pytest.mark.parametrize("gtk", ["3", "4"])
def test_a_running_gtk_app_is_raised_with_the_shells_token_and_not_without(
        bed, devices, ports, tmp_path, procs, gtk):
    a, b = devices
    app = bed.fresh(gtk)
    agent, env = start_agent(bed, b, tmp_path, ports)
    # The app runs already (the person opened it earlier), then another
    # app's window opens over it and has the focus.
    start_app(app.command(), env, procs)
    try:
        pid = app.event("connected")["pid"]
        app.event("mapped", pid=pid)
        other = open_other_window(bed, procs)
        title = f"Draft for GTK {gtk}"
        sender, published = publish(a, ports[0], ports[1], "--type", app.type, "--title", title)
        wait_for(lambda: title in [r["title"] for r in (bed.shell.eval(READ_MENU) or {"offers": []})["offers"]],
                 "the offer in the menu")
        bed.shell.eval(CLOSE)

        # Without a token: the app presents its window (GTK asks Mutter
        # for a token of its own, with no input event behind it) and
        # Mutter refuses. "raised" comes after a round trip with the
        # compositor, so the request was handled by then.
        bed.shell.call("org.libhandoff.Agent", "/org/libhandoff/Agent", "org.libhandoff.Agent1.Continue",
                       published["id"], "@a{sv} {}")
        raised = app.event("raised", pid=pid)
        assert raised["activation_token"] is None, raised
        windows = bed.shell.windows()
        assert [w["pid"] for w in windows if w["focused"]] == [other["pid"]], windows
        screenshot(bed.shell, f"gnome-shell-focus-refused-gtk{gtk}")

        # With the shell's token from the person's click: the focus moves.
        click_offer(bed, title)
        agent_event(agent, "chosen", surface="session-bus", token=True)
        wait_for(lambda: any(e["activation_token"] for e in app.events("raised", pid)),
                 f"the app raised with a token; its log: {json_lines(app.log)}")
        focused = focused_on(bed, pid, app.title)
        screenshot(bed.shell, f"gnome-shell-focus-raised-gtk{gtk}")
        assert focused["wmClass"] == app.app_id, focused
        assert len(app.events("started")) == 1  # raised, not launched again
    finally:
        kill_apps(app.log)
        kill_apps(bed.other_log)


# The result's actor in the overview's search results.
RESULT = """(() => {
    const controls = imports.ui.main.overview._overview._controls;
    const provider = controls._searchController._searchResults._providers.find(p => p.id === %s);
    return provider?.display?._resultDisplays[%s];
})()"""


def test_a_search_result_raises_the_running_app_with_the_shells_token(bed, devices, ports, tmp_path, procs):
    _, b = devices
    app = bed.fresh("4")
    history = History(b, bed.desktop, tmp_path, ports, language=bed.shell.wayland_env)
    history.serving()
    entry = history.add("Grocery list", keywords=["errands"], bundle=app.app_id, activity_type=app.type)
    env = bed.shell.wayland_env(bed.desktop.env(b.env, tmp_path / "run" / "agent.sock"))
    start_app(app.command(), env, procs)
    try:
        pid = app.event("connected")["pid"]
        app.event("mapped", pid=pid)
        open_other_window(bed, procs)
        # The person types a word in the overview and clicks the result.
        bed.shell.search("errands")
        wait_for(lambda: bed.shell.eval(RESULTS % json.dumps(PROVIDER)), "the entry in the overview")
        wait_for(lambda: bed.shell.click(RESULT % (json.dumps(PROVIDER), json.dumps(entry))), "the result clicked")
        continued = app.event("continue", pid=pid, title="Grocery list")
        # The extension continued it with the shell's token (GNOME's
        # ActivateResult carries a timestamp only).
        assert continued["activation_token"], continued
        focused = focused_on(bed, pid, app.title)
        assert focused["wmClass"] == app.app_id, focused
        wait_for(lambda: bed.shell.eval("imports.ui.main.overview.visible") is False, "the overview closed")
        screenshot(bed.shell, "gnome-shell-focus-search")
    finally:
        kill_apps(app.log)
