# SPDX-License-Identifier: MIT OR Apache-2.0
"""Real multicast between two "hosts": network namespaces a and b joined
by a veth pair, which the tests create and always delete (needs root and
iproute2, as CI has). The tool runs with its defaults there: multicast on
the standard beacon port. Plus a host with no network at all."""

import pytest

import netns
from cli_support import Device, pair_of_devices

PREFIX = "hcli-"


@pytest.fixture(scope="module")
def hosts():
    """Namespaces a and b on one veth pair (10.214.N.1/.2), and `alone`
    with no network; hcli-<pid>-<x>, all deleted after the module."""
    netns.require()
    with netns.Namespaces(PREFIX) as space:
        names = space.veth(("a", "b"))
        names["alone"] = space.add("alone")
        for number, x in enumerate(("a", "b"), start=1):
            netns.address(names[x], f"{netns.subnet(214)}.{number}/24")
        netns.wait_up([names["a"], names["b"]])
        yield names


def test_multicast_discovery_and_continue_between_hosts(hosts, tmp_path, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    sender = a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "Over the wire",
                     "--info", "page:int=4", "--once")
    published = sender.event("publishing")
    assert published["beacon_port"] == 52370

    seen = b.run("--json", "nearby", "--once", "--timeout", "40")
    assert seen.code == 0, seen
    assert seen.json()["id"] == published["id"] and seen.json()["device"]["name"] == "Device A"

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
    netns.require()
    with netns.Namespaces(PREFIX) as space:
        def make(drop_ipv4_in_a):
            if drop_ipv4_in_a:
                netns.require("nft")
            names = space.veth(("dsa", "dsb"), ["net.ipv6.conf.all.accept_dad=0",
                                                "net.ipv6.conf.default.accept_dad=0"])
            names = {"a": names["dsa"], "b": names["dsb"]}
            subnet = netns.subnet(215)
            for number, x in enumerate(("a", "b"), start=1):
                netns.address(names[x], f"{subnet}.{number}/24", f"fd00:215::{number}/64")
            if drop_ipv4_in_a:
                netns.run("nft", "add table ip hcli; "
                          "add chain ip hcli in { type filter hook input priority 0; policy accept; }; "
                          "add rule ip hcli in iifname \"eth0\" drop", netns=names["a"])
            netns.wait_up(names.values(), ipv6=True)
            return names, subnet

        yield make


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
