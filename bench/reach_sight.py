# SPDX-License-Identifier: MIT OR Apache-2.0
"""First sight of another device's activity: through the link (multicast),
through the tailnet peer source (docs/PROTOCOL.md §5 "Peer sources") and
through the relay (an MQTT broker, PROTOCOL.md §11), measured in the same
run, so the figures compare.

    python3 bench/reach_sight.py [--rounds 10] [--tool build/bin/handoff]

Device A publishes an activity; each round starts `handoff nearby --once`
on device B (an engine of its own) and times from its start to the line
that reports A's activity. Process start, the account files and the
handshake are in both rows alike.

The relay row times more: the relay is the agent's (docs/agent.md §12),
so there each round starts device B's `handoff agent` and times from that
start to the first line of `handoff nearby --once --agent` (through B's
agent, started as soon as its socket exists and retried while it does not
accept yet) that reports A's activity: the agent's start, its connection
to the broker and its subscription are in that row, not in the others.
A's agent and its publish are started afresh before each round too (not
timed; relay_sight says why).

  link     A and B in two network namespaces on one veth pair, multicast,
           no tailnet
  tailnet  A and B each on a veth to a router namespace (no multicast
           crosses it), each with a tailscaled LocalAPI served on a Unix
           socket here (tailscale's ipnstate.Status JSON naming the other
           as an online device of the same user)
  relay    A and B each on a veth to a third namespace that runs mosquitto
           (anonymous, plain MQTT on the bench's own veths, so `handoff
           relay set ... --allow-plain`) and forwards nothing: A and B have
           no route to each other, the broker is their only path. A's
           agent (relay configured, no multicast, no peer) publishes
           through `handoff publish --agent`; B's agent (the same) is
           started each round, as above.

The link and tailnet rounds start at least SPACING (1 s) apart: the
protocol starts one device's solicitation bursts at most once a second
and sizes the answer limits for that (docs/PROTOCOL.md §5 "Bounds"); each
`nearby` is a new process of device B on the same port, so back-to-back
rounds would ask ten times a second from one source, beyond the limits,
and time the limits' refill instead of first sight. Each row prints
p50, p90 and p99 beside the goal (p90 <= 150 ms) and two baselines
measured in the same run, interleaved with the rounds: the start of the
same program in B's namespace (`handoff --version`: exec, dynamic
linking, runtime start-up, exit), which every `nearby` pays before it
can ask, and a raw UDP round trip between A's and B's namespaces on the
row's hops, the floor of one solicitation and its answer.

Needs root and iproute2 (skips otherwise), mosquitto for the relay row
(that row says it was skipped otherwise); every namespace is deleted and
every process started here is stopped.
"""

import argparse
import math
import os
import re
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
RELAY_PORT = 1883  # in the broker's own namespace
WAIT = 30  # seconds: the bound of every wait of the relay row
SPACING = 1.0  # seconds between the starts of two link or tailnet rounds
GOAL_P90 = 150.0  # ms: first sight within one solicitation round trip
ECHO_PORT = 47999  # the UDP echo of the round-trip baseline, in A's namespace
# The UDP echo (argv: address to bind) and its client (argv: address, port,
# count): the client prints one round trip per line, in microseconds.
ECHO_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], %d))
print("ready", flush=True)
while True:
    data, peer = s.recvfrom(64)
    s.sendto(data, peer)
""" % ECHO_PORT
ECHO_CLIENT = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
for n in range(int(sys.argv[3])):
    start = time.monotonic()
    s.sendto(b"%08d" % n, (sys.argv[1], int(sys.argv[2])))
    while s.recvfrom(64)[0] != b"%08d" % n:
        pass
    print("%.1f" % ((time.monotonic() - start) * 1e6))
"""
AGENT_OPTIONS = ["--no-launch", "--no-notifications", "--no-tray", "--no-pairing", "--no-multicast",
                 "--channel", "127.0.0.1:0"]


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
    """Milliseconds from B's `nearby --once` start to A's activity, per
    round (rounds SPACING apart), and, interleaved, from the start of
    `handoff --version` in B's namespace to its exit (the baseline)."""
    sender = subprocess.Popen(["ip", "netns", "exec", a_ns, tool, "--json", "publish", "--type", TYPE, *a_options],
                              env=envs["a"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert '"publishing"' in sender.stdout.readline()
        times, starts = [], []
        for _ in range(rounds):
            start = time.monotonic()
            seen = subprocess.run(["ip", "netns", "exec", b_ns, tool, "--json", "nearby", "--once", "--timeout", "30",
                                   *b_options], env=envs["b"], capture_output=True, text=True, timeout=60)
            if seen.returncode != 0:
                raise SystemExit("nearby failed: %s" % seen.stderr)
            times.append((time.monotonic() - start) * 1000)
            begin = time.monotonic()
            subprocess.run(["ip", "netns", "exec", b_ns, tool, "--version"], env=envs["b"], check=True,
                           capture_output=True, timeout=60)
            starts.append((time.monotonic() - begin) * 1000)
            time.sleep(max(0.0, start + SPACING - time.monotonic()))
        return times, starts
    finally:
        sender.kill()
        sender.wait()


def round_trips(a_ns, b_ns, a_address, count):
    """Microseconds of a raw UDP round trip from B's namespace to an echo
    in A's, `count` times."""
    echo = subprocess.Popen(["ip", "netns", "exec", a_ns, sys.executable, "-c", ECHO_SERVER, a_address],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert echo.stdout.readline().strip() == "ready"
        out = subprocess.run(["ip", "netns", "exec", b_ns, sys.executable, "-c", ECHO_CLIENT, a_address,
                              str(ECHO_PORT), str(count)], capture_output=True, text=True, timeout=60, check=True)
        return [float(line) for line in out.stdout.split()]
    finally:
        echo.kill()
        echo.wait()


def find_mosquitto():
    """mosquitto lives in sbin, often outside a user's $PATH."""
    return shutil.which("mosquitto", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/local/sbin")


def stop(proc):
    """SIGTERM (an agent leaves cleanly), SIGKILL after WAIT; reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for(what, check, proc=None, log=None):
    """Polls `check` every 2 ms until it holds (bounded: WAIT seconds); fails
    naming `what` (and the log of `proc`, should it have exited)."""
    deadline = time.monotonic() + WAIT
    while not check():
        if proc is not None and proc.poll() is not None:
            raise SystemExit("%s: the process exited (%s): %s" % (what, proc.returncode,
                                                                 log.read_text(errors="replace") if log else ""))
        if time.monotonic() > deadline:
            raise SystemExit("%s: not within %d s: %s" % (what, WAIT, log.read_text(errors="replace") if log else ""))
        time.sleep(0.002)


def log_says(path, text):
    return path.exists() and text in path.read_text(errors="replace")


class RelayBed:
    """Namespaces a and b, each on a veth to m (mosquitto, no forwarding),
    and two devices on one account with the relay set to m's address on
    their own link. Everything started is stopped by close()."""

    def __init__(self, tool, space, root, program):
        self.tool, self.root, self.procs = tool, root, []
        self.a, self.m, self.b = space.add("ma"), space.add("mm"), space.add("mb")
        netns.run("sysctl", "-qw", "net.ipv4.ip_forward=0", netns=self.m)
        urls = {}
        for ns, second, port, x in ((self.a, 221, "va", "a"), (self.b, 222, "vb", "b")):
            netns.ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", self.m)
            v4 = netns.subnet(second)
            netns.address(ns, v4 + ".1/24")
            netns.address(self.m, v4 + ".254/24", dev=port)
            urls[x] = "mqtt://%s.254:%d" % (v4, RELAY_PORT)
        netns.wait_up([self.a, self.b])
        log = root / "mosquitto.log"
        conf = root / "mosquitto.conf"
        # As root mosquitto would switch to the user mosquitto, who could not
        # read this folder: it stays root. set_tcp_nodelay: else its small
        # writes wait on Nagle for a delayed ACK (40 ms a hop).
        conf.write_text("listener %d\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n"
                        "log_dest file %s\n%s"
                        % (RELAY_PORT, log, "user root\n" if os.geteuid() == 0 else ""))
        self.broker = self.popen(self.m, [program, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.STDOUT)
        wait_for("mosquitto", lambda: re.search(r"mosquitto version \S+ running", log.read_text(errors="replace")
                                                if log.exists() else ""), self.broker, log)
        self.envs = devices(tool, root)
        for x in ("a", "b"):
            self.envs[x]["XDG_RUNTIME_DIR"] = str(root / ("run-" + x))
            self.envs[x]["HANDOFF_AGENT_SOCKET"] = str(root / ("run-" + x) / "agent.sock")
            os.mkdir(root / ("run-" + x), 0o700)
            subprocess.run([tool, "relay", "set", urls[x], "--allow-plain"], env=self.envs[x], check=True,
                           capture_output=True, timeout=WAIT)

    def popen(self, ns, argv, **kw):
        proc = subprocess.Popen(["ip", "netns", "exec", ns, *argv], stdin=subprocess.DEVNULL, **kw)
        self.procs.append(proc)
        return proc

    def agent(self, x, log):
        """Starts device x's agent (its log in `log`); returns the process."""
        ns = self.a if x == "a" else self.b
        with open(log, "w") as out:
            return self.popen(ns, [self.tool, "agent", "--socket", self.envs[x]["HANDOFF_AGENT_SOCKET"],
                                   "--beacon-port", "47%d01" % (x == "b"), *AGENT_OPTIONS],
                              env=self.envs[x], stdout=subprocess.DEVNULL, stderr=out)

    def close(self):
        for proc in reversed(self.procs):
            stop(proc)


def relay_sight(bed, rounds):
    """Milliseconds from B's agent start to `nearby --once --agent`'s line
    with A's activity, per round.

    Both agents are new each round, A's (and its publish) before the timed
    interval, so that no round inherits another's relay state: a relay
    device kept the pipes of a device that went away (authenticated, so
    never shed) until they timed out, up to 30 s, and refused pipes beyond
    RelayPipeTable.Limits, so B restarted against the same A at once went
    unheard after a few rounds (RelayPipeTable.resetAll(peer:) on a gone
    message now ends them)."""
    a_log, b_log = bed.root / "agent-a.log", bed.root / "agent-b.log"
    socket = Path(bed.envs["b"]["HANDOFF_AGENT_SOCKET"])
    times = []
    for _ in range(rounds):
        for x in ("a", "b"):
            path = Path(bed.envs[x]["HANDOFF_AGENT_SOCKET"])
            if path.exists():
                path.unlink()  # a socket left by the last round is not this agent's
        agent_a = bed.agent("a", a_log)
        wait_for("device a's agent connecting to the broker", lambda: log_says(a_log, "relay: connected"), agent_a,
                 a_log)
        sender = bed.popen(bed.a, [bed.tool, "--json", "publish", "--type", TYPE, "--agent"], env=bed.envs["a"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert '"publishing"' in sender.stdout.readline()
        start = time.monotonic()
        agent_b = bed.agent("b", b_log)
        wait_for("device b's agent socket", socket.exists, agent_b, b_log)
        deadline = start + WAIT
        while True:
            seen = subprocess.run(["ip", "netns", "exec", bed.b, bed.tool, "--json", "nearby", "--once", "--agent",
                                   "--type", TYPE, "--timeout", str(WAIT)], env=bed.envs["b"], capture_output=True,
                                  text=True, timeout=2 * WAIT)
            if seen.returncode == 0 and '"available"' in seen.stdout:
                break
            # The socket exists before the agent accepts on it: try again.
            if time.monotonic() > deadline or agent_b.poll() is not None:
                raise SystemExit("relay: round %d: nearby through b's agent failed: %s%s\nb's agent:\n%s\n"
                                 "a's agent:\n%s" % (len(times) + 1, seen.stdout, seen.stderr,
                                                      b_log.read_text(errors="replace"),
                                                      a_log.read_text(errors="replace")))
            time.sleep(0.002)
        times.append((time.monotonic() - start) * 1000)
        if not log_says(b_log, "relay: connected"):
            raise SystemExit("relay: b's agent saw a's activity without the relay:\n" + b_log.read_text())
        for proc in (agent_b, sender, agent_a):
            stop(proc)
        bed.procs = [p for p in bed.procs if p.poll() is None]
        sender.stdout.close()
    return times


def percentile(times, p):
    """Nearest rank: the smallest value at or above p of the values."""
    times = sorted(times)
    return times[max(0, min(len(times) - 1, math.ceil(p * len(times)) - 1))]


def row(name, times, unit="ms"):
    print("  %-46s p50 %7.1f %s   p90 %7.1f %s   p99 %7.1f %s   (n=%d)"
          % (name, statistics.median(times), unit, percentile(times, 0.9), unit, percentile(times, 0.99), unit,
             len(times)))


def sight_rows(name, times, starts, trips):
    """A row with its goal and its same-run baselines."""
    row("through the " + name, times)
    p90 = percentile(times, 0.9)
    print("    goal p90 <= %.0f ms: %.1f ms, %s" % (GOAL_P90, p90, "met" if p90 <= GOAL_P90 else "not met"))
    row("baseline: `handoff --version` start -> exit", starts)
    row("baseline: raw UDP round trip, same hops", trips, unit="us")
    print("    sight minus the program's start: p50 %+.1f ms, p90 %+.1f ms"
          % (statistics.median(times) - statistics.median(starts), p90 - percentile(starts, 0.9)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
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
        relay_times, relay_skipped = None, None
        program = find_mosquitto()
        try:
            link_times, link_starts = sight(o.tool, envs, link["la"], link["lb"], ["--no-tailnet"], ["--no-tailnet"],
                                            o.rounds)
            link_trips = round_trips(link["la"], link["lb"], "%s.1" % netns.subnet(218), 200)
            tailnet_times, tailnet_starts = sight(o.tool, envs, a, b, ["--tailnet-socket", served[0].path],
                                                  ["--tailnet-socket", served[1].path], o.rounds)
            tailnet_trips = round_trips(a, b, ips[a], 200)
            if program is None:
                relay_skipped = "mosquitto is not installed (scripts/install-deps.sh installs it)"
            else:
                (root / "relay").mkdir()
                bed = RelayBed(o.tool, space, root / "relay", program)
                try:
                    relay_times = relay_sight(bed, o.rounds)
                finally:
                    bed.close()
        finally:
            for s in served:
                s.close()
    print("first sight of another device's activity (nearby --once start -> its line, rounds %.0f s apart):" % SPACING)
    sight_rows("link (multicast)", link_times, link_starts, link_trips)
    sight_rows("tailnet source (routed, LocalAPI)", tailnet_times, tailnet_starts, tailnet_trips)
    print("  difference at p50: %+.1f ms" % (statistics.median(tailnet_times) - statistics.median(link_times)))
    print("first sight through the relay (B's agent start -> nearby --agent's line; the rows above start no agent):")
    if relay_times is None:
        print("  %-44s skipped: %s" % ("through the relay (MQTT broker)", relay_skipped))
    else:
        row("through the relay (MQTT broker, agent start)", relay_times)
        p50 = statistics.median(relay_times)
        print("  goal (issue #24): p50 <= 200 ms: %.1f ms, %s" % (p50, "met" if p50 <= 200 else "not met"))
        print("  difference at p50 from the link: %+.1f ms (includes B's agent start and its connection to the "
              "broker)" % (statistics.median(relay_times) - statistics.median(link_times)))


if __name__ == "__main__":
    main()
