# SPDX-License-Identifier: MIT OR Apache-2.0
"""nearby, continue and doctor through a running agent (one discovery
pipeline: the tool opens no beacon socket of its own then), and the rule
that chooses between the agent and an engine of the tool's own."""
import os
import signal
from pathlib import Path

from cli_support import publish

TYPE = "com.example.cli.source"


def start_agent(device, socket_path, own_port, peer_port):
    from test_cli_agent import start_agent as start
    return start(device, socket_path, own_port, peer_port)


def with_agent(device, path):
    return dict(device.env, HANDOFF_AGENT_SOCKET=str(path))


def udp_socket_inodes():
    """Inodes of every UDP socket of this network namespace."""
    inodes = set()
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        inodes.update(line.split()[9] for line in lines if len(line.split()) > 9)
    return inodes


def socket_inodes(pid):
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


def test_nearby_continue_and_doctor_go_through_the_agent(pair, ports, tmp_path):
    a, b = pair
    path = tmp_path / "run" / "agent.sock"
    agent = start_agent(a, path, ports[0], ports[1])
    env = with_agent(a, path)

    watcher = a.spawn("--json", "nearby", env=env)
    listening = watcher.event("listening")
    assert listening["via"] == "agent" and listening["socket"] == str(path), listening
    sender, published = publish(b, ports[1], ports[0], "--type", TYPE, "--title", "Through the agent",
                                "--info", "n:int=7")
    available = watcher.event("available", id=published["id"])
    assert available["type"] == TYPE and available["title"] == "Through the agent"
    assert available["device"] == {"id": published["device"]["id"], "name": "Device B"}
    assert available["team"] == "HANDOFFCLI" and available["expires"] is None
    # The agent holds the beacons: nearby has a Unix socket to it, no UDP socket.
    assert not socket_inodes(watcher.proc.pid) & udp_socket_inodes()
    assert socket_inodes(agent.proc.pid) & udp_socket_inodes()

    continued = a.run("--json", "continue", published["id"], env=env)
    assert continued.code == 0, continued
    assert continued.json()["user_info"] == {"n": 7} and continued.json()["device"]["name"] == "Device B"
    assert continued.json()["via"] == "agent"
    sender.event("continued", id=published["id"])

    doctor = a.run("--json", "doctor", "--listen", "6", env=env)
    report = doctor.json()
    assert report["via"] == "agent", report
    by_check = {f["check"]: f for f in report["findings"]}
    assert "handoff agent" in by_check["beacon.port"]["what"]
    assert by_check["beacons"]["status"] == "ok" and "Device B (127.0.0.1)" in by_check["beacons"]["what"]
    assert report["beacons"]["accepted"] >= 1 and report["beacons"]["foreign"] == 0, report["beacons"]

    sender.signal(signal.SIGINT)
    assert sender.wait() == 0
    watcher.event("withdrawn", id=published["id"])
    watcher.signal(signal.SIGTERM)
    assert watcher.wait() == 0
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_a_network_option_or_embedded_means_an_engine_of_its_own(pair, ports, tmp_path):
    a, b = pair
    path = tmp_path / "run" / "agent.sock"
    agent = start_agent(a, path, ports[0], ports[1])
    env = with_agent(a, path)
    for extra in (["--beacon-port", "0", "--no-multicast", "--peer", f"127.0.0.1:{ports[1]}"],
                  ["--embedded", "--beacon-port", "0", "--no-multicast", "--peer", f"127.0.0.1:{ports[1]}"]):
        result = a.run("--json", "nearby", "--timeout", "0.5", *extra, env=env)
        assert result.code == 0, result
        assert result.json()["via"] == "embedded", result
    refused = a.run("--json", "nearby", "--agent", "--peer", f"127.0.0.1:{ports[1]}", env=env)
    assert refused.code == 2 and "--peer" in refused.json()["error"]["message"], refused
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_agent_flag_without_an_agent_fails_with_4609(pair, tmp_path):
    a, _ = pair
    env = with_agent(a, tmp_path / "none" / "agent.sock")
    result = a.run("--json", "nearby", "--agent", "--timeout", "1", env=env)
    assert result.code == 1, result
    assert result.json()["error"]["code"] == 4609
    # Automatic with no agent: an engine of its own, said so.
    result = a.run("--json", "nearby", "--timeout", "0.5", env=env)
    assert result.code == 0 and result.json()["via"] == "embedded", result
