# SPDX-License-Identifier: MIT OR Apache-2.0
"""The GNOME Shell extension (dist/gnome-shell/handoff@libhandoff.org,
docs/gnome-shell.md) inside a real GNOME Shell (Debian's 43, headless
Wayland, Tests/support/gnome_shell.py), built by mk/gnome-shell.sh in the
variant this shell loads, installed into the shell's data home and
enabled through its settings. Driven from inside the shell with Eval: the
Quick Settings menu opened, its rows read, one clicked.

- With the real agent on the shell's bus (device A offers an activity to
  B): the toggle "Handoff" is on, the top-bar icon shows, the menu lists
  the offer (title; app and device) and a click continues it with the
  shell's activation token: the app is launched, gets the token and
  restores what A published. Skipped while the agent under test does not
  serve org.libhandoff.Agent1 (docs/agent.md §15).
- With Tests/cli/agent1_standin.js serving Agent1 (chosen properties):
  devices, recent entries, Pause/Resume from the toggle, the icon hidden
  while paused or when nothing can be continued, the token the click sends.

- Without a shell: both built variants load in gjs's own module system
  (legacy `imports`, ES modules) and their shared modules give the same
  rows; the ES entry point parses (node --check, where node is).

Screenshots go to /work/screens when that folder exists. The shell tests
are skipped without gnome-shell (scripts/install-deps.sh installs it)."""

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import gnome_shell
from agent_desktop import Desktop, json_lines, kill_apps, wait_for
from cli_support import ROOT, Process, publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event

IN_SHELL = pytest.mark.skipif(gnome_shell.available() is not None,
                              reason=f"no GNOME Shell here: {gnome_shell.available()}")

UUID = "handoff@libhandoff.org"
BUILD = ROOT / "mk" / "gnome-shell.sh"
STANDIN = Path(__file__).with_name("agent1_standin.js")
AGENT1_XML = Path(__file__).resolve().parents[2] / "dist" / "dbus" / "org.libhandoff.Agent1.xml"
APP_ID = "org.example.Shell"
TITLE = "Shopping list for Saturday"

# The extension's indicator, through the shell's extension manager (the
# object the entry point's init()/default class made).
INDICATOR = "imports.ui.main.extensionManager.lookup('%s')?.stateObj?._indicator" % UUID

# What the person sees with Quick Settings and the Handoff menu open.
READ_MENU = """(() => {
    const indicator = %s;
    if (!indicator) return null;
    imports.ui.main.panel.statusArea.quickSettings.menu.open(false);
    indicator.toggle.menu.open(false);
    const rows = section => section._getMenuItems().filter(i => i.titleLabel).map(i => ({
        title: i.titleLabel.text, detail: i.detailLabel.visible ? i.detailLabel.text : '', reactive: i.reactive}));
    return {checked: indicator.toggle.checked, subtitle: indicator.toggle.menu._headerSubtitle.text,
            toggle: indicator.toggle.label_actor.text, icon: indicator._indicator.is_mapped(),
            offers: rows(indicator.offers), devices: rows(indicator.devices.menu),
            devicesLabel: indicator.devices.label.text, recentShown: indicator.recent.visible,
            recent: rows(indicator.recent.menu),
            pairing: indicator.pairing._getMenuItems().map(i => (i.titleLabel || i.label).text)};
})()""" % INDICATOR

CLICK_OFFER = """(() => {
    const item = %s.offers._getMenuItems().find(i => i.titleLabel && i.titleLabel.text === %%s);
    if (!item) return false;
    item.activate(null);
    return true;
})()""" % INDICATOR

CLICK_PAIRING = """(() => {
    const item = %s.pairing._getMenuItems().find(i => (i.titleLabel || i.label).text === %%s);
    if (!item) return false;
    item.activate(null);
    return true;
})()""" % INDICATOR

TOGGLE = "(() => { %s.toggle.emit('clicked', 1); return true; })()" % INDICATOR
QUICK_SETTINGS_OPEN = "imports.ui.main.panel.statusArea.quickSettings.menu.isOpen"
CLOSE = "imports.ui.main.panel.closeQuickSettings(); true"
# How many Handoff toggles Quick Settings holds.
TOGGLES = ("imports.ui.main.panel.statusArea.quickSettings.menu._grid.get_children()"
           ".filter(c => c.constructor.name === 'HandoffToggle').length")


def install_extension(data_home):
    """The variant this gnome-shell loads, into `data_home`/gnome-shell/extensions."""
    variant = subprocess.run(["sh", str(BUILD), "variant"], capture_output=True, text=True, check=True,
                             timeout=30).stdout.strip()
    assert variant == "legacy", f"GNOME Shell 43 loads the legacy variant, not {variant!r}"
    subprocess.run(["sh", str(BUILD), "build", variant, str(data_home / "gnome-shell/extensions"), "test"],
                   check=True, timeout=30)


def start_shell(tmp_path, root):
    """A GNOME Shell whose data home is the test desktop's (its desktop
    entries and our extension), with the extension enabled."""
    data = root / "data"
    install_extension(data)
    shell = gnome_shell.GnomeShell(tmp_path / "shell", servicedirs=[Desktop.services_folder(root)],
                                   env={"XDG_DATA_HOME": str(data)})
    shell.enable_extensions([UUID])
    wait_for(lambda: shell.eval(f"imports.ui.main.extensionManager.lookup('{UUID}')?.state === 1"),
             f"the shell enabled {UUID}: {shell.log_tail()}")
    return shell


def menu(shell, probe, what):
    """The menu as read with it open, once `probe(menu)` holds (bounded)."""
    seen = []

    def look():
        seen[:] = [shell.eval(READ_MENU)]
        return seen[0] if seen[0] and probe(seen[0]) else None
    return wait_for(look, f"{what}; the menu: {seen}")


def screenshot(shell, name):
    """Into /work/screens when that folder exists (a person looks at it;
    not part of the assertions)."""
    folder = Path("/work/screens")
    if folder.is_dir():
        time.sleep(0.5)  # the menus' opening animation, for the picture only
        shell.screenshot(folder / f"{name}.png")


def serves_agent1(device):
    """Whether the agent under test has the session-bus API (its option
    to turn it off is in its usage)."""
    usage = device.run("agent", "--help")
    return "--no-bus-api" in usage.out + usage.err


@IN_SHELL
def test_the_real_agents_offer_is_in_the_menu_and_a_click_continues_it_with_the_shells_token(
        pair, ports, tmp_path, procs):
    a, b = pair
    if not serves_agent1(b):
        pytest.skip("the agent under test does not serve org.libhandoff.Agent1 (no --no-bus-api)")
    root = tmp_path / "desktop"
    (root / "data").mkdir(parents=True)
    shell = start_shell(tmp_path, root)
    procs.append(shell)
    desktop = Desktop(root, procs, fake=False, bus=shell.bus)
    app_log = tmp_path / "app.jsonl"
    desktop.install(APP_ID, APP_ID, [TYPE], app_log)
    try:
        agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
        agent_event(agent, "session-api", state="on")
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", TITLE)

        shown = menu(shell, lambda m: any(r["title"] == TITLE for r in m["offers"]), "the offer in the menu")
        screenshot(shell, "gnome-shell-extension-agent-menu")
        offer = next(r for r in shown["offers"] if r["title"] == TITLE)
        assert offer["detail"] == "E2E app · from Device A" and offer["reactive"], shown
        assert shown["checked"] and shown["icon"] and shown["subtitle"] == "1 to continue", shown
        assert shown["devicesLabel"] == "Devices (1 online)", shown

        assert shell.eval(CLICK_OFFER % json.dumps(TITLE)) is True
        agent_event(agent, "chosen", surface="session-bus", token=True)
        connected = app_event(app_log, "connected")
        assert connected["activation_token"], connected  # the shell's own token
        done = app_event(app_log, "continue", type=TYPE)
        assert done["title"] == TITLE, done
        sender.event("continued", id=published["id"])
        assert shell.eval(QUICK_SETTINGS_OPEN) is False

        # Pair a New Device…: the agent's Pairing1 object waits for a new
        # device; Cancel ends it (Finished) and the item is back.
        assert shell.eval(CLICK_PAIRING % json.dumps("Pair a New Device…")) is True
        agent_event(agent, "pair-requested")
        waiting = menu(shell, lambda m: "Cancel Pairing" in m["pairing"], "the pairing waiting")
        screenshot(shell, "gnome-shell-extension-agent-pairing")
        assert waiting["pairing"] == ["Waiting for a new device", "Cancel Pairing"], waiting
        assert shell.eval(CLICK_PAIRING % json.dumps("Cancel Pairing")) is True
        menu(shell, lambda m: m["pairing"] == ["Pair a New Device…"], "the pairing cancelled")
        shell.eval(CLOSE)
    finally:
        kill_apps(app_log)


MINUTE = 60_000


def standin_state(offers, paused=False):
    now = int(time.time() * 1000)
    return {
        "State": "paused" if paused else "running",
        "Offers": offers,
        "Devices": [
            {"id": "a" * 32, "name": "Ada's laptop", "online": True, "last-seen": now, "revision": 4,
             "offer": True, "accept": True, "history": True},
            {"id": "b" * 32, "name": "Old phone", "online": False, "last-seen": now - 5 * MINUTE,
             "offer": True, "accept": True, "history": True},
        ],
        "Recent": [{"id": "7", "title": "Budget 2027", "app-id": APP_ID, "app-name": "E2E app", "icon": "",
                    "device-name": "Ada's laptop", "when": now - 30 * MINUTE}],
    }


OFFER = {"id": "6f1c2d9e-0b7a-4c55-9d3e-2a1f0e8b7c61", "title": TITLE, "type": TYPE, "app-id": APP_ID,
         "app-name": "E2E app", "icon": "", "device-id": "a" * 32, "device-name": "Ada's laptop",
         "received": 0}


class StandIn:
    """agent1_standin.js on the shell's bus, its properties in a file."""

    def __init__(self, folder, env, procs):
        self.state = folder / "agent1.json"
        self.log = folder / "agent1.jsonl"
        self.env = env
        self.set(standin_state([OFFER]), reload=False)
        self.proc = Process(["gjs", str(STANDIN), str(self.state), str(self.log), str(AGENT1_XML)], env)
        procs.append(self.proc)
        self.proc.expect_line("ready")

    def set(self, state, reload=True):
        self.state.write_text(json.dumps(state))
        if reload:
            subprocess.run(["gdbus", "call", "--session", "-d", "org.libhandoff.Agent", "-o", "/org/libhandoff/Agent",
                            "-m", "org.libhandoff.Test.Reload"], env=self.env, check=True, timeout=30,
                           capture_output=True)

    def calls(self, method):
        return [c for c in json_lines(self.log) if c["method"] == method]


@IN_SHELL
def test_the_menu_shows_devices_recent_and_pause_over_a_stand_in_of_agent1(tmp_path, procs):
    root = tmp_path / "desktop"
    (root / "data").mkdir(parents=True)
    shell = start_shell(tmp_path, root)
    procs.append(shell)
    desktop = Desktop(root, procs, fake=False, bus=shell.bus)
    desktop.install(APP_ID, APP_ID, [TYPE], None)

    # No agent yet: the toggle says so and no icon shows.
    none = menu(shell, lambda m: m["subtitle"] == "Agent not running", "no agent")
    assert not none["checked"] and not none["icon"], none
    assert [r["title"] for r in none["offers"]] == ["Nothing to continue"], none
    shell.eval(CLOSE)

    standin = StandIn(tmp_path, shell.env, procs)
    shown = menu(shell, lambda m: m["subtitle"] == "1 to continue", "the stand-in's offer")
    screenshot(shell, "gnome-shell-extension-menu")
    assert shown["checked"] and shown["icon"] and shown["toggle"] == "Handoff", shown
    assert shown["offers"] == [{"title": TITLE, "detail": "E2E app · from Ada's laptop", "reactive": True}], shown
    assert shown["devicesLabel"] == "Devices (1 online)", shown
    assert [(r["title"], r["detail"]) for r in shown["devices"]] == [
        ("Ada's laptop", "online"), ("Old phone", "offline, last seen 5 min ago")], shown
    assert shown["recentShown"] and [(r["title"], r["detail"]) for r in shown["recent"]] == [
        ("Budget 2027", "E2E app · from Ada's laptop")], shown
    assert shown["pairing"] == ["Pair a New Device…"], shown
    shell.eval(f"{INDICATOR}.devices.setSubmenuShown(true); true")
    screenshot(shell, "gnome-shell-extension-devices")
    shell.eval(f"{INDICATOR}.recent.setSubmenuShown(true); true")
    screenshot(shell, "gnome-shell-extension-recent")

    shell.eval(CLOSE)
    screenshot(shell, "gnome-shell-extension-topbar")

    # A click continues the offer with the shell's activation token and
    # closes Quick Settings.
    shell.eval(READ_MENU)
    assert shell.eval(CLICK_OFFER % json.dumps(TITLE)) is True
    call = wait_for(lambda: standin.calls("Continue"), "Continue called")[0]
    offer_id, platform_data = call["args"]
    assert offer_id == OFFER["id"], call
    assert isinstance(platform_data.get("activation-token"), str) and platform_data["activation-token"], call
    assert shell.eval(QUICK_SETTINGS_OPEN) is False

    # The toggle pauses: unchecked, "Paused", the offer not clickable and
    # the top-bar icon gone; again, it resumes.
    assert shell.eval(TOGGLE) is True
    wait_for(lambda: standin.calls("Pause"), "Pause called")
    paused = menu(shell, lambda m: m["subtitle"] == "Paused", "paused")
    screenshot(shell, "gnome-shell-extension-paused")
    assert not paused["checked"] and not paused["icon"] and not paused["offers"][0]["reactive"], paused
    assert shell.eval(TOGGLE) is True
    wait_for(lambda: standin.calls("Resume"), "Resume called")
    menu(shell, lambda m: m["checked"] and m["icon"], "resumed")
    shell.eval(CLOSE)

    # The offer goes: the icon goes with it (PropertiesChanged, no polling).
    standin.set(standin_state([]))
    gone = menu(shell, lambda m: m["subtitle"] == "Nothing to continue", "no offer")
    assert not gone["icon"] and [r["title"] for r in gone["offers"]] == ["Nothing to continue"], gone
    shell.eval(CLOSE)

    # Disabled, nothing of it stays in Quick Settings; enabled again, it
    # is back with the agent's state; a signal in between reaches nothing.
    shell.eval(f"imports.ui.main.extensionManager.disableExtension('{UUID}'); true")
    assert shell.eval(TOGGLES) == 0
    standin.set(standin_state([OFFER]))
    shell.eval(f"imports.ui.main.extensionManager.enableExtension('{UUID}'); true")
    assert shell.eval(TOGGLES) == 1
    menu(shell, lambda m: m["subtitle"] == "1 to continue" and m["icon"], "the offer after enabling again")
    shell.eval(CLOSE)
    # The shell's log names the extension's folder in any error of its code.
    errors = [line for line in shell.log_path.read_text(errors="replace").splitlines() if UUID in line]
    assert not errors, errors


# The shared model in each module system: the same rows from the same properties.
MODEL_CALLS = """JSON.stringify([
    model.offerRows([{id: 'x', title: '', type: 'org.example.note', 'app-name': '', 'web-page': 'https://e.org',
                      'device-name': 'Ada'}]),
    model.deviceRows([{id: 'b', name: 'Bo', online: false, 'last-seen': 0},
                      {id: 'a', name: 'Al', online: true}], 0),
    model.lastSeenText({online: false, 'last-seen': 1}, 1 + 3 * 3600000),
    model.toggleText('paused', 2), model.toggleText(null, 0), model.indicatorVisible('running', 1)])"""
EXPECTED = [
    [{"id": "x", "title": "org.example.note", "detail": "web page · from Ada", "appId": "", "icon": "",
      "webPage": "https://e.org"}],
    [{"id": "a", "title": "Al", "detail": "online", "online": True},
     {"id": "b", "title": "Bo", "detail": "offline", "online": False}],
    "offline, last seen 3 h ago",
    {"checked": False, "sensitive": True, "subtitle": "Paused"},
    {"checked": False, "sensitive": False, "subtitle": "Agent not running"},
    True,
]


@pytest.mark.skipif(shutil.which("gjs") is None, reason="no gjs (scripts/install-deps.sh installs gnome-shell)")
def test_both_variants_load_in_their_module_systems_and_agree(tmp_path):
    for variant in ("legacy", "esm"):
        subprocess.run(["sh", str(BUILD), "build", variant, str(tmp_path / variant), "test"], check=True, timeout=30)
    legacy = tmp_path / "legacy" / UUID
    esm = tmp_path / "esm" / UUID
    assert json.loads((legacy / "metadata.json").read_text())["shell-version"] == ["43", "44"]
    assert json.loads((esm / "metadata.json").read_text())["shell-version"] == ["45", "46", "47"]

    by_imports = subprocess.run(
        ["gjs", "-c", f"imports.searchPath.unshift({json.dumps(str(legacy))});"
                      "const model = imports.model;"
                      "if (typeof imports.client.AgentClient !== 'function') throw new Error('no AgentClient');"
                      "if (typeof imports.indicator.defineIndicator !== 'function') throw new Error('no define');"
                      f"print({MODEL_CALLS});"],
        capture_output=True, text=True, timeout=60)
    assert by_imports.returncode == 0, by_imports.stderr
    script = tmp_path / "esm.js"
    script.write_text(f"import * as model from '{(esm / 'model.js').as_uri()}';\n"
                      f"import {{AgentClient}} from '{(esm / 'client.js').as_uri()}';\n"
                      f"import {{defineIndicator}} from '{(esm / 'indicator.js').as_uri()}';\n"
                      "if (typeof AgentClient !== 'function' || typeof defineIndicator !== 'function')\n"
                      "    throw new Error('missing exports');\n"
                      f"print({MODEL_CALLS});\n")
    by_modules = subprocess.run(["gjs", "-m", str(script)], capture_output=True, text=True, timeout=60)
    assert by_modules.returncode == 0, by_modules.stderr
    assert json.loads(by_imports.stdout) == json.loads(by_modules.stdout) == EXPECTED

    # The ES entry point imports the shell's own modules, which only the
    # shell has: here it is parsed, not run.
    if shutil.which("node"):
        entry = tmp_path / "extension.mjs"
        shutil.copy(esm / "extension.js", entry)
        checked = subprocess.run(["node", "--check", str(entry)], capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stderr
