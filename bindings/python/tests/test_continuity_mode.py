# SPDX-License-Identifier: MIT OR Apache-2.0
"""Where continuity runs (handoff_continuity_mode, docs/agent.md §3
"Choosing the mode"): the getter for EMBEDDED, and AUTO without an agent."""

import os
import plistlib
import shutil
import socket
import struct
import subprocess
import sys
import threading

import pytest

from conftest import BINDING, free_port
from handoff import Account, Application, ContinuityMode, HandoffError, Manifest, Status


@pytest.fixture
def manifest():
    return Manifest("com.example.myapp", "TEAM1", ["com.example.myapp.edit"])


def test_the_mode_is_known_only_once_started_and_embedded_is_embedded(manifest):
    app = Application(manifest)
    with pytest.raises(HandoffError) as caught:
        app.continuity_mode
    assert caught.value.code == Status.INVALID_STATE
    app.start_continuity(Account.from_key(bytes(32)), mode=ContinuityMode.EMBEDDED,
                         beacon_port=free_port(), multicast=False, channel_address="127.0.0.1:0",
                         device_id="0123456789abcdef0123456789abcdef")
    assert app.continuity_mode is ContinuityMode.EMBEDDED
    with pytest.raises(TypeError, match="ContinuityMode"):
        Application(manifest).start_continuity(Account.from_key(bytes(32)), mode=2)


def test_agent_mode_with_a_device_setting_is_refused(manifest):
    app = Application(manifest)
    with pytest.raises(HandoffError) as caught:
        app.start_continuity(Account.from_key(bytes(32)), mode=ContinuityMode.AGENT,
                             beacon_port=free_port())
    assert caught.value.code == Status.INVALID_ARGUMENT and "beacon_port" in caught.value.message


# Run in a network namespace of its own (loopback only): AUTO without any
# device setting embeds an engine with the defaults, multicast included,
# whose beacons must not leave this machine.
SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import handoff
manifest = handoff.Manifest("com.example.myapp", "TEAM1", ["com.example.myapp.edit"])
account = handoff.Account.from_key(bytes(32))
try:
    handoff.Application(manifest).start_continuity(account, mode=handoff.ContinuityMode.AGENT)
    print("AGENT started")
except handoff.HandoffError as e:
    print("AGENT", int(e.code), e.message)
app = handoff.Application(manifest)
app.start_continuity(account)
print("AUTO", app.continuity_mode.name)
app.close()
"""


def test_auto_without_an_agent_is_embedded_and_agent_mode_names_the_socket(tmp_path):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a network namespace of its own")
    socket_path = tmp_path / "run" / "handoff" / "agent.sock"  # nothing there
    env = dict(os.environ, HANDOFF_AGENT_SOCKET=str(socket_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    run = subprocess.run(["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                          sys.executable, "-c", SCRIPT, str(BINDING)],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("AGENT %d " % Status.CONNECTION_UNAVAILABLE) and str(socket_path) in lines[0]
    assert lines[1] == "AUTO EMBEDDED"
    assert (tmp_path / "config" / "handoff" / "device").exists()  # the device file of its own engine


class FakeAgent:
    """An agent that speaks just enough of the local protocol (docs/agent.md
    §3): it answers HELLO with WELCOME for `account_id` and records what the
    app sends until it closes the connection. Written from the doc, in
    Python, so it also checks the library's framing against plistlib."""

    def __init__(self, path, account_id):
        self.account_id = account_id
        self.received = []  # (type, request id, body)
        self.closed = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(str(path))
        self.listener.listen()
        self.listener.settimeout(60)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(60)
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                version, kind, flags, request = struct.unpack(">BBHI", data[:8])
                body = plistlib.loads(data[8:]) if len(data) > 8 else {}
                self.received.append((kind, request, body))
                if kind == 1:  # HELLO -> WELCOME
                    welcome = {"agent": "py", "deviceID": bytes(16), "deviceName": "Py agent",
                               "role": "full", "accountID": self.account_id}
                    conn.send(struct.pack(">BBHI", 1, 2, 0, request)
                              + plistlib.dumps(welcome, fmt=plistlib.FMT_BINARY))
        self.closed.set()

    def close(self):
        self.listener.close()


@pytest.fixture
def agent_dir(tmp_path, monkeypatch):
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("HANDOFF_AGENT_SOCKET", str(directory / "agent.sock"))
    return directory


def test_auto_uses_an_agent_of_the_same_account(manifest, agent_dir):
    account = Account.from_key(bytes(32))
    agent = FakeAgent(agent_dir / "agent.sock", account.id)
    try:
        app = Application(manifest)
        app.start_continuity(account)
        assert app.continuity_mode is ContinuityMode.AGENT
        app.close()
        assert agent.closed.wait(60)
    finally:
        agent.close()
    kind, request, hello = agent.received[0]
    assert (kind, request) == (1, 1)
    assert hello["bundle"] == "com.example.myapp" and hello["team"] == "TEAM1"
    assert hello["types"] == ["com.example.myapp.edit"] and hello["pid"] == os.getpid()


def test_agent_mode_refuses_an_agent_of_another_account(manifest, agent_dir):
    agent = FakeAgent(agent_dir / "agent.sock", "0123456789abcdef")
    try:
        with pytest.raises(HandoffError) as caught:
            Application(manifest).start_continuity(Account.from_key(bytes(32)), mode=ContinuityMode.AGENT)
        assert caught.value.code == Status.INVALID_STATE and "0123456789abcdef" in caught.value.message
    finally:
        agent.close()
