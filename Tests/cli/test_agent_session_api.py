# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent's session-bus API (docs/agent.md §15), as a front end (a shell
extension, a settings app) meets it: device B's real agent on a private
dbus-daemon; the test is the client, with busctl (properties, JSON),
gdbus (calls, error names), dbus-send (arguments of the wrong types) and
dbus-monitor (signals).

- Introspect names org.libhandoff.Agent1; GetAll gives Version, State,
  ThisDevice, Offers, Devices, Recent.
- Device A (a real second process on loopback) publishes: the offer
  appears in Offers (the app's name and icon, A's name) with a
  PropertiesChanged naming Offers; Continue with an activation token
  launches the app, which gets the token and restores what A published,
  and Continued(id, true, …) follows.
- SetDevice(A, accept=false) writes the settings file and A's offer
  leaves Offers; SetApp mutes an app in the file.
- Pause/Resume flip State and the settings file's Paused, each with a
  PropertiesChanged; a pause by `handoff settings` shows in State too.
- Bad arguments answer InvalidArgs, ids of the right form that name
  nothing NoSuchOffer, NoSuchEntry, NoSuchDevice; the agent answers on.
- --no-bus-api: nobody owns the name."""

import re
import subprocess
import uuid
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from agent_desktop import Desktop, OwnedProcess, kill_apps, wait_for
from cli_support import WAIT, publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event
from tray_host import busctl

NAME = "org.libhandoff.Agent"
PATH = "/org/libhandoff/Agent"
IFACE = "org.libhandoff.Agent1"
# The one text of the API (the extension's build embeds it; it is installed).
INTERFACES = Path(__file__).resolve().parents[2] / "dist" / "dbus" / "org.libhandoff.Agent1.xml"
TOKEN = "session-api-token-5c1e"


def interface(xml, name):
    """Interface `name` of introspection `xml` as comparable data: its
    properties, methods and signals with their arguments in order."""
    found = [i for i in ElementTree.fromstring(xml).iter("interface") if i.get("name") == name]
    assert len(found) == 1, f"{name} in {xml}"
    members = []
    for member in found[0]:
        args = tuple((a.get("name"), a.get("type"), a.get("direction") or ("in" if member.tag == "method" else None))
                     for a in member.iter("arg"))
        members.append((member.tag, member.get("name"), member.get("type"), member.get("access"), args))
    return sorted(members)


def assert_introspects_as_documented(address, path, name):
    """What the agent says of `name` at `path` is dist/dbus's text of it."""
    served = busctl(address, "call", NAME, path, "org.freedesktop.DBus.Introspectable", "Introspect")[1]["data"][0]
    assert interface(served, name) == interface(INTERFACES.read_text(), name), (served, name)


def owner(address):
    done = subprocess.run(["busctl", f"--address={address}", "status", NAME], capture_output=True, text=True,
                          timeout=WAIT)
    return done.returncode == 0


def unwrap(value):
    """busctl's JSON variant ({"type", "data"}) as plain Python values."""
    if isinstance(value, dict) and set(value) == {"type", "data"}:
        return unwrap(value["data"])
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    return value


def properties(address):
    reply = busctl(address, "call", NAME, PATH, "org.freedesktop.DBus.Properties", "GetAll", "s", IFACE)[1]
    return unwrap(reply["data"][0])


def prop(address, name):
    return unwrap(busctl(address, "get-property", NAME, PATH, IFACE, name)[1])


def q(text):
    """A GVariant string literal (gdbus parses its arguments as GVariant text)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def gdbus(address, method, *args):
    """(ok, output): gdbus call, its D-Bus error name and message on failure."""
    done = subprocess.run(["gdbus", "call", "--address", address, "--dest", NAME, "--object-path", PATH,
                           "--method", f"{IFACE}.{method}", *args], capture_output=True, text=True, timeout=WAIT)
    return done.returncode == 0, (done.stdout if done.returncode == 0 else done.stderr)


def error_name(address, method, *args):
    ok, text = gdbus(address, method, *args)
    assert not ok, f"{method} {args} succeeded: {text}"
    found = re.search(r"GDBus\.Error:([\w.]+):", text)
    assert found, text
    return found.group(1)


def send_wrong(address, method, *args):
    """dbus-send's reply to arguments of the wrong types: its error line."""
    done = subprocess.run(["dbus-send", f"--bus={address}", "--print-reply", f"--dest={NAME}", PATH,
                           f"{IFACE}.{method}", *args], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode != 0, done.stdout
    return done.stderr


class Monitor:
    """dbus-monitor on the private bus: the API's signals, as a client hears them."""

    def __init__(self, address, procs, log):
        self.log = Path(log)
        self._out = open(self.log, "w")
        proc = subprocess.Popen(["dbus-monitor", "--address", address, f"type='signal',path='{PATH}'"],
                                stdout=self._out, stderr=subprocess.STDOUT)
        procs.append(OwnedProcess(proc))
        wait_for(lambda: "NameAcquired" in self.log.read_text(), "dbus-monitor listening")

    def heard(self, member):
        """Each `member` signal from the API's object: its argument lines."""
        found, current = [], None
        for line in self.log.read_text().splitlines():
            if line.startswith(("signal ", "method ", "error ")):
                current = None
                if line.startswith("signal ") and f"path={PATH};" in line and f"member={member}" in line:
                    current = []
                    found.append(current)
            elif current is not None:
                current.append(line.strip())
        return found

    def changed(self, prop):
        """The PropertiesChanged signals that name `prop`."""
        return [s for s in self.heard("PropertiesChanged") if f'string "{prop}"' in s]


def start(b, desktop, tmp_path, ports, *extra):
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0], *extra)
    wait_for(lambda: owner(desktop.address), f"{NAME} owned")
    agent_event(agent, "session-api", state="on")
    return agent


def test_an_offer_appears_with_a_signal_and_continue_launches_the_app_with_the_token(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.Api", "org.example.Api", [TYPE], app_log, icon="accessories-text-editor")
    try:
        agent = start(b, desktop, tmp_path, ports)
        assert_introspects_as_documented(desktop.address, PATH, IFACE)
        props = properties(desktop.address)
        assert set(props) == {"Version", "State", "ThisDevice", "Offers", "Devices", "Recent"}, props
        assert props["Version"] == 1 and props["State"] == "running" and props["Offers"] == [], props
        assert props["ThisDevice"]["name"] == "Device B" and re.fullmatch(r"[0-9a-f]{32}", props["ThisDevice"]["id"])
        assert props["ThisDevice"]["role"] == "full", props
        monitor = Monitor(desktop.address, procs, tmp_path / "monitor.txt")

        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Draft 11", "--info", "n=7")
        offers = wait_for(lambda: prop(desktop.address, "Offers") or None, "the offer in Offers")
        assert len(offers) == 1, offers
        offer = offers[0]
        assert offer["title"] == "Draft 11" and offer["type"] == TYPE, offer
        assert offer["app-id"] == "org.example.Api" and offer["app-name"] == "E2E app", offer
        assert offer["icon"] == "accessories-text-editor" and offer["device-name"] == "Device A", offer
        assert uuid.UUID(offer["id"]) and offer["received"] > 0 and "web-page" not in offer, offer
        wait_for(lambda: monitor.changed("Offers"), "PropertiesChanged naming Offers")
        devices = wait_for(lambda: [d for d in prop(desktop.address, "Devices") if d["name"] == "Device A"] or None,
                           "Device A in Devices")
        assert devices[0]["online"] is True and devices[0]["offer"] is True and devices[0]["accept"] is True, devices

        # The person continues it in a front end, with the shell's token.
        ok, text = gdbus(desktop.address, "Continue", q(offer["id"]), f"{{'activation-token': <'{TOKEN}'>}}")
        assert ok, text
        agent_event(agent, "chosen", surface="session-bus", token=True)
        connected = app_event(app_log, "connected")
        assert connected["activation_token"] == TOKEN and connected["startup_id"] == TOKEN, connected
        restored = app_event(app_log, "continue", type=TYPE)
        assert restored["title"] == "Draft 11" and restored["user_info"] == {"n": "7"}, restored
        sender.event("continued", id=published["id"])
        continued = wait_for(lambda: monitor.heard("Continued") or None, "Continued")
        assert len(continued) == 1, continued
        assert continued[0][0] == f'string "{offer["id"]}"' and continued[0][1] == "boolean true", continued
        assert "launched org.example.Api" in continued[0][2], continued

        # Not accepting from A: the settings file says so, the offer leaves.
        a_id = devices[0]["id"]
        before = len(monitor.changed("Offers"))
        ok, text = gdbus(desktop.address, "SetDevice", q(a_id), "{'accept': <false>}")
        assert ok, text
        settings = (b.directory / "settings").read_text()
        assert f"[Device {a_id}]" in settings and "Accept=false" in settings, settings
        wait_for(lambda: prop(desktop.address, "Offers") == [], "A's offer gone once not accepted")
        wait_for(lambda: len(monitor.changed("Offers")) > before, "PropertiesChanged for the offer leaving")
        assert [d for d in prop(desktop.address, "Devices") if d["id"] == a_id][0]["accept"] is False
        # Unknown ids of the right form name nothing.
        assert error_name(desktop.address, "Continue", q(offer["id"]), "{}") == f"{IFACE}.Error.NoSuchOffer"
        assert error_name(desktop.address, "SetDevice", q("0" * 32), "{'accept': <true>}") == f"{IFACE}.Error.NoSuchDevice"
        assert agent.proc.poll() is None
    finally:
        kill_apps(app_log)


def test_pause_resume_and_app_settings_write_the_settings_file_and_say_so(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    agent = start(b, desktop, tmp_path, ports)
    monitor = Monitor(desktop.address, procs, tmp_path / "monitor.txt")
    assert gdbus(desktop.address, "Pause")[0]
    assert prop(desktop.address, "State") == "paused"
    assert "Paused=true" in (b.directory / "settings").read_text()
    wait_for(lambda: monitor.changed("State"), "PropertiesChanged naming State")
    assert gdbus(desktop.address, "Resume")[0]
    assert prop(desktop.address, "State") == "running"
    assert "Paused=false" in (b.directory / "settings").read_text()
    wait_for(lambda: len(monitor.changed("State")) == 2, "a second PropertiesChanged naming State")
    # A pause set elsewhere (the settings file, by the CLI) reaches clients.
    assert b.run("settings", "pause").code == 0
    wait_for(lambda: prop(desktop.address, "State") == "paused", "State paused by `handoff settings pause`")
    wait_for(lambda: len(monitor.changed("State")) == 3, "PropertiesChanged for the CLI's pause")
    assert b.run("settings", "resume").code == 0
    wait_for(lambda: prop(desktop.address, "State") == "running", "State running again")
    # Each signal says what changed: nothing but State changed here.
    for signal in monitor.heard("PropertiesChanged"):
        assert signal[0] == f'string "{IFACE}"', signal
        assert not any(f'string "{p}"' in signal for p in ("Offers", "Devices", "Recent", "ThisDevice")), signal

    assert gdbus(desktop.address, "SetApp", q("org.example.Loud"), "{'muted': <true>}")[0]
    assert "[App org.example.Loud]" in (b.directory / "settings").read_text()
    assert "Muted=true" in (b.directory / "settings").read_text()
    assert gdbus(desktop.address, "SetApp", q("org.example.Loud.desktop"), "{'muted': <false>}")[0]
    assert "Muted=true" not in (b.directory / "settings").read_text()
    agent_event(agent, "app-settings", bundle="org.example.Loud")


BAD = [
    # (method, gdbus arguments): each InvalidArgs
    ("Continue", [q("not-an-id"), "{}"]),
    ("Continue", [q(str(uuid.uuid4()).upper()), "{'activation-token': <7>}"]),
    ("ContinueRecent", [q("-3"), "{}"]),
    ("ContinueRecent", [q("h12"), "{}"]),
    ("SetDevice", [q("ABC"), "{'accept': <false>}"]),
    ("SetDevice", [q("0" * 32), "{'accept': <'no'>}"]),
    ("SetDevice", [q("0" * 32), "{'colour': <true>}"]),
    ("SetApp", [q("not an app!"), "{'muted': <true>}"]),
    ("SetApp", [q("org.example.A"), "{'muted': <1>}"]),
]

WRONG_TYPES = [
    # dbus-send arguments of the wrong types, and what the error says
    ("Continue", ["int32:3"], "Continue takes (s, a{sv}), not (i)"),
    ("Continue", ["string:x"], "Continue takes (s, a{sv}), not (s)"),
    ("Pause", ["string:now"], "Pause takes (), not (s)"),
    ("SetApp", ["string:a", "string:b"], "SetApp takes (s, a{sv}), not (ss)"),
]


def test_bad_arguments_are_invalid_args_and_unknown_ids_name_nothing(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    agent = start(b, desktop, tmp_path, ports)
    for method, args in BAD:
        assert error_name(desktop.address, method, *args) == "org.freedesktop.DBus.Error.InvalidArgs", (method, args)
    for method, args, message in WRONG_TYPES:
        text = send_wrong(desktop.address, method, *args)
        assert "org.freedesktop.DBus.Error.InvalidArgs" in text and message in text, text
    assert error_name(desktop.address, "Continue", q(str(uuid.uuid4())), "{}") == f"{IFACE}.Error.NoSuchOffer"
    assert error_name(desktop.address, "ContinueRecent", q("424242"), "{}") == f"{IFACE}.Error.NoSuchEntry"
    assert error_name(desktop.address, "Frobnicate") in ("org.freedesktop.DBus.Error.UnknownMethod",)
    # Properties are read-only.
    done = subprocess.run(["busctl", f"--address={desktop.address}", "set-property", NAME, PATH, IFACE, "State", "s", "x"],
                          capture_output=True, text=True, timeout=WAIT)
    assert done.returncode != 0
    # Nothing was changed by any of it, and the agent answers on.
    assert prop(desktop.address, "State") == "running"
    assert "Paused=true" not in ((b.directory / "settings").read_text() if (b.directory / "settings").exists() else "")
    assert agent.proc.poll() is None


def test_no_bus_api_owns_no_name(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0], "--no-bus-api")
    # The search serves on the same bus: once it does, the API would have too.
    agent_event(agent, "search", state="on")
    assert not owner(desktop.address)
