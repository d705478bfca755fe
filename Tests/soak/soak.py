# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the soak and scale runs share (Tests/soak, `make soak`): devices
with an account directory of their own, `handoff agent` processes and
build/bin/peer apps (Running, Tests/support/wakeups.py), and what /proc
says a process holds. Every process started here is tracked
(Tests/support/children.py) and ends with the run, however it ends."""

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "support"))

import children  # noqa: E402
import ports  # noqa: E402
from wakeups import PAIRING_CODE, Running  # noqa: E402

TOOL = Path(os.environ.get("HANDOFF_TOOL") or ROOT / "build" / "bin" / "handoff")
PEER = Path(os.environ.get("HANDOFF_PEER") or ROOT / "build" / "bin" / "peer")


class Failed(Exception):
    """The run could not do what it measures: reported, exit status 1."""


def free_port():
    return ports.free_port(os.getpid() * 389)


def wait_for(condition, what, timeout):
    """Polls `condition` until it returns something true, `timeout` s at most."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed("%s: not within %d s" % (what, timeout))
        time.sleep(0.05)


class Scratch:
    """A temporary directory, removed with everything in it."""

    def __init__(self, prefix):
        self.path = Path(tempfile.mkdtemp(prefix=prefix))

    def close(self):
        shutil.rmtree(self.path, ignore_errors=True)


class Device:
    """A device of the peer's account (PAIRING_CODE: peer's default key):
    its own XDG_CONFIG_HOME (device identity) and XDG_RUNTIME_DIR, its
    agent's socket, optionally in a network namespace."""

    def __init__(self, root, name, netns=None):
        self.name, self.netns = name, netns
        self.home = Path(root) / name
        self.config, self.runtime = self.home / "config", self.home / "run"
        self.config.mkdir(parents=True)
        self.runtime.mkdir(mode=0o700)
        self.socket = self.runtime / "agent.sock"
        env = dict(os.environ, XDG_CONFIG_HOME=str(self.config))
        for args in (["account", "join", PAIRING_CODE], ["device", "--name", name]):
            subprocess.run([str(TOOL)] + args, env=env, check=True, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
        self.agent = None

    def start_agent(self, *network):
        """`handoff agent` on this device (no notifications, launches or
        pairing), with these network options; waits until it listens."""
        self.agent = track(Running(["--json", "agent", "--no-notifications", "--no-launch", "--no-pairing",
                                    "--socket", self.socket, *network],
                                   self.netns, program=TOOL, config=str(self.config),
                                   env={"XDG_RUNTIME_DIR": str(self.runtime)}))
        self.agent.wait_for("listening", 60)
        return self.agent

    def app(self, *args, timeout=3600):
        """build/bin/peer in agent mode on this device's agent."""
        return track(Running(["--agent", *args, "--timeout", timeout], self.netns,
                             env={"HANDOFF_AGENT_SOCKET": str(self.socket)}))


def track(running):
    children.track(running.proc)
    return running


def stop(running):
    """SIGTERM, then SIGKILL after 10 s; reaped either way."""
    try:
        running.stop()
    finally:
        children.kill(running.proc)


def lines(running):
    """The lines a Running printed since the last call (taken from its queue)."""
    out = []
    while True:
        try:
            line = running._queue.get_nowait()
        except queue.Empty:
            return out
        running.lines.append(line)
        out.append(line)


def fields(line):
    """peer's `event key=value ...` line as a dict (values still escaped)."""
    return dict(word.split("=", 1) for word in line.split()[1:] if "=" in word)


# ------------------------------------------------------------- /proc

def held(pid):
    """What a process holds now: RSS (KiB), open fds, threads; CPU s so far."""
    status = {}
    for row in Path("/proc/%d/status" % pid).read_text().splitlines():
        key, _, value = row.partition(":")
        status[key] = value.strip()
    stat = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {"rss": int(status["VmRSS"].split()[0]), "fds": len(os.listdir("/proc/%d/fd" % pid)),
            "threads": int(status["Threads"]), "cpu": (int(stat[11]) + int(stat[12])) / ticks}


def udp_datagrams(pid):
    """(InDatagrams, OutDatagrams) of the network namespace `pid` is in."""
    rows = [row.split() for row in Path("/proc/%d/net/snmp" % pid).read_text().splitlines()
            if row.startswith("Udp:")]
    counters = dict(zip(rows[0][1:], (int(v) for v in rows[1][1:])))
    return counters["InDatagrams"], counters["OutDatagrams"]


def loaded():
    """How busy the machine is: load average over one minute, and CPUs."""
    return "load %.1f on %d CPUs" % (os.getloadavg()[0], os.cpu_count())


def require_programs():
    for program, how in ((TOOL, "make tool"), (PEER, "make build/bin/peer")):
        if not program.exists():
            raise Failed("%s is missing (%s)" % (program, how))


def two_agents(scratch, prefix, started):
    """Devices A and B, each with its agent on loopback sending beacons to
    the other's port (no multicast); the agents join `started`."""
    a = Device(scratch.path, prefix + "-A")
    b = Device(scratch.path, prefix + "-B")
    port_a, port_b = free_port(), free_port()
    while port_b == port_a:
        port_b = free_port()
    for device, own, other in ((a, port_a, port_b), (b, port_b, port_a)):
        started.append(device.start_agent("--beacon-port", own, "--no-multicast",
                                          "--peer", "127.0.0.1:%d" % other, "--channel", "127.0.0.1:0"))
    return a, b


def stop_all(started):
    """Stops what a run started, newest first, and forgets it."""
    for running in reversed(started):
        stop(running)
    started.clear()


def outcome(what, run):
    """The exit status of one soak: runs run() (which returns whether what
    it measured held), 1 with FAILED when it did not or what it drives
    failed (RuntimeError: a process never said something)."""
    try:
        require_programs()
        ok = run()
    except (Failed, RuntimeError) as failure:
        print("%s: FAILED: %s" % (what, failure))
        return 1
    if ok is False:
        print("%s: FAILED (see above)" % what)
        return 1
    return 0
