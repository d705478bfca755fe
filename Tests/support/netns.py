# SPDX-License-Identifier: MIT OR Apache-2.0
"""Network namespaces for the process-level suites (integration, cli, hostile).

A suite opens `Namespaces(prefix)` as a context manager (in a fixture: yield
inside the `with`): every namespace it adds is named <prefix><pid>-<name>
and is deleted when the `with` ends, however it ends (and at exit, should
the process die first), after the processes inside it are killed. Each
suite has its own prefix, so suites running at once never touch each
other's namespaces; leftovers of a run that died are recognised by the pid
in the name and removed by the next run of that suite.

Only root can do this: `require()` skips the test otherwise.
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

LIVE = set()  # namespaces an open Namespaces of this process owns
ETC = Path("/etc/netns")  # `ip netns exec` bind-mounts ETC/<ns>/* over /etc


def run(*cmd, netns=None, check=True):
    """A command (in namespace `netns`, if given); its CompletedProcess."""
    if netns:
        cmd = ("ip", "netns", "exec", netns) + cmd
    return subprocess.run(list(cmd), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=10, check=check)


def ip(*args, check=True):
    return run("ip", *args, check=check)


def namespaces():
    out = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def delete_namespace(ns):
    """Kills what runs in the namespace, then deletes it (its veth ends go
    with it, and so do their peers) and its files in /etc/netns."""
    for pid in ip("netns", "pids", ns, check=False).stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    for _ in range(50):
        if ip("netns", "del", ns, check=False).returncode == 0 or ns not in namespaces():
            break
        time.sleep(0.1)
    shutil.rmtree(ETC / ns, ignore_errors=True)
    try:
        ETC.rmdir()  # only when no other namespace has files there
    except OSError:
        pass


def preclean(prefix):
    """Deletes <prefix><pid>-* namespaces whose process is gone (or that are
    this process's but no open Namespaces owns: an earlier process with
    this pid left them)."""
    for ns in namespaces():
        m = re.fullmatch(re.escape(prefix) + r"(\d+)-[\w-]+", ns)
        if not m or ns in LIVE:
            continue
        pid = int(m.group(1))
        if pid != os.getpid():
            try:
                os.kill(pid, 0)
                continue  # that run is still going: not ours to touch
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
        delete_namespace(ns)


def require(*tools):
    """Skips the test unless we are root and `ip` and `tools` are installed."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    for tool in ("ip",) + tools:
        if shutil.which(tool) is None:
            pytest.skip("%s is not installed (scripts/install-deps.sh installs it)" % tool)


def subnet(second):
    """10.<second>.N, N from the pid: distinct runs, distinct subnets."""
    return "10.%d.%d" % (second, os.getpid() % 254 + 1)


def address(ns, *cidrs, dev="eth0"):
    """Adds the addresses to `dev` and brings it up. IPv6 ones skip
    duplicate address detection, so they are usable at once."""
    for cidr in cidrs:
        ip("-n", ns, "addr", "add", cidr, "dev", dev, *(["nodad"] if ":" in cidr else []))
    ip("-n", ns, "link", "set", dev, "up")


def wait_up(namespaces_, ipv6=False, timeout=10):
    """Waits until eth0 of each namespace has its carrier (LOWER_UP) and,
    with ipv6, a link-local address that is no longer tentative."""
    deadline = time.monotonic() + timeout
    for ns in namespaces_:
        while True:
            link = ip("-n", ns, "link", "show", "eth0").stdout
            addrs = ip("-n", ns, "addr", "show", "dev", "eth0").stdout if ipv6 else ""
            if "LOWER_UP" in link and (not ipv6 or ("fe80::" in addrs and "tentative" not in addrs)):
                break
            assert time.monotonic() < deadline, "eth0 of %s never came up\n%s" % (ns, addrs)
            time.sleep(0.05)


class Namespaces:
    """The namespaces one fixture creates; all deleted when it is closed."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.created = []

    def __enter__(self):
        preclean(self.prefix)
        atexit.register(self.close)
        return self

    def __exit__(self, *exc):
        made = list(self.created)
        self.close()
        atexit.unregister(self.close)
        left = [ns for ns in namespaces() if ns in made]
        assert not left, "namespaces left behind: %s" % left

    def close(self):
        for ns in self.created:
            delete_namespace(ns)
            LIVE.discard(ns)
        self.created.clear()

    def add(self, name, sysctl=()):
        """Namespace <prefix><pid>-<name> with lo up and the sysctl settings."""
        ns = "%s%d-%s" % (self.prefix, os.getpid(), name)
        ip("netns", "add", ns)
        self.created.append(ns)
        LIVE.add(ns)
        ip("-n", ns, "link", "set", "lo", "up")
        if sysctl:
            run("sysctl", "-qw", *sysctl, netns=ns)
        return ns

    def names(self, ns, hosts):
        """Host names for the processes of namespace `ns` alone: `hosts`
        ({name: [address, ...]}) in its /etc/hosts, and a resolver that
        refuses at once (nothing listens on 127.0.0.1:53 there), so no
        query leaves. Removed with the namespace."""
        etc = ETC / ns
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "resolv.conf").write_text("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
        (etc / "hosts").write_text("127.0.0.1 localhost\n::1 localhost\n" + "".join(
            "%s %s\n" % (address, name) for name, addresses in hosts.items() for address in addresses))

    def veth(self, names, sysctl=()):
        """Two namespaces joined by one veth pair, eth0 at each end (down,
        no address yet: see address()). Returns {name: namespace}."""
        hosts = {name: self.add(name, sysctl) for name in names}
        a, b = hosts.values()
        ip("-n", a, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", b)
        return hosts

    def bridged(self, names, sysctl=()):
        """A namespace per name, its eth0 (down, no address yet: see
        address()) on the bridge br0 of namespace `br`. Returns
        {name: namespace} in sorted order (number hosts 1.. in that order)."""
        bridge = self.add("br", sysctl)
        hosts = {name: self.add(name, sysctl) for name in sorted(names)}
        ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        # No IGMP snooping: the bridge floods the group like a plain switch.
        ip("-n", bridge, "link", "set", "br0", "type", "bridge", "mcast_snooping", "0")
        for number, ns in enumerate(hosts.values(), start=1):
            port = "v%d" % number
            ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", bridge)
            ip("-n", bridge, "link", "set", port, "master", "br0")
            ip("-n", bridge, "link", "set", port, "up")
        ip("-n", bridge, "link", "set", "br0", "up")
        return hosts
