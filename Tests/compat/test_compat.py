# SPDX-License-Identifier: MIT OR Apache-2.0
"""This release and the previous one hand off to each other
(docs/PROTOCOL.md §10): devices update at different times.

The previous release is built from the commit RELEASES records; each test
runs real processes of both on loopback, in both directions:
- two embedded apps (Tests/integration/peer.c, each built against its own
  release's header and library), and continuation streams between two
  (Tests/integration/streamer.c);
- an app built against the previous release running on this library
  (the C ABI: no rebuild needed);
- two agents of different releases, each serving an app of the other
  release (the channel between the agents, and the local protocol in both
  directions);
- the `handoff` commands of both releases (publish, continue).
"""

import json
import os
import subprocess
import time

import pytest

import ports as port_picker
from harness import Peer, loopback, peer_flags

ACCOUNT_CODE = "000G4-0R40M-30E20-9185G-R38E1-W8124-GK2GA-HC5RR-34D1P-70X3R-FP63E-D54"  # key 00..1f, the peer's
WAIT = 60
BLOB = 300


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return "%08x" % h


INFO_SUM = fnv1a(bytes((31 * i + 7) & 0xFF for i in range(BLOB)))


def free_ports(n):
    return [port_picker.free_port(os.getpid() * 7919 + i) for i in range(n)]


@pytest.fixture
def started():
    """Every process a test starts; all are stopped when it ends."""
    running = []
    yield running
    for p in reversed(running):
        p.kill()
    for p in running:  # shown when the test failed
        print(p.transcript())


def start(running, name, release, args, env=None, program=None, ready="ready"):
    program = program or release.peer
    if env:
        args = [f"{k}={v}" for k, v in env.items()] + [str(program)] + [str(a) for a in args]
        program = "/usr/bin/env"
    p = Peer(f"{name} ({release})", args, program=program)
    running.append(p)
    if ready:
        p.wait_for(ready, timeout=WAIT)
    return p


# Each test runs both ways: the previous release sending, then this one.
BOTH_WAYS = pytest.mark.parametrize("sender_is_old", [True, False], ids=["old-to-new", "new-to-old"])


def handed_off(sender, receiver):
    got = receiver.wait_for("continued", timeout=WAIT)
    assert got["info-sum"] == INFO_SUM and got["info-bytes"] == str(BLOB), receiver.transcript()
    sender.wait_for("was-continued", timeout=WAIT)


@BOTH_WAYS
def test_embedded_apps_of_both_releases_hand_off(old, new, started, sender_is_old):
    s_rel, r_rel = (old, new) if sender_is_old else (new, old)
    sport, rport, channel = free_ports(3)
    receiver = start(started, "receiver", r_rel, ["--receive", "--port", rport, *peer_flags(sport), "--auto-continue",
                                                  "--timeout", 120])
    sender = start(started, "sender", s_rel, ["--send", "--port", sport, *peer_flags(rport), "--channel-address",
                                              loopback(channel), "--userinfo-bytes", BLOB, "--timeout", 120])
    handed_off(sender, receiver)


@BOTH_WAYS
def test_continuation_streams_run_between_the_releases(old, new, started, sender_is_old):
    """The stream frames (PROTOCOL.md §8) across releases: two streams,
    bytes both ways, each side's sums matching the other's."""
    s_rel, r_rel = (old, new) if sender_is_old else (new, old)
    sport, rport = free_ports(2)
    size = 3_000_000
    sender = start(started, "sender", s_rel, ["--send", "--port", sport, *peer_flags(rport), "--bytes", size,
                                              "--streams", 2, "--timeout", 120], program=s_rel.streamer)
    sender.wait_for("offering", timeout=WAIT)
    receiver = start(started, "receiver", r_rel, ["--receive", "--port", rport, *peer_flags(sport), "--bytes", size,
                                                  "--streams", 2, "--timeout", 120], program=r_rel.streamer)
    receiver.wait_for("all-done", timeout=WAIT)
    sender.wait_for("all-done", timeout=WAIT)
    received, sent = receiver.matches("stream-done"), sender.matches("stream-done")
    assert len(received) == len(sent) == 2
    assert all(d["end"] == "ok" and int(d["sent"]) == int(d["received"]) == size for d in received + sent), \
        receiver.transcript() + sender.transcript()
    assert sorted(d["sent-sum"] for d in sent) == sorted(d["received-sum"] for d in received)
    assert sorted(d["sent-sum"] for d in received) == sorted(d["received-sum"] for d in sent)


def test_an_app_built_against_the_previous_release_runs_on_this_library(old, new, started):
    """The old peer binary, unchanged, loads this library (LD_LIBRARY_PATH
    comes before its rpath) and hands off with an app of this release."""
    sport, rport, channel = free_ports(3)
    receiver = start(started, "receiver", new, ["--receive", "--port", rport, *peer_flags(sport), "--auto-continue",
                                                "--timeout", 120])
    sender = start(started, "sender", old, ["--send", "--port", sport, *peer_flags(rport), "--channel-address",
                                            loopback(channel), "--userinfo-bytes", BLOB, "--timeout", 120],
                   env={"LD_LIBRARY_PATH": new.lib})
    maps = open(f"/proc/{sender.proc.pid}/maps").read()
    assert str(new.lib.resolve()) in maps and str(old.lib.resolve()) not in maps, "the old app did not load this library"
    handed_off(sender, receiver)


class Agent:
    """`handoff agent` of one release: its own account folder (joined to the
    peers' account), socket and loopback ports."""

    def __init__(self, running, release, tmp, name, own_port, peer_port):
        self.release = release
        self.config = tmp / name
        self.socket = self.config / "agent.sock"
        env = dict(os.environ, XDG_CONFIG_HOME=str(self.config))
        self.env = env
        for args in (["account", "join", ACCOUNT_CODE], ["device", "--name", f"{name} {release}"]):
            subprocess.run([str(release.tool), *args], env=env, check=True, capture_output=True, timeout=WAIT,
                           stdin=subprocess.DEVNULL)
        self.process = start(running, f"agent {name}", release,
                             ["--json", "agent", "--no-notifications", "--no-launch", "--socket", self.socket,
                              "--beacon-port", own_port, "--no-multicast", "--peer", loopback(peer_port),
                              "--channel", "127.0.0.1:0"],
                             env={"XDG_CONFIG_HOME": self.config}, program=release.tool, ready=None)
        deadline = time.monotonic() + WAIT
        while not self.socket.exists():
            assert time.monotonic() < deadline and self.process.alive(), self.process.transcript()
            time.sleep(0.05)

    def app(self, running, release, name, args):
        return start(running, name, release, ["--agent", *args, "--timeout", 120],
                     env={"HANDOFF_AGENT_SOCKET": self.socket, "XDG_CONFIG_HOME": self.config})


@BOTH_WAYS
def test_agents_of_both_releases_hand_off_for_apps_of_the_other_release(old, new, started, tmp_path, sender_is_old):
    """Device A: an agent of one release, a sending app of the other. Device
    B: the reverse. So the channel joins two releases, and each agent
    serves an app of the other release over the local protocol."""
    x, y = (old, new) if sender_is_old else (new, old)
    pa, pb = free_ports(2)
    agent_a = Agent(started, x, tmp_path, "A", pa, pb)
    agent_b = Agent(started, y, tmp_path, "B", pb, pa)
    receiver = agent_b.app(started, x, "receiver", ["--receive", "--auto-continue"])
    sender = agent_a.app(started, y, "sender", ["--send", "--userinfo-bytes", BLOB])
    handed_off(sender, receiver)
    if sender_is_old:
        # The receiving agent is this release's: it verified the sender's
        # device and says it runs an older release (the previous release's
        # revision, read from its source).
        listed = subprocess.run([str(new.tool), "--json", "devices"], env=dict(agent_b.env, HANDOFF_AGENT_SOCKET=str(agent_b.socket)),
                                capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
        assert listed.returncode == 0, listed
        devices = json.loads(listed.stdout.strip().splitlines()[-1])["devices"]
        assert [d["protocol_revision"] for d in devices] == [new.revision, old.revision], devices
        assert old.revision <= new.revision
        human = subprocess.run([str(new.tool), "devices"], env=dict(agent_b.env, HANDOFF_AGENT_SOCKET=str(agent_b.socket)),
                               capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
        # A release of the same revision (a patch release after it) is not
        # marked; one of an older revision is.
        if old.revision < new.revision:
            assert f"runs an older release (protocol revision {old.revision})" in human.stdout, human.stdout
        else:
            assert "older release" not in human.stdout, human.stdout


@BOTH_WAYS
def test_the_commands_of_both_releases_hand_off(old, new, tmp_path, sender_is_old):
    """`handoff publish` of one release, `handoff continue` of the other,
    each with an engine of its own (embedded)."""
    s_rel, r_rel = (old, new) if sender_is_old else (new, old)
    sport, rport = free_ports(2)
    env = {}
    for name, release in (("a", s_rel), ("b", r_rel)):
        env[name] = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / name), LC_ALL="C")
        subprocess.run([str(release.tool), "account", "join", ACCOUNT_CODE], env=env[name], check=True,
                       capture_output=True, timeout=WAIT, stdin=subprocess.DEVNULL)
    net = lambda own, other: ["--beacon-port", str(own), "--no-multicast", "--peer", loopback(other),
                              "--channel", "127.0.0.1:0"]
    publisher = subprocess.Popen([str(s_rel.tool), "--json", "publish", *net(sport, rport), "--type", "com.example.compat.edit",
                                  "--title", "Across releases", "--info", "doc=d-42", "--info", "count:int=3", "--once"],
                                 env=env["a"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 stdin=subprocess.DEVNULL)
    try:
        first = json.loads(publisher.stdout.readline())
        assert first["event"] == "publishing", first
        result = subprocess.run([str(r_rel.tool), "--json", "continue", first["id"], *net(rport, sport)], env=env["b"],
                                capture_output=True, text=True, timeout=WAIT * 2, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, result
        activity = json.loads(result.stdout.strip().splitlines()[-1])
        assert activity["id"] == first["id"] and activity["title"] == "Across releases"
        assert activity["user_info"] == {"doc": "d-42", "count": 3}
        out, err = publisher.communicate(timeout=WAIT)
        assert publisher.returncode == 0, err
        assert any(json.loads(line).get("event") == "continued" for line in out.splitlines() if line.strip()), out
    finally:
        if publisher.poll() is None:
            publisher.kill()
            publisher.wait()
