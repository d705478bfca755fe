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
    a.spawn("--json", "publish", "--type", "com.example.cli.edit").event("publishing")
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
