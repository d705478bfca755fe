# SPDX-License-Identifier: MIT OR Apache-2.0
"""A person's two devices in two homes, each behind its own NAT router,
hand off through a real Mosquitto on the "internet" (issue #24,
docs/PROTOCOL.md §11, docs/agent.md §12): the relay's test bed
(relay_support.RelayNetwork) with a `handoff agent` on each device,
configured by `handoff relay set` (TLS with the bed's CA, a password from
a file). The homes cannot reach each other (asserted); a continue, its
restore and wasContinued, and a continuation stream of a few MB cross the
broker, and neither the wire nor the broker's persistence file holds a
canary placed in the title, type, userInfo and stream. Then what goes
wrong: an agent killed (its Will), the broker restarting, a wrong
password, another account writing under the topics.

Needs root, iproute2, nftables, mosquitto, tcpdump and openssl (skipped
otherwise; scripts/install-deps.sh installs them), and build/bin/streamer.
"""

import os
import secrets
import signal
import subprocess
from pathlib import Path

import pytest

import relay_support
from cli_support import ROOT, WAIT, pair_of_devices

STREAMER = Path(os.environ.get("HANDOFF_STREAMER") or ROOT / "build" / "bin" / "streamer")
# Short keepalive: the broker publishes a vanished agent's Will after 1.5 of them.
KEEPALIVE = 5


class Home:
    """A device with its agent, in a home of the bed."""

    def __init__(self, net, device, name, tmp_path):
        self.net, self.device, self.name = net, device, name
        self.socket = tmp_path / ("%s-run" % name) / "agent.sock"
        self.env = dict(device.env, HANDOFF_AGENT_SOCKET=str(self.socket), HANDOFF_RELAY_KEEPALIVE=str(KEEPALIVE))
        self.agent = None

    def start_agent(self):
        self.agent = self.device.spawn("--json", "agent", "--no-notifications", "--no-tray", "--no-launch",
                                       "--no-pairing", "--socket", self.socket, env=self.env)
        self.agent.expect_stderr('"event":"listening"')
        return self.agent

    def run(self, *args, **kw):
        return self.device.run(*args, env=self.env, **kw)

    def spawn(self, *args):
        return self.device.spawn(*args, env=self.env)

    def relay_events(self, state):
        return [line for line in self.agent.stderr if '"event":"relay"' in line and '"state":"%s"' % state in line]


@pytest.fixture
def homes(tmp_path, procs):
    relay_support.require()
    if not STREAMER.exists():
        pytest.skip("build/bin/streamer is not built (make build/bin/streamer)")
    with relay_support.RelayNetwork(tmp_path) as net:
        a, b = pair_of_devices(tmp_path / "devices", procs, netns=(net.ns["home1"], net.ns["home2"]))
        pair = Home(net, a, "a", tmp_path), Home(net, b, "b", tmp_path)
        for home in pair:
            home.socket.parent.mkdir(mode=0o700, parents=True)
            done = home.run(*net.relay_set_args("ada"))
            assert done.code == 0, done
        yield net, pair


def connected(home, count=1):
    """Waits until the agent has logged `count` connections to the broker."""
    home.agent.expect_stderr('"state":"connected"')
    if count > 1:
        deadline = WAIT * 2
        for _ in range(deadline * 20):
            if len(home.relay_events("connected")) >= count:
                return
            subprocess.run(["sleep", "0.05"])
        raise AssertionError("%s never connected %d times: %s" % (home.name, count, home.agent.stderr))


def diagnose(home):
    """What a failure message shows of a home: its agent's last words, its
    relay source and devices as doctor and `devices` see them."""
    doctor = home.run("--json", "doctor", "--listen", "0").out.strip().splitlines()[-1:]
    devices = home.run("--json", "devices").out.strip()
    return "\n".join(home.agent.stderr[-12:] + ["doctor: " + " ".join(doctor), "devices: " + devices])


def test_a_handoff_crosses_two_nats_through_the_broker_and_the_broker_learns_nothing(homes):
    net, (a, b) = homes
    # No direct path: home1 reaches neither home2's router nor its device.
    for target in (net.wan_ips["home2"], net.device_ip):
        reached, what = net.connect("home1", target, 52370, timeout=2)
        assert not reached, what
    canary = "canary" + secrets.token_hex(8)
    capture = net.capture()
    for home in (a, b):
        home.start_agent()
        connected(home)

    kind = "com.example." + canary
    sender = a.spawn("--json", "publish", "--type", kind, "--title", "Title " + canary, "--info", "note=" + canary)
    published = sender.event("publishing")
    continued = b.run("--json", "continue", published["id"], "--timeout", str(WAIT))
    assert continued.code == 0, continued
    result = continued.json()
    assert result["via"] == "agent"
    assert result["title"] == "Title " + canary and result["type"] == kind
    sender.event("continued", id=published["id"])  # wasContinued, through the broker
    sender.kill()

    # A continuation stream of 3 MB each way, through pipes over the broker.
    size = 3 << 20
    streamer_a = net.popen_in("home1", [STREAMER, "--send", "--agent", a.device.directory, "--bytes", size,
                                        "--pattern", canary, "--timeout", 120],
                              env=a.env, stdout=subprocess.PIPE, text=True)
    streamer_b = net.popen_in("home2", [STREAMER, "--receive", "--agent", b.device.directory, "--bytes", size,
                                        "--pattern", canary, "--timeout", 120],
                              env=b.env, stdout=subprocess.PIPE, text=True)
    done = {}
    for name, proc in (("a", streamer_a), ("b", streamer_b)):
        out, _ = proc.communicate(timeout=150)
        done[name] = next((line for line in out.splitlines() if line.startswith("stream-done")), out)
    fields = {k: dict(f.split("=", 1) for f in v.split()[1:]) for k, v in done.items()}
    for k in fields:
        assert fields[k].get("end") == "ok", done
    assert fields["a"]["sent"] == fields["b"]["received"] == str(size)
    assert fields["b"]["sent"] == fields["a"]["received"] == str(size)
    assert fields["a"]["sent-sum"] == fields["b"]["received-sum"] and fields["b"]["sent-sum"] == fields["a"]["received-sum"]

    # The broker's side: TLS on the wire, sealed or encrypted bytes at rest.
    wire = capture.bytes()
    assert len(wire) > 2 * size  # the stream crossed the internet, both ways
    assert canary.encode() not in wire
    assert canary.encode() not in net.persistence_file().read_bytes()
    # ... and the broker knew the devices only by their routers' addresses.
    log = net.log_text()
    assert "192.168." not in log and net.wan_ips["home1"] in log and net.wan_ips["home2"] in log

    # Doctor through the agent says where the relay stands.
    report = b.run("--json", "doctor", "--listen", "1").json()
    [finding] = [f for f in report["findings"] if f["check"] == "sources.relay"]
    assert finding["status"] == "ok" and "1 device(s) heard through it" in finding["what"], finding


def test_a_killed_agent_goes_offline_by_its_will_and_a_broker_restart_is_survived(homes):
    net, (a, b) = homes
    for home in (a, b):
        home.start_agent()
        connected(home)
    watcher = b.spawn("--json", "nearby")
    sender = a.spawn("--json", "publish", "--type", "com.example.relay.kill", "--title", "Killed")
    published = sender.event("publishing")
    watcher.event("available", id=published["id"])
    devices = b.run("--json", "devices").json()["devices"]
    assert [d["online"] for d in devices if d.get("online") is not None] == [True], devices

    # kill -9: no leaving presence, no DISCONNECT; the broker publishes the
    # Will after 1.5 keepalives, long before §5's 150 s presence lifetime.
    a.agent.proc.send_signal(signal.SIGKILL)
    a.agent.wait()
    watcher.event("withdrawn", id=published["id"], timeout=WAIT)
    for _ in range(WAIT * 10):
        devices = b.run("--json", "devices").json()["devices"]
        if [d["online"] for d in devices if d.get("online") is not None] == [False]:
            break
        subprocess.run(["sleep", "0.1"])
    else:
        raise AssertionError("the killed device stays online: %s" % devices)
    assert len([e for e in watcher.events() if e.get("event") == "withdrawn" and e.get("id") == published["id"]]) == 1
    sender.kill()

    # The broker restarts: both agents come back by themselves.
    a.start_agent()
    connected(a)
    net.restart_broker()
    connected(a, 2)
    connected(b, 2)
    sender = a.spawn("--json", "publish", "--type", "com.example.relay.restart", "--title", "After the restart")
    published = sender.event("publishing")
    continued = b.run("--json", "continue", published["id"], "--timeout", str(WAIT))
    assert continued.code == 0, "%r\nA: %s\nB: %s" % (continued, diagnose(a), diagnose(b))
    assert continued.json()["title"] == "After the restart"
    sender.event("continued", id=published["id"])


def test_a_wrong_password_is_a_clear_error_in_the_log_and_in_doctor(homes, tmp_path):
    net, (a, b) = homes
    wrong = tmp_path / "wrong.password"
    wrong.write_text("not the password\n")
    wrong.chmod(0o600)
    done = b.run("relay", "set", net.url_for("ada"), "--password-file", wrong, "--ca-file", net.ca_file)
    assert done.code == 0, done
    b.start_agent()
    b.agent.expect_stderr('"state":"refused"')
    [line] = b.relay_events("refused")[:1]
    assert 'refused the credentials of \\"ada\\"' in line, line
    report = b.run("--json", "doctor", "--listen", "1").json()
    [finding] = [f for f in report["findings"] if f["check"] == "sources.relay"]
    assert finding["status"] == "fail" and "refused the credentials" in finding["what"], finding
    assert "handoff relay set" in finding["todo"]
    assert b.agent.proc.poll() is None  # no crash, no exit: it waits and tries again later


def test_another_account_on_the_broker_sees_and_injects_nothing(homes, tmp_path, procs):
    net, (a, b) = homes
    for home in (a, b):
        home.start_agent()
        connected(home)
    # Eve's device (another account) in home2 with the same broker.
    eve_device = pair_of_devices(tmp_path / "eve", procs, netns=(net.ns["home2"], net.ns["home2"]))[0]
    eve = Home(net, eve_device, "eve", tmp_path)
    eve.socket.parent.mkdir(mode=0o700, parents=True)
    assert eve.run(*net.relay_set_args("eve")).code == 0
    eve.start_agent()
    connected(eve)
    hers = eve.spawn("--json", "publish", "--type", "com.example.relay.eve", "--title", "Eve's")
    hers.event("publishing")
    # She writes under ada's account topics (the ACL lets her): made-up beacons and a gone message.
    tag = [line for line in a.agent.stderr if "account tag" in line][0].split("account tag ")[1].split('"')[0].strip()
    for size in (220, 76):
        pub = net.run_in("home2", ["mosquitto_pub", "-h", net.broker_name, "-p", net.broker_port, "--cafile", net.ca_file,
                                   "-u", "eve", "-P", net.passwords["eve"], "-t", "hoff/%s/d/%s" % (tag, "e" * 32),
                                   "-s"], input="x" * size, stdin=None)
        assert pub.returncode == 0, pub
    mine = a.spawn("--json", "publish", "--type", "com.example.relay.mine", "--title", "Ada's")
    published = mine.event("publishing")
    continued = b.run("--json", "continue", published["id"], "--timeout", str(WAIT))
    assert continued.code == 0, continued
    nearby = b.run("--json", "nearby", "--timeout", "3")
    assert "Eve's" not in nearby.out
    report = b.run("--json", "doctor", "--listen", "1").json()
    [finding] = [f for f in report["findings"] if f["check"] == "sources.relay"]
    assert "not authentic" in finding["what"] or "malformed" in finding["what"], finding
    assert "1 device(s) heard through it" in finding["what"], finding
