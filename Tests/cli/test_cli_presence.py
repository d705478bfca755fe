# SPDX-License-Identifier: MIT OR Apache-2.0
"""Devices always visible (docs/PROTOCOL.md §5 "Presence"): two agents on
loopback, B's offering nothing. A lists B online once B answered A's
solicitation with a presence beacon and its channel verified; offline,
with when it was last seen, once B stops (its last beacon says it
leaves); and still offline after A's agent restarts (the roster next to
the account). `handoff doctor` through A's agent does not warn about
silence while B is online. Loopback only."""
import pathlib
import re
import signal
import stat
import time

from cli_support import WAIT
from test_cli_agent import start_agent
from test_cli_nearby_source import with_agent

# The revision this tree speaks, from its one source.
REVISION = int(re.search(r"public static let current = (\d+)",
                         (pathlib.Path(__file__).parents[2] / "Sources/HandoffContinuity/Versioning/ProtocolRevision.swift")
                         .read_text()).group(1))


def rows(device, env):
    result = device.run("--json", "devices", env=env)
    assert result.code == 0, result
    report = result.json()
    assert report["via"] == "agent", report
    return report, {d["id"]: d for d in report["devices"][1:]}


def until(device, env, predicate):
    """Runs `devices --json` through the agent until `predicate(by_id)` holds (bounded)."""
    deadline = time.monotonic() + WAIT
    while True:
        report, by_id = rows(device, env)
        if predicate(by_id):
            return report, by_id
        assert time.monotonic() < deadline, f"never matched: {report}"
        time.sleep(0.2)


def device_id(device):
    return device.run("--json", "device").json()["device"]["id"]


def test_an_idle_device_is_listed_online_then_offline_and_kept_across_restarts(pair, ports, tmp_path):
    a, b = pair
    b_id = device_id(b)
    # B first, idle: its presence at start reaches no one (A is not there);
    # A's agent solicits when it starts, and B answers with a presence.
    b_agent = start_agent(b, tmp_path / "run-b" / "agent.sock", ports[1], ports[0])
    a_path = tmp_path / "run-a" / "agent.sock"
    a_agent = start_agent(a, a_path, ports[0], ports[1])
    env = with_agent(a, a_path)

    _, by_id = until(a, env, lambda d: d.get(b_id, {}).get("online") is True)
    row = by_id[b_id]
    assert row["name"] == "Device B" and row["reachable"] is True and row["protocol_revision"] == REVISION, row
    assert row["last_seen"] >= 0 and row["addresses"], row
    human = a.run("devices", env=env)
    assert human.code == 0 and "\n  Device B\n" in human.out and "online, seen " in human.out, human
    assert "No other device" not in human.err, human

    # Doctor through A's agent: B offers nothing and is quiet in the
    # window (its next presence is a minute away; the pause only puts its
    # last beacon before the window), yet online: nothing is reported missing.
    time.sleep(3)
    doctor = a.run("--json", "doctor", "--listen", "1", env=env)
    findings = [f for f in doctor.json()["findings"] if f["check"] == "beacons"]
    assert [f["status"] for f in findings] == ["ok"], findings
    assert "Device B" in findings[0]["what"] and "online" in findings[0]["what"], findings

    # The roster is written next to the account at B's verification.
    roster = a.config / "handoff" / "devices"
    assert stat.S_IMODE(roster.stat().st_mode) == 0o600
    assert f"device={b_id} full " in roster.read_text()

    # B stops cleanly: offline at once, still listed, with its last seen.
    b_agent.signal(signal.SIGTERM)
    assert b_agent.wait() == 0
    _, by_id = until(a, env, lambda d: d.get(b_id, {}).get("online") is False)
    row = by_id[b_id]
    assert row["reachable"] is None and row["addresses"] == [] and row["last_seen"] >= 0, row
    human = a.run("devices", env=env)
    assert "offline, last seen " in human.out and "not heard now" in human.out, human

    # A's agent restarts: B (still off) is listed offline from the roster.
    a_agent.signal(signal.SIGTERM)
    assert a_agent.wait() == 0
    a_agent = start_agent(a, a_path, ports[0], ports[1])
    _, by_id = rows(a, env)
    assert by_id[b_id]["online"] is False and by_id[b_id]["name"] == "Device B", by_id
    a_agent.signal(signal.SIGTERM)
    assert a_agent.wait() == 0
