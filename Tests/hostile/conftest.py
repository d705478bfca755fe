# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the hostile-network suite (issue 13 item 8).

Reuses the process harness of Tests/integration (events one per line,
bounded waits, every process killed at the end). Each test gets the genuine
pair (victims.Pair), an `attack` starter for build/bin/attacker, and, for
the namespace tests, three hosts on a bridge (Tests/support/netns.py).

Figures: every test appends one JSON line (attack, handoffs, peaks) to the
file named by $HOSTILE_FIGURES, if set; `make hostile-figures` prints them
as a table.
"""

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# Tests/support: helpers the suites share (netns.py, keys.py).
sys.path[:0] = [str(HERE), str(HERE.parent / "integration"), str(HERE.parent / "support")]

from harness import PEER, ROOT, Peer, free_port  # noqa: E402
import netns  # noqa: E402
from victims import Pair  # noqa: E402

ATTACKER = ROOT / "build" / "bin" / "attacker"


def _require(program, hint):
    if not program.exists():
        pytest.skip("%s is missing: build it first (%s)" % (program, hint))


@pytest.fixture
def spawn():
    """spawn(name, *args, netns=None): a peer, once it printed `ready`."""
    _require(PEER, "make lib build/bin/peer")
    yield from _started(lambda name, *args: (name, args), PEER, tail=6000)


@pytest.fixture
def attack():
    """attack(subcommand, *args, netns=None): the attacker, once `ready`.
    Stop it with .stop() (SIGTERM: it prints its `result` line)."""
    _require(ATTACKER, "make build/bin/attacker")
    yield from _started(lambda *args: ("attacker-" + str(args[0]), args), ATTACKER, tail=3000)


def _started(name_and_args, program, tail):
    """Yields start(*args, netns=None) -> a process of `program` that printed
    `ready`; kills every one when the test ends and prints the end of each
    transcript (pytest shows it when the test failed)."""
    started = []

    def start(*args, netns=None):
        name, argv = name_and_args(*args)
        p = Peer(name, argv, netns, program=program)
        started.append(p)
        p.wait_for("ready", timeout=10)
        return p

    yield start
    for p in started:
        p.kill()
    for p in started:
        print(p.transcript()[-tail:])


@pytest.fixture
def ports():
    return lambda n: [free_port() for _ in range(n)]


@pytest.fixture
def pair(spawn):
    """The genuine pair on loopback, one handoff done before any attack."""
    rport, sport, channel = free_port(), free_port(), free_port()
    p = Pair(spawn).start("127.0.0.1:%d" % sport, "127.0.0.1:%d" % rport,
                          "127.0.0.1:%d" % channel)
    p.ports = {"receiver": rport, "sender": sport, "channel": channel}
    assert p.handoff(), "the pair could not hand off before any attack"
    yield p
    p.stop()


class Hosts(dict):
    """{'host': namespace}; .address['host'] is its IPv4 address."""


@pytest.fixture
def hosts():
    """Namespaces attacker, receiver, sender (hstl-<pid>-<host>, eth0 =
    10.214.S.N/24) on one bridge; all deleted when the test ends."""
    netns.require()
    with netns.Namespaces("hstl-") as space:
        hosts = Hosts(space.bridged(["attacker", "receiver", "sender"]))
        hosts.address = {}
        for number, (name, ns) in enumerate(hosts.items(), start=1):
            hosts.address[name] = "%s.%d" % (netns.subnet(214), number)
            netns.address(ns, hosts.address[name] + "/24")
        netns.wait_up(hosts.values())
        yield hosts


@pytest.fixture
def ns_pair(spawn, hosts):
    """The genuine pair in two namespaces (unicast beacons, fixed ports);
    the attacker's namespace is hosts['attacker']."""
    a = hosts.address
    p = Pair(spawn, sender_ns=hosts["sender"], receiver_ns=hosts["receiver"])
    p.start("%s:47001" % a["sender"], "%s:47002" % a["receiver"], "0.0.0.0:47003")
    p.hosts = hosts
    p.channel = "%s:47003" % a["sender"]
    p.ports = {"receiver": 47002, "sender": 47001, "channel": 47003}
    assert p.handoff(), "the pair could not hand off before any attack"
    yield p
    p.stop()


@pytest.fixture
def record(request):
    """record(attack, succeeded, attempted, sampler, **extra): one line of
    figures, printed and appended to $HOSTILE_FIGURES."""
    def write(attack_name, succeeded, attempted, sampler, **extra):
        line = {"test": request.node.name, "attack": attack_name,
                "succeeded": succeeded, "attempted": attempted}
        for column, (name, p) in zip(("sender", "receiver"), sampler.peaks.items()):
            line[column] = {"process": name, "threads": p.threads, "fds": p.fds,
                            "rss_mb": round(p.rss_kb / 1024, 1), "close_wait": p.close_wait,
                            "killed_for_rss": p.killed_for_rss}
        if sampler.errors:
            line["sampling_errors"] = sampler.errors[:3]
        line["samples"] = min(p.samples for p in sampler.peaks.values())
        line.update(extra)
        print("figures:", json.dumps(line))
        path = os.environ.get("HOSTILE_FIGURES")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(line) + "\n")
    return write
