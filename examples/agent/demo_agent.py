# SPDX-License-Identifier: MIT OR Apache-2.0
"""make demo-agent: Handoff through the agent, two devices on one machine.

Device A and device B each run `handoff agent` (their own account
directory, socket and loopback ports). On A an app (agent_app.py) offers an
activity through agent A. On B the same app is installed (a .desktop file
in a temporary XDG_DATA_HOME) but not running. Agent B runs on a private
dbus-daemon with a stand-in panel (Tests/agent/fake_watcher.c, a
StatusNotifierWatcher): its tray icon turns "Active" and its menu lists
the offer. The demo chooses the activity on B as a person would, in the
tray's menu (busctl sends the menu's "clicked"; without busctl or the
fake watcher, the agent's CHOOSE request, what the notification's
Continue does), agent B launches the app, and the app restores what A
offered. Prints each step; exits 0 on success; leaves nothing behind."""

import json
import os
import plistlib
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = os.environ.get("HANDOFF_TOOL") or str(ROOT / "build" / "bin" / "handoff")
LIBRARY = os.environ.get("HANDOFF_LIBRARY") or str(ROOT / "build" / "lib" / "libhandoff.so")
APP = ROOT / "examples" / "agent" / "agent_app.py"
WATCHER = os.environ.get("HANDOFF_FAKE_WATCHER") or str(ROOT / "build" / "bin" / "fake_watcher")
TYPE, TEAM, BUNDLE = "org.example.notes.edit", "HANDOFFCLI", "org.example.Notes"
WAIT = 60
HELLO, WELCOME, REMOTE, OK, ERROR, CHOOSE = 1, 2, 4, 13, 15, 17


def step(text):
    print(f"==> {text}", flush=True)


def wait_for(probe, what):
    deadline = time.monotonic() + WAIT
    while not (value := probe()):
        if time.monotonic() > deadline:
            raise SystemExit(f"demo-agent: FAILED: no {what} within {WAIT} s")
        time.sleep(0.05)
    return value


def log_events(path):
    import json
    try:
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line.endswith("}")]
    except FileNotFoundError:
        return []


def event(path, name):
    return wait_for(lambda: next((e for e in log_events(path) if e["event"] == name), None),
                    f"'{name}' from the app ({path})")


def free_port():
    for _ in range(1000):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, socket.socket() as t:
            try:
                u.bind(("0.0.0.0", 0))
                port = u.getsockname()[1]
                t.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise SystemExit("demo-agent: no free port")


class Client:
    """The local protocol by hand (docs/agent.md §3), as an observer."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(WAIT)
        self.sock.connect(str(path))
        self.next_id = 0

    def send(self, kind, body, request_id):
        self.sock.send(bytes([1, kind, 0, 0]) + struct.pack(">I", request_id)
                       + plistlib.dumps(body, fmt=plistlib.FMT_BINARY))

    def receive(self):
        data = self.sock.recv(65536)
        if not data:
            raise SystemExit("demo-agent: FAILED: the agent closed the connection")
        return data[1], struct.unpack(">I", data[4:8])[0], plistlib.loads(data[8:]) if len(data) > 8 else {}

    def request(self, kind, body):
        self.next_id += 1
        self.send(kind, body, self.next_id)
        while True:
            got, request_id, reply = self.receive()
            if request_id == self.next_id:
                return got, reply

    def remote(self, activity_type):
        while True:
            kind, _, body = self.receive()
            if kind == REMOTE and body["change"] == 0 and body["activity"]["type"] == activity_type:
                return body["activity"]


def private_bus(root, children):
    """A dbus-daemon of the demo's own (never the person's session bus)
    with the fake StatusNotifierWatcher on it; None without them."""
    if not (shutil.which("dbus-daemon") and shutil.which("busctl") and os.access(WATCHER, os.X_OK)):
        return None
    config = root / "bus.conf"
    config.write_text(f"""<busconfig><type>session</type><listen>unix:path={root}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
</policy></busconfig>""")
    daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--print-address=1", "--nofork"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    children.append(daemon)
    address = daemon.stdout.readline().strip()
    watcher = subprocess.Popen([WATCHER, "--address", address, "--log", str(root / "watcher.jsonl")],
                               stdout=subprocess.PIPE, text=True)
    children.append(watcher)
    if watcher.stdout.readline().strip() != "ready":
        raise SystemExit("demo-agent: FAILED: the fake StatusNotifierWatcher did not start")
    return address


def busctl(address, *args):
    done = subprocess.run(["busctl", f"--address={address}", "--json=short", "--", *args],
                          capture_output=True, text=True, timeout=WAIT)
    if done.returncode != 0:
        raise SystemExit(f"demo-agent: FAILED: busctl {' '.join(args)}: {done.stderr}")
    return json.loads(done.stdout) if done.stdout.strip() else None


def tray_lines(path):
    """The agent's "tray: ..." log lines."""
    return [line.split("handoff agent: ", 1)[-1].strip() for line in path.read_text().splitlines()
            if "tray: " in line]


def main():
    root = Path(tempfile.mkdtemp(prefix="handoff-demo-agent-"))
    children = []
    launched_log = root / "b-app.jsonl"
    try:
        def device(name):
            env = dict(os.environ, XDG_CONFIG_HOME=str(root / name / "config"), LC_ALL="C",
                       HANDOFF_AGENT_SOCKET=str(root / name / "run" / "agent.sock"), HANDOFF_LIBRARY=LIBRARY,
                       XDG_DATA_HOME=str(root / name / "data"), XDG_DATA_DIRS=str(root / "none"))
            env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # never the person's desktop
            return env

        def tool(env, *args):
            done = subprocess.run([TOOL, *args], env=env, capture_output=True, text=True, timeout=WAIT)
            if done.returncode != 0:
                raise SystemExit(f"demo-agent: FAILED: handoff {' '.join(args)}: {done.stderr}")
            return done.stdout.strip()

        a, b = device("a"), device("b")
        (root / "none").mkdir()
        step("Device A creates an account; device B joins it with A's pairing code")
        tool(a, "account", "create")
        tool(b, "account", "join", tool(a, "account", "code"))
        tool(a, "device", "--name", "Device A")
        tool(b, "device", "--name", "Device B")

        step(f"Device B has the app {BUNDLE} installed (a .desktop file), not running")
        applications = root / "b" / "data" / "applications"
        applications.mkdir(parents=True)
        (applications / f"{BUNDLE}.desktop").write_text(
            "[Desktop Entry]\nType=Application\nName=Notes\n"
            f"Exec={sys.executable} {APP} --log {launched_log} --bundle {BUNDLE} --team {TEAM} --type {TYPE}\n"
            f"X-Handoff-ActivityTypes={TYPE};\nX-Handoff-TeamIdentifier={TEAM}\n")

        bus = private_bus(root, children)
        if bus:
            step("Device B has a panel with a tray (a private dbus-daemon and a stand-in StatusNotifierWatcher)")
            b["DBUS_SESSION_BUS_ADDRESS"] = bus

        port_a, port_b = free_port(), free_port()
        for name, env, own, peer in (("A", a, port_a, port_b), ("B", b, port_b, port_a)):
            step(f"Device {name} starts `handoff agent` (beacons on 127.0.0.1:{own}, peer 127.0.0.1:{peer})")
            tray = [] if name == "B" and bus else ["--no-tray"]
            agent = subprocess.Popen([TOOL, "agent", "--no-notifications", *tray, "--beacon-port", str(own),
                                      "--no-multicast", "--peer", f"127.0.0.1:{peer}", "--channel", "127.0.0.1:0"],
                                     env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(root / f"agent-{name}.log", "w"))
            children.append(agent)
            wait_for(lambda env=env: Path(env["HANDOFF_AGENT_SOCKET"]).exists(), f"agent {name}'s socket")

        step("On device A the app starts (mode AGENT) and offers a note through agent A")
        a_log = root / "a-app.jsonl"
        children.append(subprocess.Popen([sys.executable, str(APP), "--log", str(a_log), "--bundle", BUNDLE,
                                          "--team", TEAM, "--type", TYPE, "--advertise", TYPE,
                                          "--info", "note=Buy milk", "--info", "line=7"], env=a))
        print(f"    app on A: {event(a_log, 'connected')['mode']} mode, offering {event(a_log, 'advertising')['id']}")

        step("Device B's agent hears of it")
        observer = Client(b["HANDOFF_AGENT_SOCKET"])
        kind, welcome = observer.request(HELLO, {"protocol": 1, "bundle": "org.libhandoff.handoff", "team": TEAM,
                                                 "types": [], "pid": os.getpid(), "observer": True})
        assert kind == WELCOME, welcome
        remote = observer.remote(TYPE)
        print(f"    \"{remote.get('title')}\" ({remote['type']}) from {remote['deviceName']}")

        b_log = root / "agent-B.log"
        if bus:
            step("Device B's tray icon shows it")
            wait_for(lambda: any("1 offer" in line for line in tray_lines(b_log)), "tray line with 1 offer")
            for line in tray_lines(b_log):
                print(f"    agent B: {line}")
            item = json.loads((root / "watcher.jsonl").read_text().splitlines()[0])["service"]
            status = busctl(bus, "get-property", item, "/StatusNotifierItem", "org.kde.StatusNotifierItem", "Status")
            icon = busctl(bus, "get-property", item, "/StatusNotifierItem", "org.kde.StatusNotifierItem", "IconName")
            print(f"    {item}: Status {status['data']}, IconName {icon['data']}")
            layout = busctl(bus, "call", item, "/MenuBar", "com.canonical.dbusmenu", "GetLayout", "iias", "0", "-1", "0")
            items = [child["data"] for child in layout["data"][1][2]]
            offer_id = None
            for item_id, props, _ in items:
                if props.get("type", {}).get("data") == "separator":
                    print("    menu: ----")
                    continue
                label = props.get("label", {}).get("data", "")
                print(f"    menu: {label}" + ("" if props.get("enabled", {}).get("data", True) else " (disabled)"))
                if offer_id is None and (remote.get("title") or remote["type"]) in label:
                    offer_id = item_id
            if offer_id is None:
                raise SystemExit("demo-agent: FAILED: the tray's menu does not list the offer")
            step("The person chooses it in device B's tray menu")
            chosen_at = time.time()
            busctl(bus, "call", item, "/MenuBar", "com.canonical.dbusmenu", "Event", "isvu", str(offer_id), "clicked",
                   "s", "", "0")
        else:
            step("The person chooses it on device B (what the notification's Continue does)")
            chosen_at = time.time()
            kind, reply = observer.request(CHOOSE, {"activityID": remote["activityID"]})
            if kind != OK:
                raise SystemExit(f"demo-agent: FAILED: CHOOSE answered {kind} {reply}")

        step("Agent B launches the app from its .desktop file; the app connects and restores")
        connected = event(launched_log, "connected")
        print(f"    app on B started (pid {connected['pid']}), {connected['mode']} mode")
        print(f"    willContinue {event(launched_log, 'will_continue')['type']}")
        restored = event(launched_log, "continue")
        print(f"    continue: title \"{restored['title']}\", userInfo {restored['user_info']}")
        print(f"    click to restored: {(restored['t'] - chosen_at) * 1000:.0f} ms (the app started from its .desktop file)")
        if restored["user_info"] != {"note": "Buy milk", "line": "7"}:
            raise SystemExit("demo-agent: FAILED: the userInfo did not arrive intact")

        step("Device A's app hears that its activity was continued")
        print(f"    wasContinued {event(a_log, 'was_continued')['id']}")
        observer.sock.close()
        print("demo-agent: OK")
        return 0
    finally:
        for pid in {e["pid"] for e in log_events(launched_log)}:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
