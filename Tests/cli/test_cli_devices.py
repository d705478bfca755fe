# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff devices`: the account's devices the engine heard, this one first,
with whether each one's channel verified (or why not), with an engine of the
tool's own and through a running agent. Loopback only."""
import signal
import socket
import time

from cli_support import WAIT, Device, free_port, loopback, publish
from test_cli_nearby_source import start_agent, with_agent

TYPE = "com.example.cli.devices"
SOLICITATION_SIZE = 92


def listed(result):
    assert result.code == 0, result
    report = result.json()
    devices = report["devices"]
    assert devices and devices[0]["this_device"] is True, report
    assert not any(d["this_device"] for d in devices[1:]), report
    return report, {d["id"]: d for d in devices[1:]}


def devices_until(device, predicate, *args, env=None):
    """Runs `devices --json` until `predicate(by_id)` holds (bounded)."""
    deadline = time.monotonic() + WAIT
    while True:
        report, by_id = listed(device.run("--json", "devices", *args, env=env))
        if predicate(by_id):
            return report, by_id
        assert time.monotonic() < deadline, f"never matched: {report}"
        time.sleep(0.2)


def embedded(own_port, peer_port, listen="4"):
    return ["--embedded", "--listen", listen, *loopback(own_port, peer_port)]


def test_devices_lists_the_other_device_once_its_channel_verified(pair, ports, tmp_path, procs):
    a, b = pair
    sender, published = publish(b, ports[1], ports[0], "--type", TYPE)
    b_id = published["device"]["id"]
    # A device of another account beaconing to A is never listed.
    stranger = Device(tmp_path, "stranger", procs)
    assert stranger.run("account", "create").code == 0
    other, other_published = publish(stranger, free_port(), ports[0], "--type", TYPE)

    report, by_id = devices_until(a, lambda d: d.get(b_id, {}).get("reachable") is True, *embedded(*ports))
    assert report["via"] == "embedded" and report["account"] == a.run("--json", "account", "show").json()["account"]
    me = report["devices"][0]
    assert me["name"] == "Device A" and me["role"] == "full" and me["reachable"] is None and me["channel_port"] > 0
    row = by_id[b_id]
    assert row["name"] == "Device B" and row["role"] == "full" and row["error"] is None, row
    # Both run this release: they agreed on its protocol revision (PROTOCOL.md §10).
    assert row["protocol_revision"] == me["protocol_revision"] >= 2, report
    assert row["addresses"] and all(addr.startswith("127.0.0.1:") for addr in row["addresses"]), row
    assert row["last_seen"] >= 0
    assert other_published["device"]["id"] not in by_id, report

    human = a.run("devices", *embedded(*ports))
    assert human.code == 0, human
    assert human.out.startswith("Devices of account ") and "\n* Device A (this device)\n" in human.out, human
    for proc in (sender, other):
        proc.signal(signal.SIGINT)
        assert proc.wait() == 0


def test_a_device_whose_channel_is_closed_is_unreachable_with_the_error(pair, ports):
    a, b = pair
    # B's beacons are caught on a port of the test's, then B is killed: its
    # channel port is closed, and its beacons (fresh, never heard by A) are
    # given to A, as a replay of a device that is gone would be.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as catcher:
        catcher.bind(("127.0.0.1", 0))
        catcher.settimeout(WAIT)
        sender, published = publish(b, ports[1], catcher.getsockname()[1], "--type", TYPE)
        # Until an advert is caught: B solicits too when it starts, and a
        # solicitation (no activity: the smallest beacon, 92 bytes,
        # PROTOCOL "Receiving") does not make A list it.
        packets = []
        while not any(len(packet) > SOLICITATION_SIZE for packet in packets):
            assert len(packets) < 64, [len(packet) for packet in packets]
            packets.append(catcher.recv(2048))
        sender.kill()
    b_id = published["device"]["id"]

    # Shorter than the 12 s a device stays known unheard: nothing renews it.
    devices = a.spawn("--json", "devices", *embedded(ports[0], free_port(), listen="6"))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as replayer:
        # Until `devices` ends: each copy before its engine listens is
        # dropped unseen; the first after is accepted, later ones are replays.
        deadline = time.monotonic() + WAIT
        while devices.proc.poll() is None and time.monotonic() < deadline:
            for packet in packets:
                replayer.sendto(packet, ("127.0.0.1", ports[0]))
            time.sleep(0.2)
    assert devices.wait() == 0, devices.stderr
    report = devices.events()[-1]
    row = {d["id"]: d for d in report["devices"]}[b_id]
    assert row["name"] == "Device B" and row["reachable"] is False, row
    error = row["error"]
    assert error["address"] in row["addresses"] and error["address"].startswith("127.0.0.1:"), row
    assert error["code"] == 4609 and "connection refused" in error["message"], row
    assert report["via"] == "embedded"


def test_devices_through_the_agent_answers_from_its_table(pair, ports, tmp_path):
    a, b = pair
    path = tmp_path / "run" / "agent.sock"
    agent = start_agent(a, path, ports[0], ports[1])
    env = with_agent(a, path)
    sender, published = publish(b, ports[1], ports[0], "--type", TYPE)
    b_id = published["device"]["id"]

    report, by_id = devices_until(a, lambda d: d.get(b_id, {}).get("reachable") is True, env=env)
    assert report["via"] == "agent", report
    assert report["devices"][0]["name"] == "Device A" and report["devices"][0]["channel_port"] > 0
    assert by_id[b_id]["name"] == "Device B" and by_id[b_id]["role"] == "full"
    human = a.run("devices", env=env)
    assert human.code == 0 and "through the handoff agent" in human.out, human
    assert "\n  Device B\n" in human.out and "\n    reachable\n" in human.out + "\n", human
    # --agent with a device-level option is a usage error, as for nearby.
    refused = a.run("--json", "devices", "--agent", "--peer", f"127.0.0.1:{ports[1]}", env=env)
    assert refused.code == 2 and "--peer" in refused.json()["error"]["message"], refused

    sender.signal(signal.SIGINT)
    assert sender.wait() == 0
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_a_send_only_devices_role(pair, ports):
    a, b = pair
    assert b.run("device", "--role", "send-only").code == 0
    sender, published = publish(b, ports[1], ports[0], "--type", TYPE)
    b_id = published["device"]["id"]
    _, by_id = devices_until(a, lambda d: d.get(b_id, {}).get("reachable") is True, *embedded(*ports))
    assert by_id[b_id]["role"] == "send-only" and by_id[b_id]["name"] == "Device B"
    sender.signal(signal.SIGINT)
    assert sender.wait() == 0

    # On the send-only device: itself first, as send-only; A (offering an
    # activity) is heard, but never verified there: nothing is offered to it.
    a_sender, a_published = publish(a, ports[0], ports[1], "--type", TYPE)
    a_id = a_published["device"]["id"]
    # B does not solicit (send-only): it hears A's keep-alives (every 4 s).
    report, by_id = devices_until(b, lambda d: a_id in d, *embedded(ports[1], ports[0], listen="6"))
    assert report["devices"][0]["role"] == "send-only" and report["devices"][0]["name"] == "Device B"
    assert by_id[a_id]["reachable"] is None and by_id[a_id]["error"] is None, by_id
    a_sender.signal(signal.SIGINT)
    assert a_sender.wait() == 0
