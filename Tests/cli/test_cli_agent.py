# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff agent` as a real process (docs/agent.md): apps reach it over its
SEQPACKET socket, it hands them what another device's `handoff publish`
offers, and it stops cleanly on SIGTERM. The local protocol is spoken by
hand here (an 8-byte header and a binary plist body)."""

import os
import plistlib
import signal
import socket
import struct
import uuid

from cli_support import TOOL, WAIT, Process, loopback, publish

TYPE = "com.example.cli.edit"

# Message numbers (docs/agent.md §3).
HELLO, WELCOME, REMOTE, FETCH, PAYLOAD, CONFIRM, ERROR = 1, 2, 4, 5, 6, 8, 15


class LocalClient:
    """One app's connection to the agent."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(WAIT)
        self.sock.connect(str(path))
        self.next_id = 0

    def close(self):
        self.sock.close()

    def send(self, kind, body=None, request_id=0):
        data = plistlib.dumps(body, fmt=plistlib.FMT_BINARY) if body else b""
        self.sock.send(bytes([1, kind, 0, 0]) + struct.pack(">I", request_id) + data)

    def receive(self):
        data = self.sock.recv(65536)
        assert data, "the agent closed the connection"
        assert data[0] == 1 and data[2:4] == b"\0\0", data[:8]
        body = plistlib.loads(data[8:]) if len(data) > 8 else {}
        return data[1], struct.unpack(">I", data[4:8])[0], body

    def request(self, kind, body):
        self.next_id += 1
        self.send(kind, body, self.next_id)
        while True:
            got_kind, got_id, got_body = self.receive()
            if got_id == self.next_id:
                return got_kind, got_body

    def hello(self, observer=True):
        kind, body = self.request(HELLO, {"protocol": 1, "bundle": "org.libhandoff.handoff", "team": "HANDOFFCLI",
                                          "types": [], "pid": os.getpid(), "observer": observer})
        assert kind == WELCOME, body
        return body

    def next_remote(self):
        while True:
            kind, _, body = self.receive()
            if kind == REMOTE:
                return body


def start_agent(device, socket_path, own_port, peer_port):
    agent = device.spawn("--json", "agent", "--no-notifications", "--socket", socket_path, *loopback(own_port, peer_port))
    agent.expect_stderr('"event":"listening"')
    return agent


def test_agent_hands_another_devices_activity_to_its_apps_and_stops_on_sigterm(pair, ports, tmp_path):
    a, b = pair
    path = tmp_path / "run" / "agent.sock"
    agent = start_agent(a, path, ports[0], ports[1])
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700" and oct(path.stat().st_mode & 0o777) == "0o600"
    client = LocalClient(path)
    welcome = client.hello()
    assert welcome["deviceName"] == "Device A" and welcome["role"] == "full" and len(welcome["deviceID"]) == 16

    sender, published = publish(b, ports[1], ports[0], "--type", TYPE, "--title", "Via the agent")
    remote = client.next_remote()
    assert remote["change"] == 0
    activity = remote["activity"]
    assert str(uuid.UUID(bytes=activity["activityID"])).upper() == published["id"]
    assert activity["type"] == TYPE and activity["title"] == "Via the agent"
    assert activity["deviceName"] == "Device B" and activity["team"] == "HANDOFFCLI"

    kind, body = client.request(FETCH, {"activityID": activity["activityID"]})
    assert kind == PAYLOAD and len(body["payload"]) > 0, body
    client.send(CONFIRM, {"activityID": activity["activityID"]})
    sender.event("continued", id=published["id"])

    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
    assert not path.exists()
    assert any('"event":"stopped"' in line for line in agent.stderr)
    assert client.sock.recv(65536) == b""
    client.close()


def test_agent_takes_the_socket_systemd_passes_and_leaves_it(device, ports, tmp_path, procs):
    assert device.run("account", "create").code == 0
    path = tmp_path / "agent.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(str(path))
    listener.listen(8)
    # As systemd starts it: the socket is descriptor 3, LISTEN_PID the agent's own pid.
    script = 'exec 3<&0 0</dev/null; export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=handoff-agent.socket; exec "$@"'
    tool = device.prefix + [str(a) for a in [TOOL, "--json", "agent", "--no-notifications", *loopback(ports[0], ports[1])]]
    agent = Process(["sh", "-c", script, "sh"] + tool, device.env, stdin=listener.fileno())
    procs.append(agent)
    listener.close()
    agent.expect_stderr('"event":"listening"')
    client = LocalClient(path)
    assert client.hello()["role"] == "full"
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
    assert path.exists()
    client.close()


def test_a_second_agent_on_one_socket_leaves_it_to_the_first_and_exits_0(device, ports, tmp_path):
    assert device.run("account", "create").code == 0
    path = tmp_path / "run" / "agent.sock"
    first = start_agent(device, path, ports[0], ports[1])
    second = device.run("agent", "--no-notifications", "--socket", path, *loopback(ports[1], ports[0]))
    assert second.code == 0 and "an agent already listens" in second.err, second
    assert first.proc.poll() is None and path.exists()
    first.signal(signal.SIGTERM)
    assert first.wait() == 0

