# SPDX-License-Identifier: MIT OR Apache-2.0
"""The documents bridge end to end (docs/documents.md §7) with a real app:
two devices on loopback, each with its own private session bus, HOME,
agent and `handoff documents-bridge`, one Xvfb display. Mousepad on A
opens a file under A's home; GTK records it in A's recently-used.xbel;
A's bridge offers it (`handoff nearby --json` on B sees it), the test
continues it through B's agent (CHOOSE, as a notification click does), and
B's bridge starts Mousepad with that file (its argv, its window title).
B has the same file under its own home: B's Mousepad opens B's copy (the
receiver maps the document, docs/PROTOCOL.md §12). Also: A's Mousepad
exits and the offer goes (the pidfd); a file gone from A fails the
continuation (4608) without naming A's path. The homes live under build/ (the
bridge never offers files under /tmp). Every process is killed at the
end, Mousepad on B too (the bridge starts it detached)."""

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from agent_desktop import Desktop, wait_for
from cli_support import ROOT, SCRATCH, WAIT
from test_agent_e2e import start_plain_agent
from test_cli_agent import LocalClient

TYPE = "org.libhandoff.document"
CHOOSE, OK = 17, 13


def require_mousepad():
    if not shutil.which("mousepad") or not shutil.which("Xvfb") or not shutil.which("xdotool"):
        pytest.skip("mousepad, Xvfb and xdotool are not installed (scripts/install-deps.sh)")


class Display:
    """Xvfb on a display number it picks itself (-displayfd)."""

    def __init__(self):
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "1024x768x24"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number, "Xvfb said no display number"
        self.name = f":{number}"

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def display(procs):
    require_mousepad()
    shown = Display()
    procs.append(shown)
    return shown


@pytest.fixture
def homes():
    """A folder outside /tmp for the homes (removed at the end)."""
    root = SCRATCH / "test-documents" / uuid.uuid4().hex[:12]
    root.mkdir(parents=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


class DocumentDevice:
    def __init__(self, root, home_root, device, procs, display):
        self.device = device
        self.procs = procs
        self.desktop = Desktop(root / "desktop", procs)
        self.home = home_root / "home"
        self.home.mkdir(parents=True)
        self.data = self.home / ".local" / "share"
        self.data.mkdir(parents=True)
        self.runtime = root / "run"
        self.runtime.mkdir(mode=0o700)
        self.socket = root / "agent" / "agent.sock"
        # Mousepad's desktop entry is the system's (/usr/share); the agent's
        # data home is the test's desktop.
        self.env = dict(self.desktop.env(device.env, self.socket), HOME=str(self.home), XDG_DATA_HOME=str(self.data),
                        XDG_DATA_DIRS="/usr/share", XDG_RUNTIME_DIR=str(self.runtime),
                        DISPLAY=display.name, GSETTINGS_BACKEND="memory",
                        NO_AT_BRIDGE="1")
        self.started = []  # pids the bridge started detached, killed at the end

    def mousepad(self, *files):
        proc = self.device.spawn_process(["mousepad", *map(str, files)], self.env)
        return proc

    def bridge(self):
        bridge = self.device.spawn("documents-bridge", env=self.env)
        bridge_event(bridge, "started")
        return bridge

    def kill_started(self):
        for pid in self.started:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def bridge_events(bridge, name):
    return [e for e in (json.loads(l) for l in list(bridge.stderr) if l.startswith("{")) if e.get("event") == name]


def bridge_event(bridge, name, check=lambda e: True):
    return wait_for(lambda: next((e for e in bridge_events(bridge, name) if check(e)), None),
                    f"the bridge's {name}; its log: {bridge.stderr}")


@pytest.fixture
def devices(pair, ports, tmp_path, procs, display, homes):
    a, b = pair
    made = (DocumentDevice(tmp_path / "a", homes / "a", a, procs, display),
            DocumentDevice(tmp_path / "b", homes / "b", b, procs, display))
    for device, (own, peer) in zip(made, (ports, ports[::-1])):
        device.agent = start_plain_agent(device.device, device.socket, own, peer, env=device.env)
    yield made
    for device in made:
        device.kill_started()


def nearby(device):
    result = device.device.run("--json", "nearby", "--agent", "--type", TYPE, "--once", "--timeout", "20", env=device.env)
    assert result.code == 0, (result.out, result.err)
    events = [json.loads(line) for line in result.out.splitlines() if line.startswith("{")]
    return next(e for e in events if e.get("type") == TYPE)


def argv(pid):
    return Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")


def window_titles(display, pid):
    out = subprocess.run(["xdotool", "search", "--pid", str(pid), "--name", "."], capture_output=True, text=True,
                         timeout=WAIT, env=dict(os.environ, DISPLAY=display.name)).stdout.split()
    titles = []
    for window in out:
        name = subprocess.run(["xdotool", "getwindowname", window], capture_output=True, text=True, timeout=WAIT,
                              env=dict(os.environ, DISPLAY=display.name)).stdout.strip()
        titles.append(name)
    return titles


def choose(device, activity_id):
    observer = LocalClient(device.socket)
    observer.hello()
    kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(activity_id).bytes})
    observer.close()
    return kind, body


def test_a_document_open_in_mousepad_continues_in_mousepad_on_the_other_device(devices, display):
    a, b = devices
    document = a.home / "docs" / "plan.txt"
    document.parent.mkdir()
    document.write_text("line one\nline two\nline three\n")
    # B's copy of the same document, in B's home.
    copy = b.home / "docs" / "plan.txt"
    copy.parent.mkdir()
    copy.write_text(document.read_text())
    bridge_a, bridge_b = a.bridge(), b.bridge()
    editor = a.mousepad(document)

    offered = bridge_event(bridge_a, "offered")
    assert offered["title"] == "plan.txt" and offered["bundle"] == "org.xfce.mousepad", offered
    assert offered["url"] == f"file://{document}", offered
    xbel = (a.data / "recently-used.xbel").read_text()
    assert "&apos;mousepad %u&apos;" in xbel, xbel
    seen = nearby(b)
    assert seen["title"] == "plan.txt" and seen["id"].upper() == offered["id"].upper(), (seen, offered)

    kind, body = choose(b, seen["id"])
    assert kind == OK, body
    launched = bridge_event(bridge_b, "launched")
    b.started.append(launched["pid"])
    assert launched["entry"] == "org.xfce.mousepad.desktop" and launched["path"] == str(copy), launched
    # The Exec is `mousepad %U`: the file goes as its URL, one argument.
    wait_for(lambda: Path(f"/proc/{launched['pid']}").exists() and len(argv(launched["pid"])) > 1, "B's Mousepad runs")
    assert argv(launched["pid"]) == [b"mousepad", f"file://{copy}".encode()], argv(launched["pid"])
    titles = wait_for(lambda: [t for t in window_titles(display, launched["pid"]) if "plan.txt" in t],
                      "B's Mousepad window shows plan.txt")
    print(f"B's Mousepad: argv {argv(launched['pid'])}, window {titles}")

    # A's Mousepad exits: its pidfd says so and the offer goes.
    editor.kill()
    bridge_event(bridge_a, "app-exited")
    bridge_event(bridge_a, "resigned")


def test_a_document_gone_from_its_device_fails_the_continuation(devices):
    a, b = devices
    document = a.home / "gone.txt"
    document.write_text("soon gone\n")
    bridge_a, bridge_b = a.bridge(), b.bridge()
    a.mousepad(document)
    offered = bridge_event(bridge_a, "offered", lambda e: e["title"] == "gone.txt")
    # Removed from A after it was offered: A cannot describe it any more.
    document.unlink()
    assert nearby(b)["id"].upper() == offered["id"].upper()
    kind, _ = choose(b, offered["id"])
    assert kind == OK
    failed = bridge_event(bridge_b, "continue-failed")
    assert failed["code"] == 4608 and "gone.txt" in failed["reason"], failed
    assert str(a.home) not in failed["reason"], failed
    assert not bridge_events(bridge_b, "launched")


def test_files_under_tmp_are_never_offered(devices, tmp_path):
    a, _ = devices
    scratch = tmp_path / "scratch.txt"
    scratch.write_text("scratch\n")
    bridge = a.bridge()
    a.mousepad(scratch)
    refused = bridge_event(bridge, "not-offered", lambda e: "/tmp" in e["reason"])
    assert "never offered" in refused["reason"], refused
    assert not bridge_events(bridge, "offered")
