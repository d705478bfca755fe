# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tool and a C app hand off to each other: the MapOff pair
(examples/c/mapoff.c, through libhandoff.so) on its embedded demo account,
which the tool joins with that account's pairing code."""

import hashlib
import signal
import subprocess

import pytest

from cli_support import ROOT, WAIT, Device, loopback

SENDER = ROOT / "build" / "bin" / "mapoff-sender"
RECEIVER = ROOT / "build" / "bin" / "mapoff-receiver"
MAPOFF_TYPE = "com.example.mapoff.view-region"

# mapoff.c's published demo key.
DEMO_KEY = bytes([0x6c, 0x69, 0x62, 0x68, 0x61, 0x6e, 0x64, 0x6f, 0x66, 0x66, 0x20, 0x64, 0x65, 0x6d, 0x6f, 0x20,
                  0x61, 0x63, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x76, 0x31, 0x00, 0x01])


def pairing_code(key):
    """docs/PROTOCOL.md: key || SHA-256(key)[:4] in Crockford base32, two
    zero bits of padding, groups of five joined by dashes."""
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    bits = int.from_bytes(key + hashlib.sha256(key).digest()[:4], "big") << 2
    symbols = "".join(alphabet[(bits >> (5 * (57 - i))) & 31] for i in range(58))
    return "-".join(symbols[i:i + 5] for i in range(0, 58, 5))


@pytest.fixture
def demo_device(tmp_path, procs):
    if not (SENDER.exists() and RECEIVER.exists()):
        pytest.fail("build the MapOff pair first: make examples")
    device = Device(tmp_path, "demo", procs)
    joined = device.run("account", "join", pairing_code(DEMO_KEY))
    assert joined.code == 0, joined
    return device


class CProcess:
    """A MapOff process as the person `device` (its XDG_CONFIG_HOME): the
    library takes that device's identity from its device file."""

    def __init__(self, cmd, device):
        self.proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=device.env)

    def finish(self):
        try:
            return self.proc.communicate(timeout=WAIT + 10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def c_device(tmp_path, procs):
    """The device the C app runs on: another than the tool's."""
    return Device(tmp_path, "c-app", procs)


def test_the_tool_continues_a_c_apps_activity(demo_device, c_device, ports):
    sender = CProcess([SENDER, "--port", ports[0], "--peer", f"127.0.0.1:{ports[1]}", "--timeout", WAIT], c_device)
    try:
        seen = demo_device.run("--json", "nearby", "--once", "--timeout", WAIT, *loopback(ports[1], ports[0])[:5])
        assert seen.code == 0, seen
        offered = seen.json()
        assert offered["type"] == MAPOFF_TYPE and offered["team"] == "MAPOFFDEMO" and offered["title"] == "Cupertino"

        result = demo_device.run("--json", "continue", offered["id"], "--team", "MAPOFFDEMO",
                                 *loopback(ports[1], ports[0]))
        assert result.code == 0, result
        assert result.json()["user_info"] == {"latitude": 37.3349, "longitude": -122.009,
                                              "latitudeDelta": 0.05, "longitudeDelta": 0.05}
    finally:
        out, err = sender.finish()
    assert sender.proc.returncode == 0, err
    assert '"Cupertino" was continued on the other device' in out


def test_a_c_app_continues_the_tools_activity(demo_device, c_device, ports):
    receiver = CProcess([RECEIVER, "--port", ports[1], "--peer", f"127.0.0.1:{ports[0]}", "--timeout", WAIT],
                        c_device)
    try:
        publisher = demo_device.spawn("--json", "publish", *loopback(ports[0], ports[1]), "--type", MAPOFF_TYPE,
                                      "--team", "MAPOFFDEMO", "--title", "Paris", "--once",
                                      "--info", "latitude:real=48.8566", "--info", "longitude:real=2.3522",
                                      "--info", "latitudeDelta:real=0.1", "--info", "longitudeDelta:real=0.2")
        published = publisher.event("publishing")
        publisher.event("continued", id=published["id"])
        assert publisher.wait() == 0
    finally:
        out, err = receiver.finish()
    assert receiver.proc.returncode == 0, err
    assert "restored map center 48.8566, 2.3522 span 0.100 x 0.200" in out


def test_an_app_is_the_device_handoff_device_named(demo_device, c_device, ports):
    """An app given no device id or name is the person's device: after
    `handoff device --name laptop` on it, another device sees "laptop",
    with the id of the device file."""
    named = c_device.run("--json", "device", "--name", "laptop")
    assert named.code == 0, named
    device = named.json()["device"]
    sender = CProcess([SENDER, "--port", ports[0], "--peer", f"127.0.0.1:{ports[1]}", "--timeout", WAIT], c_device)
    try:
        seen = demo_device.run("--json", "nearby", "--once", "--timeout", WAIT, *loopback(ports[1], ports[0])[:5])
        assert seen.code == 0, seen
        assert seen.json()["device"] == {"id": device["id"], "name": "laptop"}
    finally:
        sender.proc.kill()
        sender.finish()


def test_an_app_creates_the_device_file_handoff_device_then_shows(c_device, demo_device, ports):
    """No device file yet: the app creates it (named after the host), and
    `handoff device` then shows that same identity."""
    assert not (c_device.directory / "device").exists()
    sender = CProcess([SENDER, "--port", ports[0], "--peer", f"127.0.0.1:{ports[1]}", "--timeout", WAIT], c_device)
    try:
        seen = demo_device.run("--json", "nearby", "--once", "--timeout", WAIT, *loopback(ports[1], ports[0])[:5])
        assert seen.code == 0, seen
        shown = c_device.run("--json", "device")
        assert shown.code == 0, shown
        # nearby names the sender (id, name); its role is in the agent's STATUS and doctor.
        assert seen.json()["device"] == {k: shown.json()["device"][k] for k in ("id", "name")}
    finally:
        sender.proc.kill()
        sender.finish()
