# SPDX-License-Identifier: MIT OR Apache-2.0
"""The first run (docs/agent.md §10), as a person meets it: the agent starts
at login before this device has an account, stays up, tells apps "not
paired yet" and shows one notification; `handoff account create` (or a
pairing) in another process makes it start its engine without a restart.
A second agent on the same socket (XDG autostart beside the systemd units)
exits 0. New devices get a name a person recognises (the pretty host name,
else "<person>'s <chassis>"), and `handoff pair --name` sets it.
"""

import os
import plistlib
import signal
import socket
import struct
import subprocess

from agent_desktop import Desktop, wait_for
from cli_support import TOOL, WAIT, Device, Process, free_port
from pairing_support import answer, outcome

NOT_SET_UP = "Handoff is not set up"
HELLO, WELCOME, ERROR = 1, 2, 15
NOT_FOUND = 4


def hello(path):
    """HELLO on a fresh connection: (reply type, body)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as sock:
        sock.settimeout(WAIT)
        sock.connect(str(path))
        body = plistlib.dumps({"protocol": 1, "bundle": "org.libhandoff.firstrun", "team": "HANDOFFCLI",
                               "types": [], "pid": os.getpid(), "observer": True}, fmt=plistlib.FMT_BINARY)
        sock.send(bytes([1, HELLO, 0, 0]) + struct.pack(">I", 7) + body)
        data = sock.recv(65536)
        assert data and struct.unpack(">I", data[4:8])[0] == 7, data
        return data[1], plistlib.loads(data[8:]) if len(data) > 8 else {}


def waiting_agent(tmp_path, procs, desktop=None):
    """A device with no account (and no account directory) and its agent."""
    device = Device(tmp_path, "new", procs)
    assert not device.directory.exists()
    path = tmp_path / "run" / "agent.sock"
    env = desktop.env(device.env, path) if desktop else dict(device.env, HANDOFF_AGENT_SOCKET=str(path))
    extra = [] if desktop else ["--no-notifications"]
    agent = device.spawn("--json", "agent", *extra, "--socket", path, "--beacon-port", free_port(), "--no-multicast",
                         "--peer", f"127.0.0.1:{free_port()}", "--channel", "127.0.0.1:0", env=env)
    agent.expect_stderr('"event":"waiting"')
    return device, agent, path


def not_set_up(desktop):
    return [n for n in desktop.notifications() if n.get("call") == "Notify" and n.get("summary") == NOT_SET_UP]


def test_an_agent_without_an_account_waits_then_starts_when_one_is_created(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    device, agent, path = waiting_agent(tmp_path, procs, desktop)
    # The account directory is made (0700) so it can be watched.
    assert oct(device.directory.stat().st_mode & 0o777) == "0o700"
    desktop.notified(NOT_SET_UP)
    kind, body = hello(path)
    assert kind == ERROR and body["code"] == NOT_FOUND and "not paired yet" in body["message"], body
    assert "account: none" in body["message"]
    assert agent.proc.poll() is None

    # Another process creates the account: the same agent starts its engine.
    assert device.run("account", "create").code == 0
    agent.expect_stderr('"event":"listening"')
    assert agent.proc.poll() is None
    kind, body = hello(path)
    assert kind == WELCOME and len(body["deviceID"]) == 16, body
    # One notice, withdrawn once the wait is over.
    notice = not_set_up(desktop)
    assert len(notice) == 1, desktop.notifications()
    wait_for(lambda: any(n.get("call") == "CloseNotification" for n in desktop.notifications()),
             f"the notice withdrawn; got {desktop.notifications()}")

    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
    assert not path.exists()


def test_a_waiting_agent_stops_on_sigterm_and_removes_its_socket(tmp_path, procs):
    device, agent, path = waiting_agent(tmp_path, procs)
    assert path.exists()
    kind, body = hello(path)
    assert kind == ERROR and body["code"] == NOT_FOUND
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
    assert not path.exists()
    assert not device.account_file.exists()


def test_a_second_agent_finds_the_running_one_and_exits_0(tmp_path, procs):
    device, first, path = waiting_agent(tmp_path, procs)
    second = device.run("--json", "agent", "--no-notifications", "--socket", path, "--beacon-port", free_port(),
                        "--no-multicast", "--peer", f"127.0.0.1:{free_port()}", "--channel", "127.0.0.1:0")
    assert second.code == 0, second
    assert '"event":"already-running"' in second.err, second
    # The first one still serves its socket.
    assert first.proc.poll() is None and path.exists()
    assert hello(path)[0] == ERROR
    first.signal(signal.SIGTERM)
    assert first.wait() == 0


def test_a_new_device_is_named_from_machine_info_else_after_its_person_and_chassis(tmp_path, procs):
    info = tmp_path / "machine-info"
    chassis = tmp_path / "chassis_type"

    made = []

    def name(**files):
        made.append(1)  # a fresh device each time: a name is given once, at creation
        device = Device(tmp_path / f"device{len(made)}", "d", procs)
        env = dict(device.env, HANDOFF_TEST_MACHINE_INFO=str(info), HANDOFF_TEST_CHASSIS_TYPE=str(chassis))
        for path, text in files.items():
            (tmp_path / path).write_text(text)
        result = device.run("--json", "device", env=env)
        assert result.code == 0, result
        return result.json()["device"]["name"]

    assert name(**{"machine-info": 'PRETTY_HOSTNAME="Ada\'s \\"Work\\" Laptop"\nCHASSIS=desktop\n'}) \
        == 'Ada\'s "Work" Laptop'
    assert name(**{"machine-info": "CHASSIS=laptop\n"}).endswith("'s laptop")
    assert name(**{"machine-info": "# nothing\n", "chassis_type": "3\n"}).endswith("'s desktop")
    assert name(**{"chassis_type": "30\n"}).endswith("'s tablet")
    chassis.unlink()
    info.unlink()
    named = name()
    assert named.endswith("'s computer") and 0 < len(named.encode()) <= 64
    # Control characters never reach a name.
    assert name(**{"machine-info": "PRETTY_HOSTNAME='Bad\x01Name'\n"}) == "BadName"


def test_pair_name_names_the_new_device_and_the_sponsor_hears_it(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    sponsor = Device(tmp_path, "sponsor", procs)
    assert sponsor.run("account", "create").code == 0
    socket_path = tmp_path / "run" / "agent.sock"
    agent = sponsor.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", port, "--no-multicast",
                          "--peer", f"127.0.0.1:{free_port()}", "--channel", "127.0.0.1:0",
                          env=desktop.env(sponsor.env, socket_path))
    agent.expect_stderr('"event":"listening"')

    new = Device(tmp_path, "joiner", procs)
    assert new.run("pair", "--name", "bad\x07name").code == 2  # a usage error: nothing stored
    assert not new.directory.joinpath("device").exists() or "bad" not in new.directory.joinpath("device").read_text()
    proc = Process([str(TOOL), "--json", "pair", "--name", "Ada's tablet", "--timeout", "90", "--beacon-port",
                    str(free_port()), "--no-multicast", "--peer", f"127.0.0.1:{port}", "--listen", "127.0.0.1:0"],
                   new.env, stdin=subprocess.PIPE)
    procs.append(proc)
    prompt = desktop.notified("Pair a new device?")
    code = proc.event("code")
    # The sponsor's person sees what the new device calls itself, as a claim, beside the code.
    assert prompt["body"] == f"A device calling itself \u201cAda's tablet\u201d asks to join. Compare: {code['text']}"
    answer(proc, "y")
    desktop.click(prompt["id"], "pair")
    status, last = outcome(proc)
    assert status == 0 and last["event"] == "paired", (proc.lines, proc.stderr)
    agent.expect_stderr("Ada's tablet")
    assert "name=Ada's tablet" in new.directory.joinpath("device").read_text()
