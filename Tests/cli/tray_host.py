# SPDX-License-Identifier: MIT OR Apache-2.0
"""A stand-in panel for the tray tests: the fake StatusNotifierWatcher of
Tests/agent/fake_watcher.c on the test's private bus, and what a tray host
does with a registered item, through busctl: read its properties, read the
menu's layout, send it events. Everything started here is in `procs`."""

import json
import os
import subprocess
from pathlib import Path

from agent_desktop import json_lines, wait_for
from cli_support import ROOT, WAIT, Process

WATCHER = Path(os.environ.get("HANDOFF_FAKE_WATCHER") or ROOT / "build" / "bin" / "fake_watcher")
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


class Tray:
    def __init__(self, desktop, procs, log):
        assert WATCHER.exists(), f"{WATCHER} is not built: make {WATCHER.relative_to(ROOT)}"
        self.address = desktop.address
        self.log = Path(log)
        self.watcher = Process([str(WATCHER), "--address", self.address, "--log", str(self.log)], os.environ)
        procs.append(self.watcher)
        self.watcher.expect_line("ready")

    def registrations(self):
        return [r for r in json_lines(self.log) if r.get("call") == "RegisterStatusNotifierItem"]

    def registered(self, count=1):
        """The item's bus name, once `count` registrations arrived."""
        found = wait_for(lambda: len(self.registrations()) >= count and self.registrations(),
                         f"{count} registration(s); got {json_lines(self.log)}")
        return found[count - 1]["service"]

    def stop(self):
        self.watcher.kill()


def busctl(address, *args, check=True):
    """busctl on the private bus, JSON out; (ok, parsed or error text)."""
    done = subprocess.run(["busctl", f"--address={address}", "--json=short", "--", *args],
                          capture_output=True, text=True, timeout=WAIT)
    if check:
        assert done.returncode == 0, done.stderr
    if done.returncode != 0:
        return False, done.stderr
    return True, json.loads(done.stdout) if done.stdout.strip() else None


def item_property(address, name, prop):
    return busctl(address, "get-property", name, "/StatusNotifierItem", ITEM, prop)[1]["data"]


def layout(address, name):
    """(revision, [(id, properties)]) of the menu's root children, with the
    variants unwrapped ({"label": "…", …})."""
    reply = busctl(address, "call", name, "/MenuBar", MENU, "GetLayout", "iias", "0", "-1", "0")[1]
    revision, (root_id, root_props, children) = reply["data"]
    items = []
    for child in children:
        child_id, props, _ = child["data"]
        items.append((child_id, {k: v["data"] for k, v in props.items()}))
    return revision, items


def labelled(items, text):
    """The first item whose label contains `text`."""
    return next((i for i in items if text in i[1].get("label", "")), None)


def click(address, name, item_id):
    return busctl(address, "call", name, "/MenuBar", MENU, "Event", "isvu", str(item_id), "clicked", "s", "", "0",
                  check=False)


# Calls made in order on one bus connection, as a real host makes them:
# Plasma's token and the event it is for come from the same client, and
# the agent spends a token only on its giver's event. An argument
# {"variant": SIG, "value": V} is a variant.
_ONE_CONNECTION = """
import json, sys
from gi.repository import Gio, GLib
address, calls = sys.argv[1], json.loads(sys.argv[2])
bus = Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
def value(a):
    return GLib.Variant(a["variant"], a["value"]) if isinstance(a, dict) else a
for destination, path, interface, member, signature, args in calls:
    bus.call_sync(destination, path, interface, member, GLib.Variant(f"({signature})", tuple(map(value, args))),
                  None, Gio.DBusCallFlags.NONE, 10000, None)
"""


def on_one_connection(address, calls):
    """[(destination, path, interface, member, signature, [args])]: True
    when every call was answered without an error."""
    done = subprocess.run(["/usr/bin/python3", "-c", _ONE_CONNECTION, address, json.dumps(calls)],
                          capture_output=True, text=True, timeout=WAIT)
    return done.returncode == 0


def provide_then(address, name, token, event):
    """The host's token, then `event` ("activate", or a menu item's id to
    click), on one connection, as Plasma's tray sends them."""
    calls = [(name, "/StatusNotifierItem", ITEM, "ProvideXdgActivationToken", "s", [token])]
    if event == "activate":
        calls.append((name, "/StatusNotifierItem", ITEM, "Activate", "ii", [0, 0]))
    else:
        calls.append((name, "/MenuBar", MENU, "Event", "isvu", [event, "clicked", {"variant": "s", "value": ""}, 0]))
    return on_one_connection(address, calls)


class Signals:
    """dbus-monitor on the private bus (its policy allows eavesdropping):
    the signals the item and its menu send, as a host would hear them."""

    def __init__(self, address, procs, log):
        from agent_desktop import OwnedProcess
        self.log = Path(log)
        self._out = open(self.log, "w")
        self.proc = subprocess.Popen(["dbus-monitor", "--address", address], stdout=self._out,
                                     stderr=subprocess.STDOUT)
        procs.append(OwnedProcess(self.proc))
        # It prints its own NameAcquired first: from then on it hears all.
        wait_for(lambda: "NameAcquired" in self.log.read_text(), "dbus-monitor listening")

    def heard(self, member):
        """Each `member` signal of the item or the menu: its argument lines."""
        found, current = [], None
        for line in self.log.read_text().splitlines():
            if line.startswith(("signal ", "method ", "error ")):
                current = None
                if line.startswith("signal ") and f"member={member}" in line and \
                        ("interface=com.canonical.dbusmenu" in line or "interface=org.kde.StatusNotifierItem" in line):
                    current = []
                    found.append(current)
            elif current is not None:
                current.append(line.strip())
        return found

    def revisions(self):
        """The revisions LayoutUpdated announced, in order."""
        return [int(args[0].split()[1]) for args in self.heard("LayoutUpdated") if args]
