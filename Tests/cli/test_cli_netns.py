"""Real multicast between two "hosts": network namespaces a and b joined
by a veth pair, which the tests create and always delete (needs root and
iproute2, as CI has). The tool runs with its defaults there: multicast on
the standard beacon port. Plus a host with no network at all."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from cli_support import Device, pair_of_devices

PREFIX = "hcli-"


def ip(*args, check=True):
    return subprocess.run(["ip", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10,
                          check=check)


def namespaces():
    return [line.split()[0] for line in ip("netns", "list", check=False).stdout.splitlines() if line.strip()]


def delete_namespace(ns):
    """Kills what still runs in it, then deletes it (its veth end goes too)."""
    for pid in ip("netns", "pids", ns, check=False).stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    for _ in range(50):
        if ip("netns", "del", ns, check=False).returncode == 0 or ns not in namespaces():
            return
        time.sleep(0.1)


def preclean():
    """Leftovers of an earlier run whose process is gone."""
    for ns in namespaces():
        match = re.fullmatch(re.escape(PREFIX) + r"(\d+)-\w+", ns)
        if not match or int(match.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            delete_namespace(ns)
        except PermissionError:
            pass


@pytest.fixture(scope="module")
def hosts():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("the ip tool (iproute2) is not installed")
    preclean()
    names = {x: f"{PREFIX}{os.getpid()}-{x}" for x in ("a", "b", "alone")}
    created = []
    try:
        for ns in names.values():
            ip("netns", "add", ns)
            created.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
        subnet = f"10.214.{os.getpid() % 254 + 1}"
        ip("-n", names["a"], "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", names["b"])
        for number, x in enumerate(("a", "b"), start=1):
            ip("-n", names[x], "addr", "add", f"{subnet}.{number}/24", "dev", "eth0")
            ip("-n", names[x], "link", "set", "eth0", "up")
        deadline = time.monotonic() + 10
        for x in ("a", "b"):
            while "LOWER_UP" not in ip("-n", names[x], "link", "show", "eth0").stdout:
                assert time.monotonic() < deadline, f"veth of {x} never came up"
                time.sleep(0.05)
        yield names
    finally:
        for ns in created:
            delete_namespace(ns)
        assert not [ns for ns in namespaces() if ns in names.values()]


def test_multicast_discovery_and_continue_between_hosts(hosts, tmp_path, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    sender = a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "Over the wire",
                     "--info", "page:int=4", "--once")
    published = sender.event("publishing")
    assert published["beacon_port"] == 52370

    seen = b.run("--json", "nearby", "--once", "--timeout", "40")
    assert seen.code == 0, seen
    assert seen.json()["id"] == published["id"] and seen.json()["channel"].startswith("10.214.")

    continued = b.run("--json", "continue", published["id"])
    assert continued.code == 0, continued
    assert continued.json()["user_info"] == {"page": 4}
    sender.event("continued", id=published["id"])
    assert sender.wait() == 0


def test_doctor_sees_membership_and_beacons_over_multicast(hosts, tmp_path, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    # The veth has IPv6 link-local addresses too: doctor tries the channel
    # over both families, so it listens on both ([::], the engine's default
    # once the dual-stack channel is merged).
    a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--channel", "[::]:0").event("publishing")
    result = b.run("--json", "doctor", "--listen", "10")
    assert result.code == 0, result
    findings = {f["check"]: f for f in result.json()["findings"]}
    assert findings["multicast.membership"]["status"] == "ok"
    assert "239.255.72.79 on eth0" in findings["multicast.membership"]["what"]
    assert "ff02::4841:4e44 on eth0" in findings["multicast.membership"]["what"]
    assert findings["beacons"]["status"] == "ok" and "Device A (10.214." in findings["beacons"]["what"]
    assert findings["channel.peer"]["status"] == "ok"


def test_doctor_on_a_host_without_network(hosts, tmp_path, procs):
    alone = Device(tmp_path, "alone", procs, hosts["alone"])
    assert alone.run("account", "create").code == 0
    result = alone.run("--json", "doctor", "--listen", "0")
    findings = {f["check"]: f for f in result.json()["findings"]}
    assert findings["interfaces"]["status"] == "warn"
    assert findings["multicast.membership"]["status"] == "warn"
    assert "--peer" in findings["multicast.membership"]["todo"]
    assert result.code == 0, result  # warnings only: nothing is broken on this device itself


# ------------------------------------------------------------ dual stack

CHANNEL_PORT = 40123


@pytest.fixture
def dual_stack():
    """dual_stack(drop_ipv4_in_a): namespaces a and b on one veth pair with
    IPv4 and IPv6 (link-local, and fd00:214::N without duplicate address
    detection, usable at once). With drop_ipv4_in_a, nft in a drops every
    IPv4 packet arriving on its eth0 (its own IPv4 beacons still go out).
    Named hcli-<pid>-ds<x>, always deleted."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    created = []

    def make(drop_ipv4_in_a):
        for tool in ("ip",) + (("nft",) if drop_ipv4_in_a else ()):
            if shutil.which(tool) is None:
                pytest.skip(f"{tool} is not installed (scripts/install-deps.sh installs it)")
        preclean()
        names = {x: f"{PREFIX}{os.getpid()}-ds{x}" for x in ("a", "b")}
        for ns in names.values():
            ip("netns", "add", ns)
            created.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0",
                            "net.ipv6.conf.default.accept_dad=0"], check=True, timeout=10, capture_output=True)
        subnet = f"10.215.{os.getpid() % 254 + 1}"
        ip("-n", names["a"], "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", names["b"])
        for number, x in enumerate(("a", "b"), start=1):
            ip("-n", names[x], "addr", "add", f"{subnet}.{number}/24", "dev", "eth0")
            ip("-n", names[x], "addr", "add", f"fd00:215::{number}/64", "dev", "eth0", "nodad")
            ip("-n", names[x], "link", "set", "eth0", "up")
        if drop_ipv4_in_a:
            subprocess.run(["ip", "netns", "exec", names["a"], "nft",
                            "add table ip hcli; "
                            "add chain ip hcli in { type filter hook input priority 0; policy accept; }; "
                            "add rule ip hcli in iifname \"eth0\" drop"], check=True, timeout=10, capture_output=True)
        deadline = time.monotonic() + 10
        for x in ("a", "b"):
            while True:
                link = ip("-n", names[x], "link", "show", "eth0").stdout
                addrs = ip("-n", names[x], "addr", "show", "dev", "eth0").stdout
                if "LOWER_UP" in link and "fe80::" in addrs and "tentative" not in addrs:
                    break
                assert time.monotonic() < deadline, f"eth0 of {x} never came up\n{addrs}"
                time.sleep(0.05)
        return names, subnet

    yield make
    for ns in created:
        delete_namespace(ns)
    assert not [ns for ns in namespaces() if ns in created]


def doctor_report(device):
    """doctor in b with its defaults (multicast, port 52370), listening long
    enough for the burst and two keep-alives of a publisher."""
    result = device.run("--json", "doctor", "--listen", "10", "--connect-timeout", "3")
    report = result.json()
    by_check = {}
    for finding in report["findings"]:
        by_check.setdefault(finding["check"], []).append(finding)
    return result, report, by_check


def test_doctor_on_a_dual_stack_link_counts_copies_not_replays(dual_stack, tmp_path, procs):
    """Every beacon arrives twice (IPv4 and IPv6): doctor counts the second
    copies as duplicates, warns about no clock and no replay, and reaches the
    channel over both families, naming each."""
    names, subnet = dual_stack(False)
    a, b = pair_of_devices(tmp_path, procs, netns=(names["a"], names["b"]))
    a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--channel", f"[::]:{CHANNEL_PORT}").event("publishing")
    result, report, by_check = doctor_report(b)
    assert result.code == 0, result
    counts = report["beacons"]
    assert counts["accepted"] >= 1 and counts["duplicates"] >= 1, counts
    assert counts["replays"] == 0 and counts["stale"] == 0, counts
    assert "beacons.stale" not in by_check and "beacons.replayed" not in by_check, result
    assert [f["status"] for f in by_check["beacons.duplicate"]] == ["ok"]
    (heard,) = by_check["beacons"]
    assert heard["status"] == "ok" and f"{subnet}.1" in heard["what"] and "fe80::" in heard["what"]
    (channel,) = by_check["channel.peer"]
    assert channel["status"] == "ok", channel
    assert f"reached over IPv4 {subnet}.1:{CHANNEL_PORT}" in channel["what"]
    assert "reached over IPv6 [fe80::" in channel["what"] and f"%eth0]:{CHANNEL_PORT}" in channel["what"]


def test_doctor_names_the_family_a_firewall_drops(dual_stack, tmp_path, procs):
    """a's firewall drops IPv4 coming in: its beacons still reach b over
    both families, its channel only over IPv6. Doctor says so: IPv6
    reached, IPv4 timed out, both addresses named; a warning, not a
    failure (Handoff works over IPv6); no clock warning."""
    names, subnet = dual_stack(True)
    a, b = pair_of_devices(tmp_path, procs, netns=(names["a"], names["b"]))
    a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--channel", f"[::]:{CHANNEL_PORT}").event("publishing")
    result, report, by_check = doctor_report(b)
    assert result.code == 0, result
    assert report["beacons"]["duplicates"] >= 1 and report["beacons"]["stale"] == 0, report["beacons"]
    assert "beacons.stale" not in by_check and "beacons.replayed" not in by_check, result
    (channel,) = by_check["channel.peer"]
    assert channel["status"] == "warn", channel
    assert "reached over IPv6 [fe80::" in channel["what"], channel
    assert f"IPv4 {subnet}.1:{CHANNEL_PORT} timed out" in channel["what"], channel
    assert "a firewall drops IPv4?" in channel["what"], channel
    assert "Handoff works over IPv6" in channel["todo"] and "IPv4" in channel["todo"], channel
