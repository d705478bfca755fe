"""Hosts in network namespaces joined by a bridge, for the hostile suite.

(Tests/integration/test_handoff.py and Tests/cli/test_cli_netns.py carry
copies of the same setup; this one is shared by the hostile tests.)

Namespaces are named hstl-<pid>-<host>, so leftovers of a run that died are
recognised and removed by the next run (only when that pid is gone). Every
namespace created is deleted when the fixture ends, even on failure, after
the processes inside it are killed."""

import atexit
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

PREFIX = "hstl-"


def ip(*args, check=True):
    return subprocess.run(["ip", *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=10, check=check)


def namespaces():
    out = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def delete_namespace(ns):
    """Kills what runs in the namespace, then deletes it (its veth ends go
    with it, and so do their peers)."""
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
    """Deletes hstl-<pid>-* namespaces whose pid is gone."""
    for ns in namespaces():
        m = re.fullmatch(re.escape(PREFIX) + r"(\d+)-\w+", ns)
        if not m:
            continue
        pid = int(m.group(1))
        if pid == os.getpid():
            delete_namespace(ns)
            continue
        try:
            os.kill(pid, 0)
            continue  # that run is still going: not ours to touch
        except ProcessLookupError:
            delete_namespace(ns)
        except PermissionError:
            continue


def require_root():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("the ip tool (iproute2) is not installed")


class Hosts(dict):
    """{'host': namespace}; .address['host'] is its IPv4 address."""


def make_hosts(names):
    """Creates one namespace per name (eth0 = 10.214.S.N/24) on a bridge in
    its own namespace. A generator: yields Hosts, deletes everything after."""
    require_root()
    preclean()
    prefix = "%s%d" % (PREFIX, os.getpid())
    bridge = prefix + "-br"
    hosts = Hosts((name, "%s-%s" % (prefix, name)) for name in names)
    hosts.address = {}
    created = []

    def cleanup():
        for ns in created:
            delete_namespace(ns)
        created.clear()

    atexit.register(cleanup)
    try:
        subnet = "10.214.%d" % (os.getpid() % 254 + 1)
        for ns in [bridge, *hosts.values()]:
            ip("netns", "add", ns)
            created.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        ip("-n", bridge, "link", "set", "br0", "type", "bridge", "mcast_snooping", "0")
        for number, (name, ns) in enumerate(sorted(hosts.items()), start=1):
            veth = "v%d" % number
            ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", veth,
               "netns", bridge)
            hosts.address[name] = "%s.%d" % (subnet, number)
            ip("-n", ns, "addr", "add", "%s/24" % hosts.address[name], "dev", "eth0")
            ip("-n", ns, "link", "set", "eth0", "up")
            ip("-n", bridge, "link", "set", veth, "master", "br0")
            ip("-n", bridge, "link", "set", veth, "up")
        ip("-n", bridge, "link", "set", "br0", "up")
        deadline = time.monotonic() + 10
        for ns in hosts.values():
            while "LOWER_UP" not in ip("-n", ns, "link", "show", "eth0").stdout:
                assert time.monotonic() < deadline, "veth of %s never came up" % ns
                time.sleep(0.05)
        yield hosts
    finally:
        cleanup()
        atexit.unregister(cleanup)
        left = [ns for ns in namespaces() if ns.startswith(prefix + "-")]
        assert not left, "namespaces left behind: %s" % left
