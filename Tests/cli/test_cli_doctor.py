# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff doctor` on a healthy set-up and on broken ones: each finding's
status, what it says to do, and the exit status (1 when a check fails).
Only loopback: multicast is off in every run (joining a group would send
membership reports onto the host's network)."""

import os
import re
import signal
import socket
import stat
import sys
import threading
import time

import pytest

from cli_support import ROOT, Device, free_port, publish

sys.path.insert(0, str(ROOT / "Tests" / "integration"))
import beaconkit  # noqa: E402  (beacons sealed from Python, as docs/PROTOCOL.md §5 defines them)


def doctor(device, *args, env=None):
    result = device.run("--json", "doctor", "--no-multicast", *args, env=env)
    report = result.json()
    by_check = {}
    for finding in report["findings"]:
        by_check.setdefault(finding["check"], []).append(finding)
    return result, report, by_check


def statuses(by_check, check):
    return [f["status"] for f in by_check.get(check, [])]


def test_healthy_set_up(pair, ports):
    a, b = pair
    _, published = publish(a, ports[0], ports[1], "--type", "com.example.cli.edit")
    channel = f"127.0.0.1:{published['channel_port']}"
    result, report, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "10", "--peer", channel)
    assert result.code == 0, result
    assert report["ok"] is True and report["failures"] == 0
    assert statuses(by_check, "account.file") == ["ok"]
    assert report["account"] == a.run("--json", "account", "show").json()["account"]
    assert statuses(by_check, "device") == ["ok"]
    assert statuses(by_check, "beacon.port") == ["ok"]
    assert statuses(by_check, "multicast") == ["ok"]
    assert statuses(by_check, "channel.local") == ["ok"]
    # A's beacons arrived, and A's channel (given, and heard) authenticates.
    assert statuses(by_check, "beacons") == ["ok"]
    assert "Device A (127.0.0.1)" in by_check["beacons"][0]["what"]
    assert statuses(by_check, "channel.peer") == ["ok"]
    assert channel in by_check["channel.peer"][0]["what"]
    assert all(f["todo"] is None for f in report["findings"] if f["status"] == "ok")


def test_human_report(pair, ports):
    _, b = pair
    result = b.run("doctor", "--no-multicast", "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 0, result
    assert "[ok  ] account.file:" in result.out
    assert "0 failure(s)." in result.out


def test_a_world_readable_key_fails(pair, ports):
    _, b = pair
    os.chmod(b.account_file, 0o644)
    result, report, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 1, result
    assert report["ok"] is False
    (finding,) = by_check["account.file"]
    assert finding["status"] == "fail"
    assert "readable by others" in finding["what"]
    assert finding["todo"].startswith(f"chmod 600 {b.account_file}")
    # The other checks still ran.
    assert statuses(by_check, "beacon.port") == ["ok"]


def test_an_open_account_directory_warns(pair, ports):
    _, b = pair
    os.chmod(b.directory, 0o755)
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 0, result
    assert statuses(by_check, "account.directory") == ["warn"]
    assert by_check["account.directory"][0]["todo"] == f"chmod 700 {b.directory}"


def test_a_symlinked_account_directory_fails(pair, ports, tmp_path):
    _, b = pair
    real = tmp_path / "real-handoff"
    os.rename(b.directory, real)
    os.symlink(real, b.directory)
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "account.directory") == ["fail"]
    (finding,) = by_check["account.directory"]
    assert "is a symbolic link" in finding["what"]
    assert "mkdir -m 700" in finding["todo"] and "readlink -f" in finding["todo"]


def test_an_account_directory_others_may_write_fails(pair, ports):
    _, b = pair
    os.chmod(b.directory, 0o770)
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "account.directory") == ["fail"]
    assert "writable by others" in by_check["account.directory"][0]["what"]
    assert by_check["account.directory"][0]["todo"] == f"chmod 700 {b.directory}"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_an_account_directory_of_another_user_fails(pair, ports):
    _, b = pair
    os.chown(b.directory, 4242, -1)
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "account.directory") == ["fail"]
    assert "belongs to user id 4242" in by_check["account.directory"][0]["what"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_key_file_of_another_user_fails(pair, ports):
    _, b = pair
    os.chown(b.account_file, 4242, -1)
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "account.file") == ["fail"]
    assert "belongs to user 4242" in by_check["account.file"][0]["what"]


def test_no_account_fails_and_says_how_to_make_one(device):
    result, _, by_check = doctor(device, "--beacon-port", free_port(), "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "account.file") == ["fail"]
    assert "handoff account create" in by_check["account.file"][0]["todo"]
    assert not device.directory.exists()  # doctor changes nothing


def test_a_beacon_port_held_by_another_program_fails(pair):
    _, b = pair
    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("0.0.0.0", port))  # no SO_REUSEADDR/SO_REUSEPORT: not shared
        result, _, by_check = doctor(b, "--beacon-port", port, "--listen", "0")
    assert result.code == 1, result
    assert statuses(by_check, "beacon.port") == ["fail"]
    assert f"sport = :{port}" in by_check["beacon.port"][0]["todo"]


def test_an_unreachable_peer_channel_fails(pair, ports):
    _, b = pair
    closed = free_port()  # nothing listens there
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", "--peer", f"127.0.0.1:{closed}")
    assert result.code == 1, result
    (finding,) = by_check["channel.peer"]
    assert finding["status"] == "fail"
    assert "connection refused" in finding["what"]
    assert "firewall" in finding["todo"]


def test_a_peer_on_another_account_fails_its_handshake(pair, ports, tmp_path, procs):
    _, b = pair
    stranger = Device(tmp_path, "stranger", procs)
    assert stranger.run("account", "create").code == 0
    _, published = publish(stranger, ports[0], ports[1], "--type", "com.example.cli.edit")
    result, _, by_check = doctor(b, "--beacon-port", free_port(), "--listen", "0",
                                 "--peer", f"127.0.0.1:{published['channel_port']}")
    assert result.code == 1, result
    (finding,) = by_check["channel.peer"]
    assert finding["status"] == "fail" and "TLS handshake fails" in finding["what"]
    assert "another account" in finding["todo"]


def test_beacons_of_another_account_are_told_apart_from_silence(pair, ports, tmp_path, procs):
    _, b = pair
    stranger = Device(tmp_path, "stranger", procs)
    assert stranger.run("account", "create").code == 0
    publish(stranger, ports[0], ports[1], "--type", "com.example.cli.edit")
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "10")
    assert result.code == 0, result  # a warning, not a failure
    assert statuses(by_check, "beacons.foreign") == ["warn"]
    assert "127.0.0.1" in by_check["beacons.foreign"][0]["what"]
    assert "handoff account join" in by_check["beacons.foreign"][0]["todo"]
    assert "beacons" not in by_check  # not reported as "nothing arrived"


def test_garbage_on_the_beacon_port_is_counted_not_trusted(pair, ports):
    """Hostile input: datagrams of a beacon's size that are not beacons."""
    _, b = pair
    stop = threading.Event()

    def spray():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            while not stop.is_set():
                s.sendto(os.urandom(64 * 2 + 28), ("127.0.0.1", ports[1]))
                s.sendto(b"\x00" * 1500, ("127.0.0.1", ports[1]))  # oversize: dropped before opening
                stop.wait(0.05)

    thread = threading.Thread(target=spray, daemon=True)
    thread.start()
    try:
        result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "3")
    finally:
        stop.set()
        thread.join()
    assert result.code == 0, result
    assert statuses(by_check, "beacons.foreign") == ["warn"]


def test_silence_says_what_usually_blocks_beacons(pair, ports):
    _, b = pair
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "1")
    assert result.code == 0, result
    (finding,) = by_check["beacons"]
    assert finding["status"] == "warn" and "no beacon arrived" in finding["what"]
    for hint in ("subnet", "isolation", "--peer", "firewall"):
        assert hint in finding["todo"]


# ------------------------------------------- clocks, replays and copies

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def account_key(device):
    """The 32-byte account key in a device's pairing code (Crockford base32
    of key || SHA-256(key)[:4])."""
    code = device.account_file.read_text().strip().replace("-", "")
    number = 0
    for c in code:
        number = number << 5 | CROCKFORD.index(c)
    payload = (number >> 2).to_bytes(36, "big")   # 58 * 5 = 290 bits: 2 padding bits
    return payload[:32]


def beacon(key, timestamp, sequence, device_id, name, channel_port):
    """A sealed withdrawal (of everything): authentic, and offers nothing."""
    return beaconkit.seal(key, beaconkit.plaintext(beaconkit.WITHDRAW, timestamp, sequence, device_id, name,
                                                   channel_port))


def doctor_while_sending(device, port, packets_per_round, listen=3):
    """Runs doctor on `port` while a thread sends each round's packets
    there every 50 ms (bounded by doctor's own end)."""
    stop = threading.Event()
    rounds = []

    def send():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for n in range(2000):
                if stop.is_set():
                    return
                for packet in packets_per_round(n):
                    s.sendto(packet, ("127.0.0.1", port))
                rounds.append(n)
                stop.wait(0.05)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        return doctor(device, "--beacon-port", port, "--listen", listen)
    finally:
        stop.set()
        thread.join()


def test_a_skewed_clock_is_reported_by_how_much_and_from_whom(pair, ports):
    """A device of the account whose clock is 10 minutes behind: its
    beacons are authentic but stale. Doctor names it and the difference."""
    _, b = pair
    key = beaconkit.beacon_key(account_key(b))
    device_id = os.urandom(16)

    def stale(n):
        now = int(time.time() * 1000)
        return [beacon(key, now - 600_000, now * 1000 + n, device_id, "Slow Laptop", 40000)]

    result, report, by_check = doctor_while_sending(b, ports[1], stale)
    assert result.code == 0, result
    (finding,) = by_check["beacons.stale"]
    assert finding["status"] == "warn"
    assert re.search(r"Slow Laptop \(127\.0\.0\.1\) is 10 min \d+ s behind this device's clock", finding["what"]), finding
    assert "timedatectl set-ntp true" in finding["todo"]
    assert report["beacons"]["stale"] >= 1 and report["beacons"]["accepted"] == 0, report["beacons"]
    assert "beacons.replayed" not in by_check and "channel.peer" not in by_check
    assert "beacons" not in by_check  # not reported as "nothing arrived"


def test_a_clock_ahead_is_said_to_be_ahead(pair, ports):
    _, b = pair
    key = beaconkit.beacon_key(account_key(b))
    device_id = os.urandom(16)

    def ahead(n):
        now = int(time.time() * 1000)
        return [beacon(key, now + 3 * 3600_000, now * 1000 + n, device_id, "Fast Phone", 40000)]

    _, _, by_check = doctor_while_sending(b, ports[1], ahead)
    (finding,) = by_check["beacons.stale"]
    assert re.search(r"Fast Phone \(127\.0\.0\.1\) is (2 h 59 min|3 h 0 min) ahead", finding["what"]), finding


def test_copies_are_counted_and_replays_are_not_called_clock_skew(pair, ports):
    """Each round sends a fresh beacon twice (a copy, as dual-stack links
    deliver) and a beacon older than the last eight accepted (a replay).
    Doctor counts the copies as duplicates, reports the replay as a replay
    (with where it came from), and says nothing about clocks."""
    _, b = pair
    key = beaconkit.beacon_key(account_key(b))
    device_id = os.urandom(16)
    closed = free_port()   # its channel: nothing listens there
    base = int(time.time() * 1000) * 1000
    first = []

    def rounds(n):
        now = int(time.time() * 1000)
        fresh = beacon(key, now, base + 100 + n, device_id, "Replayed Device", closed)
        if not first:
            first.append(fresh)
        # The first beacon again, once eight newer ones were accepted: a replay.
        return [fresh, fresh] + (first if n >= 10 else [])

    result, report, by_check = doctor_while_sending(b, ports[1], rounds)
    counts = report["beacons"]
    assert counts["accepted"] >= 11 and counts["duplicates"] >= 11 and counts["replays"] >= 1, counts
    assert counts["stale"] == 0, counts
    assert "beacons.stale" not in by_check, result
    (replayed,) = by_check["beacons.replayed"]
    assert replayed["status"] == "warn"
    assert "Replayed Device from 127.0.0.1" in replayed["what"] and "re-sending captured beacons" in replayed["what"]
    assert "clock" in replayed["what"] and "no clock is wrong" in replayed["what"]
    assert [f["status"] for f in by_check["beacons.duplicate"]] == ["ok"]
    assert "Replayed Device (127.0.0.1)" in by_check["beacons"][0]["what"]
    # The device was heard over IPv4 only: its channel is tried there, and named.
    (channel,) = by_check["channel.peer"]
    assert f"IPv4 127.0.0.1:{closed} refused the connection" in channel["what"], channel
    assert "IPv6" not in channel["what"]
    assert result.code == 1, result  # the unreachable channel is a failure


# ---------------------------------------------------------------- firewall

def fake_tools(tmp_path, nft=None, iptables=None):
    """A PATH whose nft/iptables print the given rules (exit status, text)."""
    folder = tmp_path / "fakebin"
    folder.mkdir()
    for name, spec in (("nft", nft), ("iptables", iptables)):
        status, text = spec if spec else (0, "")
        script = folder / name
        script.write_text("#!/bin/sh\ncat <<'RULES'\n" + text + "\nRULES\nexit " + str(status) + "\n")
        script.chmod(0o755)
    return str(folder) + os.pathsep + os.environ.get("PATH", "")


NFT_DROP = """table inet filter {
	chain input {
		type filter hook input priority filter; policy drop;
		ct state established,related accept
		tcp dport 22 accept
	}
}"""


def test_a_firewall_that_drops_input_gets_the_rule_to_add(pair, ports, tmp_path):
    _, b = pair
    env = dict(b.env, PATH=fake_tools(tmp_path, nft=(0, NFT_DROP), iptables=(0, "-P INPUT ACCEPT")))
    result, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", env=env)
    assert result.code == 0, result
    (finding,) = by_check["firewall"]
    assert finding["status"] == "warn" and "drops incoming traffic by default" in finding["what"]
    assert f"udp dport {ports[1]} accept" in finding["todo"]


def test_a_firewall_that_accepts_the_beacon_port(pair, ports, tmp_path):
    _, b = pair
    rules = NFT_DROP.replace("tcp dport 22 accept", f"udp dport {{ 5353, {ports[1]} }} accept")
    env = dict(b.env, PATH=fake_tools(tmp_path, nft=(0, rules), iptables=(0, "-P INPUT ACCEPT")))
    _, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", env=env)
    assert "firewall" not in by_check
    assert statuses(by_check, "firewall.channel") == ["warn"]  # the TCP channel still needs a rule


def test_an_iptables_rule_dropping_the_port(pair, ports, tmp_path):
    _, b = pair
    rules = f"-P INPUT ACCEPT\n-A INPUT -p udp -m udp --dport {ports[1] - 5}:{ports[1] + 5} -j DROP"
    env = dict(b.env, PATH=fake_tools(tmp_path, nft=(0, ""), iptables=(0, rules)))
    _, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", env=env)
    (finding,) = by_check["firewall"]
    assert finding["status"] == "warn" and "drops the beacon port" in finding["what"]


def test_unreadable_firewall_rules_are_said_so(pair, ports, tmp_path):
    _, b = pair
    env = dict(b.env, PATH=fake_tools(tmp_path, nft=(1, "Operation not permitted"), iptables=(4, "Permission denied")))
    _, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", env=env)
    (finding,) = by_check["firewall"]
    assert finding["status"] == "warn" and "sudo handoff doctor" in finding["todo"]


def test_an_open_firewall(pair, ports, tmp_path):
    _, b = pair
    env = dict(b.env, PATH=fake_tools(tmp_path, nft=(0, "table inet filter {\n}"), iptables=(0, "-P INPUT ACCEPT")))
    _, _, by_check = doctor(b, "--beacon-port", ports[1], "--listen", "0", env=env)
    assert statuses(by_check, "firewall") == ["ok"]


def test_an_interrupted_doctor_reports_what_it_has_and_fails(pair, ports):
    _, b = pair
    running = b.spawn("doctor", "--no-multicast", "--beacon-port", ports[1], "--listen", "60")
    running.expect_line("channel.local")  # the last check before the listen window
    running.signal(signal.SIGTERM)
    assert running.wait() == 1
    assert any("interrupted while listening" in line for line in running.lines)
    assert not any("firewall" in line for line in running.lines)  # the rest was skipped
