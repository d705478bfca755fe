# SPDX-License-Identifier: MIT OR Apache-2.0
"""First sight of another device's activity: through the link (multicast)
and through the tailnet peer source (docs/PROTOCOL.md §5 "Peer sources"),
measured in the same run, so the two figures compare.

    python3 bench/reach_sight.py [--rounds 10] [--tool build/bin/handoff]

Device A publishes an activity; each round starts `handoff nearby --once`
on device B (an engine of its own) and times from its start to the line
that reports A's activity. Process start, the account files and the
handshake are in both rows alike.

  link     A and B in two network namespaces on one veth pair, multicast,
           no tailnet
  tailnet  A and B each on a veth to a router namespace (no multicast
           crosses it), each with a tailscaled LocalAPI served on a Unix
           socket here (tailscale's ipnstate.Status JSON naming the other
           as an online device of the same user)

Needs root and iproute2 (skips otherwise); every namespace is deleted.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "support"))
sys.path.insert(0, str(ROOT / "Tests" / "cli"))
import netns  # noqa: E402
from tailnet_support import FakeTailscaled, peer_status, status  # noqa: E402

TYPE = "com.example.bench.sight"


def run(tool, env, ns, *args, **kw):
    return subprocess.run(["ip", "netns", "exec", ns, tool, *args], env=env, capture_output=True, text=True,
                          timeout=60, **kw)


def devices(tool, root):
    """Two device directories on one account."""
    envs = {}
    for x in ("a", "b"):
        envs[x] = dict(os.environ, XDG_CONFIG_HOME=str(root / x), LC_ALL="C", HANDOFF_AGENT_SOCKET=str(root / "none"))
    subprocess.run([tool, "account", "create"], env=envs["a"], check=True, capture_output=True)
    code = subprocess.run([tool, "account", "code"], env=envs["a"], check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([tool, "account", "join", code], env=envs["b"], check=True, capture_output=True)
    return envs


def sight(tool, envs, a_ns, b_ns, a_options, b_options, rounds):
    """Milliseconds from B's `nearby --once` start to A's activity, per round."""
    sender = subprocess.Popen(["ip", "netns", "exec", a_ns, tool, "--json", "publish", "--type", TYPE, *a_options],
                              env=envs["a"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert '"publishing"' in sender.stdout.readline()
        times = []
        for _ in range(rounds):
            start = time.monotonic()
            seen = subprocess.run(["ip", "netns", "exec", b_ns, tool, "--json", "nearby", "--once", "--timeout", "30",
                                   *b_options], env=envs["b"], capture_output=True, text=True, timeout=60)
            if seen.returncode != 0:
                raise SystemExit("nearby failed: %s" % seen.stderr)
            times.append((time.monotonic() - start) * 1000)
        return times
    finally:
        sender.kill()
        sender.wait()


def row(name, times):
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
    print("  %-44s p50 %7.1f ms   p90 %7.1f ms   (n=%d)" % (name, statistics.median(times), p90, len(times)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tool", default=str(ROOT / "build" / "bin" / "handoff"))
    o = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("ip"):
        print("reach_sight: skipped (network namespaces need root and iproute2)")
        return
    with tempfile.TemporaryDirectory() as tmp, netns.Namespaces("hbs-") as space:
        root = Path(tmp)
        envs = devices(o.tool, root)
        # The link: one veth.
        link = space.veth(("la", "lb"))
        for number, x in enumerate(("la", "lb"), start=1):
            netns.address(link[x], "%s.%d/24" % (netns.subnet(218), number))
        # The tailnet: a - r - b, routed, no multicast across.
        a, r, b = space.add("ta"), space.add("tr"), space.add("tb")
        netns.run("sysctl", "-qw", "net.ipv4.ip_forward=1", netns=r)
        ips = {}
        for ns, second, port in ((a, 219, "ra"), (b, 220, "rb")):
            netns.ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", r)
            v4 = netns.subnet(second)
            netns.address(ns, v4 + ".1/24")
            netns.address(r, v4 + ".254/24", dev=port)
            netns.ip("-n", ns, "route", "add", "default", "via", v4 + ".254")
            ips[ns] = v4 + ".1"
        netns.wait_up([link["la"], link["lb"], a, b])
        served = [FakeTailscaled(root / "a.sock", status("a", [ips[a]], {"nodekey:b": peer_status("b", 7, [ips[b]])})),
                  FakeTailscaled(root / "b.sock", status("b", [ips[b]], {"nodekey:a": peer_status("a", 7, [ips[a]])}))]
        try:
            link_times = sight(o.tool, envs, link["la"], link["lb"], ["--no-tailnet"], ["--no-tailnet"], o.rounds)
            tailnet_times = sight(o.tool, envs, a, b, ["--tailnet-socket", served[0].path],
                                  ["--tailnet-socket", served[1].path], o.rounds)
        finally:
            for s in served:
                s.close()
    print("first sight of another device's activity (nearby --once start -> its line):")
    row("through the link (multicast)", link_times)
    row("through the tailnet source (routed, LocalAPI)", tailnet_times)
    print("  difference at p50: %+.1f ms" % (statistics.median(tailnet_times) - statistics.median(link_times)))


if __name__ == "__main__":
    main()
