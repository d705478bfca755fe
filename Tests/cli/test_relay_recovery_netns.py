# SPDX-License-Identifier: MIT OR Apache-2.0
"""The relay recovers and explains (issue 34, docs/agent.md §12
"Reconnecting" and "Reaching the broker"), on the relay's test bed
(relay_support.RelayNetwork: a TLS Mosquitto on an "internet", a device
behind a NAT router):

- after a healthy connection a drop waits the back-off's first step (1 s)
  and the first attempt reconnects, however many drops came before; a
  drop before the connection was healthy waits the next step;
- the broker's log holds no failed connection from the device: the probe
  before libmosquitto's connect completes TLS and closes cleanly;
- a broker certificate that fails verification (another CA, another
  name) is named — the certificate, the name expected, OpenSSL's reason
  and `--ca-file` — by `handoff relay set`, the agent's log and doctor.

Drops are made by the broker: a session takeover (another connection with
the agent's client ID, which the broker's log names) or a restart.
Assertions count log lines (the agent's `relay` events, the broker's
connections), never durations. Needs what relay_support needs.
"""

import json
import re
import signal
import subprocess

import pytest

import certs  # Tests/support
import relay_support
from cli_support import WAIT, pair_of_devices

KEEPALIVE = 5
# Connected and subscribed this long is healthy (RelaySession.defaultHealthyAfter
# is 10 s; HANDOFF_RELAY_HEALTHY_AFTER shortens it for tests).
HEALTHY = 3


class Agent:
    """A device's agent in home1, its relay events and the broker's view of it."""

    def __init__(self, net, device, tmp_path, healthy=HEALTHY, name="a"):
        self.net, self.device = net, device
        self.socket = tmp_path / ("%s-run" % name) / "agent.sock"
        self.socket.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.env = dict(device.env, HANDOFF_AGENT_SOCKET=str(self.socket), HANDOFF_RELAY_KEEPALIVE=str(KEEPALIVE),
                        HANDOFF_RELAY_HEALTHY_AFTER=str(healthy))
        self.proc = None

    def start(self):
        self.proc = self.device.spawn("--json", "agent", "--no-notifications", "--no-tray", "--no-launch",
                                      "--no-pairing", "--socket", self.socket, env=self.env)
        self.proc.expect_stderr('"event":"listening"')

    def stop(self):
        """SIGTERM: the agent leaves cleanly (a DISCONNECT)."""
        self.proc.signal(signal.SIGTERM)
        self.proc.wait()

    def run(self, *args):
        return self.device.run(*args, env=self.env)

    def events(self):
        """The agent's relay events, in order."""
        out = []
        for line in list(self.proc.stderr):
            if '"event":"relay"' in line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out

    def states(self):
        return [e.get("state") for e in self.events()]

    def wait_events(self, count, what):
        """Waits until there are `count` relay events; returns them."""
        for _ in range(WAIT * 2 * 20):
            events = self.events()
            if len(events) >= count:
                return events
            if self.proc.proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.05"])
        raise AssertionError("never %s: %s" % (what, self.proc.stderr[-20:]))

    def wait_connected(self, times):
        """Waits until the agent has logged `times` connections."""
        for _ in range(WAIT * 2 * 20):
            if self.states().count("connected") >= times:
                return
            subprocess.run(["sleep", "0.05"])
        raise AssertionError("never connected %d times: %s" % (times, self.proc.stderr[-20:]))

    def client_id(self):
        """The agent's current MQTT client ID, from the broker's log (its last
        connection from home1's router)."""
        found = re.findall(r"New client connected from %s:\d+ as (\S+) " % re.escape(self.net.wan_ips["home1"]),
                           self.net.log_text())
        assert found, self.net.log_text()
        return found[-1]

    def wait_subscribed(self, count):
        """Waits until the broker has logged `count` subscriptions to the
        account's device topics (each connection subscribes once)."""
        return self.net.wait_for_log(r"^\d+: auto-\S+ 1 hoff/\w+/d/\+$", count)

    def connections(self):
        """Connections the broker accepted from home1."""
        return len(re.findall(r"New client connected from %s:" % re.escape(self.net.wan_ips["home1"]),
                              self.net.log_text()))


def take_over(net, client_id):
    """Drops the agent's connection from the broker's side: another client
    (from home2) connects with the same client ID, so the broker ends the
    agent's session, then leaves."""
    done = net.run_in("home2", ["mosquitto_pub", "-h", net.broker_name, "-p", net.broker_port, "--cafile", net.ca_file,
                                "-u", "ada", "-P", net.passwords["ada"], "-i", client_id, "-t", "hoff/takeover", "-m", "x"])
    assert done.returncode == 0, done


@pytest.fixture
def bed(tmp_path, procs):
    relay_support.require()
    with relay_support.RelayNetwork(tmp_path) as net:
        a, _ = pair_of_devices(tmp_path / "devices", procs, netns=(net.ns["home1"], net.ns["home2"]))
        yield net, a


def retry_in(event):
    """The wait an `unreachable` or `refused` event announces, in seconds:
    its `retry_in` field, which its words repeat ("trying again in 1 s")."""
    said = re.search(r"trying again in (\d+) s", event.get("message", ""))
    assert said, event
    assert event.get("retry_in", int(said.group(1))) == int(said.group(1)), event
    return int(said.group(1))


def after_drop(agent, before):
    """The first relay event after the `before` first ones (the drop's),
    and the events up to the next connection."""
    events = agent.wait_events(before + 1, "logged the drop")
    drop = events[before]
    assert drop["state"] == "unreachable", events[before:]
    return drop


def test_after_a_healthy_connection_a_drop_reconnects_at_the_first_step(bed, tmp_path):
    net, device = bed
    agent = Agent(net, device, tmp_path)
    assert agent.run(*net.relay_set_args("ada")).code == 0
    agent.start()
    agent.wait_connected(1)
    subscriptions = 1
    agent.wait_subscribed(subscriptions)

    # Four drops, each after a healthy connection: three takeovers and a
    # broker restart. Each waits 1 s, however many came before (the issue
    # saw 1 s, 2 s, 8 s, ... up to 5 min).
    for round in range(4):
        subprocess.run(["sleep", str(HEALTHY + 2)])  # healthy by now: subscribed HEALTHY s ago and more
        before = len(agent.events())
        accepted = agent.connections()
        if round == 3:
            net.restart_broker()
        else:
            take_over(net, agent.client_id())
        drop = after_drop(agent, before)
        assert retry_in(drop) == 1, (round, agent.events()[before:])
        agent.wait_connected(round + 2)
        subscriptions += 1
        agent.wait_subscribed(subscriptions)
        between = [e["state"] for e in agent.events()[before:]]
        if round < 3:
            # The broker stayed up: the first attempt, 1 s later, connected.
            assert between == ["unreachable", "connected"], (round, agent.events()[before:])
            assert agent.connections() == accepted + 1, net.log_text()

    # A drop before the connection is healthy waits the next step: a broker
    # that accepts and then drops is not reconnected to every second.
    agent.stop()
    agent = Agent(net, device, tmp_path, healthy=600, name="b")
    agent.start()
    agent.wait_connected(1)
    subscriptions += 1
    agent.wait_subscribed(subscriptions)
    waits = []
    for round in range(2):
        before = len(agent.events())
        take_over(net, agent.client_id())
        waits.append(retry_in(after_drop(agent, before)))
        agent.wait_connected(round + 2)
        subscriptions += 1
        agent.wait_subscribed(subscriptions)
    assert waits == [1, 2], agent.events()


def failed_lines(net):
    """The broker's log lines of connections that failed or ended badly."""
    return [line for line in net.log_text().splitlines()
            if re.search(r"failed:|unexpected eof|protocol error|OpenSSL Error", line, re.IGNORECASE)]


def test_the_broker_logs_no_failed_connection_from_the_device(bed, tmp_path):
    net, device = bed
    agent = Agent(net, device, tmp_path)
    # `relay set` checks the broker (a TLS handshake), the agent probes it
    # before each connection; a restart makes it connect again.
    assert agent.run(*net.relay_set_args("ada")).code == 0
    agent.start()
    agent.wait_connected(1)
    net.restart_broker()
    agent.wait_connected(2)
    assert agent.run(*net.relay_set_args("ada")).code == 0
    agent.stop()
    log = net.log_text()
    # Each probe is seen (a connection from the router that closes), none failed.
    assert len(re.findall(r"New connection from %s:" % re.escape(net.wan_ips["home1"]), log)) >= 4, log
    assert failed_lines(net) == [], log


def test_an_untrusted_broker_certificate_is_named_by_relay_set_the_agent_and_doctor(bed, tmp_path):
    net, device = bed
    agent = Agent(net, device, tmp_path)
    other = tmp_path / "other-ca"
    other.mkdir()
    wrong_ca = certs.ca_and_server(other, "elsewhere.test", "198.51.100.1", ca_name="Another CA")[0]

    # Another CA: refused, naming the certificate, OpenSSL's reason and
    # --ca-file. Mosquitto sends its CA after its own certificate, so the
    # one that fails is that CA, trusted nowhere here.
    done = agent.run("relay", "set", net.url_for("ada"), "--password-file", net.secret_file("ada"), "--ca-file", wrong_ca)
    assert done.code == 1, done
    assert "certificate failed verification: self-signed certificate in certificate chain" in done.err, done
    assert ('certificate "/CN=Handoff test CA", issued by "/CN=Handoff test CA", in the chain of the broker\'s '
            '"/CN=broker.test"') in done.err, done
    assert "checked against the CA file %s" % wrong_ca in done.err, done
    assert "expected the name %s" % net.broker_ip in done.err and "--ca-file" in done.err, done
    assert not (device.directory / "relay").exists(), "a refused set writes nothing"

    # The right CA, another name (one the certificate does not carry).
    done = agent.run("relay", "set", "mqtts://ada@%s:%d" % (net.alias_name, net.broker_port),
                     "--password-file", net.secret_file("ada"), "--ca-file", net.ca_file)
    assert done.code == 1, done
    assert "certificate failed verification: hostname mismatch" in done.err, done
    assert 'certificate "/CN=broker.test", issued by "/CN=Handoff test CA";' in done.err, done
    assert "expected the name %s" % net.alias_name in done.err, done

    # A broker not reachable now is a warning: set anyway.
    net.stop_broker()
    done = agent.run("relay", "set", net.url_for("ada"), "--password-file", net.secret_file("ada"), "--ca-file", wrong_ca)
    assert done.code == 0, done
    assert "could not check the relay broker now" in done.err and "cannot reach" in done.err, done

    # The agent says the same in its log, and doctor with what to do.
    net.restart_broker()
    agent.start()
    agent.proc.expect_stderr('"state":"refused"')
    [refused] = [e for e in agent.events() if e.get("state") == "refused"][:1]
    assert "self-signed certificate in certificate chain" in refused["error"], refused
    assert '"/CN=broker.test"' in refused["error"] and "--ca-file" in refused["error"], refused
    report = agent.run("--json", "doctor", "--listen", "1").json()
    [finding] = [f for f in report["findings"] if f["check"] == "sources.relay"]
    assert finding["status"] == "fail", finding
    assert "self-signed certificate in certificate chain" in finding["what"], finding
    assert "--ca-file" in finding["todo"] and "broker runs" not in finding["todo"], finding
    agent.stop()
    # Verification failures end with a clean close too.
    assert failed_lines(net) == [], net.log_text()
