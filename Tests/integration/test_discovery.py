# SPDX-License-Identifier: MIT OR Apache-2.0
"""Discovery at the process level: dual-stack links in network namespaces
(IPv4 filtered with nft so only IPv6 works, IPv6 only, IPv4 only), and a
receiver that starts learning what is offered from the answer to its
solicitation, before the sender's next keep-alive (docs/PROTOCOL.md §5).

Namespaces are named hoffd-<pid>-<x>, created per test and always deleted.
Only loopback and those namespaces' addresses are used.
"""

import shutil
import socket
import time

import pytest

import beaconkit
import netns
from harness import peer_flags

TYPE = "com.example.peer.activity"
ACCOUNT_KEY = bytes(range(32))   # the peer's default account
NETNS_PREFIX = "hoffd-"


# ------------------------------------------------------------ namespaces

def _two_hosts(space, mode):
    """Namespaces a and b joined by a bridge (namespace br). mode:
    'dual' (both families), 'v4-filtered' (both configured, IPv4 dropped by nft),
    'v6-only' (no IPv4 address) or 'v4-only' (IPv6 disabled)."""
    # No duplicate address detection: addresses usable at once.
    sysctl = ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]
    if mode == "v4-only":
        sysctl += ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
    hosts = space.bridged("ab", sysctl)
    for number, ns in enumerate(hosts.values(), start=1):
        v4 = [] if mode == "v6-only" else ["%s.%d/24" % (netns.subnet(214), number)]
        v6 = [] if mode == "v4-only" else ["fd00:214::%d/64" % number]
        netns.address(ns, *v4, *v6)
        if mode == "v4-filtered":
            netns.run("nft", "add table ip hoff; "
                      "add chain ip hoff in { type filter hook input priority 0; policy accept; }; "
                      "add chain ip hoff out { type filter hook output priority 0; policy accept; }; "
                      "add rule ip hoff in iifname \"eth0\" drop; "
                      "add rule ip hoff out oifname \"eth0\" drop", netns=ns)
    netns.wait_up(hosts.values(), ipv6=mode != "v4-only")
    return hosts


@pytest.fixture
def two_hosts():
    """two_hosts(mode): namespaces hoffd-<pid>-<x> (see _two_hosts), all
    deleted when the test ends."""
    netns.require()
    with netns.Namespaces(NETNS_PREFIX) as space:
        def make(mode):
            netns.require(*(("nft",) if mode == "v4-filtered" else ()))
            return _two_hosts(space, mode)
        yield make


def _handoff_between(hosts, spawn):
    """A sender in a, a receiver started after it in b (multicast, the
    channel on [::]:0): the receiver is offered the activity once and
    continues it."""
    a = spawn("host-a", "--send", "--multicast", "--device-name", "host-a", "--userinfo-bytes", 200,
              "--channel-address", "[::]:0", netns=hosts["a"])
    offered = a.wait_for("offering")
    b = spawn("host-b", "--receive", "--multicast", "--auto-continue", "--device-name", "host-b",
              "--channel-address", "[::]:0", netns=hosts["b"])
    seen = b.wait_for("available", timeout=10)
    assert seen["id"] == offered["id"] and seen["device"] == "host-a"
    continued = b.wait_for("continued", timeout=10)
    assert continued["id"] == offered["id"] and continued["info-bytes"] == "200"
    a.wait_for("was-continued", timeout=10, id=offered["id"])
    b.settle(0.3)
    assert b.matches("failed") == []
    # The copies of a beacon over two families are one beacon.
    assert len(b.matches("available")) == 1
    for p in (a, b):
        assert p.stop() == 0
    return b


def test_dual_stack_with_ipv4_filtered_uses_ipv6(two_hosts, spawn):
    hosts = two_hosts("v4-filtered")
    # The filter really drops IPv4 between the hosts.
    ping = netns.run("ping", "-c", "1", "-W", "1", netns.subnet(214) + ".1", check=False,
                     netns=hosts["b"]) if shutil.which("ping") else None
    assert ping is None or ping.returncode != 0
    _handoff_between(hosts, spawn)


def test_dual_stack_both_families_work(two_hosts, spawn):
    """Every beacon arrives twice (IPv4 and IPv6): still one event, no
    re-verification flip-flop, and the continue succeeds."""
    _handoff_between(two_hosts("dual"), spawn)


def test_ipv6_only(two_hosts, spawn):
    _handoff_between(two_hosts("v6-only"), spawn)


def test_ipv4_only(two_hosts, spawn):
    _handoff_between(two_hosts("v4-only"), spawn)


# ------------------------------------------------------------ cold start

def test_a_starting_receiver_hears_the_offer_before_the_next_keepalive(spawn, ports):
    """The sender's announcement burst (4 beacons over 1.75 s) is over
    before the receiver starts; its next beacon would be a keep-alive 4 s
    later. The receiver's solicitation is answered at once: its
    `available` comes before that keep-alive reaches a capture socket
    among the sender's peers (ordering, read from the beacons' own
    timestamps, not a timed threshold)."""
    key = beaconkit.beacon_key(ACCOUNT_KEY)
    sport, rport, cport = ports(3)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as cap:
        cap.bind(("127.0.0.1", cport))
        sender = spawn("sender", "--send", "--port", sport, *peer_flags(cport, rport))
        sender.wait_for("offering")

        adverts = []   # (arrival, timestamp ms, sequence) at the capture, in order

        def read_until(done, seconds):
            deadline = time.monotonic() + seconds
            while not done():
                left = deadline - time.monotonic()
                assert left > 0, "capture saw %d adverts: %r" % (len(adverts), adverts)
                cap.settimeout(min(left, 0.1))
                try:
                    packet = cap.recv(2048)
                except socket.timeout:
                    continue
                plain = beaconkit.open_packet(key, packet)
                assert plain is not None, "a sender's beacon did not open with the account's key"
                kind, timestamp, sequence, _ = beaconkit.parse(plain)
                if kind == beaconkit.ADVERT:
                    adverts.append((time.monotonic(), timestamp, sequence))

        read_until(lambda: len(adverts) >= 4, 15)   # the burst: 0, 0.25, 0.75, 1.75 s
        burst_start = adverts[0][1]
        keepalive_due = burst_start + 1750 + 4000 - 100   # sender's clock, ms

        receiver = spawn("receiver", "--receive", "--port", rport, *peer_flags(sport))
        available = receiver.wait_for("available", timeout=10)

        def keepalive_seen():
            return any(ts >= keepalive_due for _, ts, _ in adverts[4:])

        read_until(keepalive_seen, 15)
        keepalive_at = next(at for at, ts, _ in adverts[4:] if ts >= keepalive_due)
        answers = [a for a in adverts[4:] if a[1] < keepalive_due]
        assert available.at < keepalive_at, (
            "the receiver heard of the activity only from the keep-alive\n" + receiver.transcript())
        # Answered, within the limit (a burst of 3 solicitations from one source).
        assert 1 <= len(answers) <= 3, answers
        assert len(receiver.matches("available")) == 1
        for p in (sender, receiver):
            assert p.stop() == 0
