# SPDX-License-Identifier: MIT OR Apache-2.0
"""Attacks on discovery (docs/PROTOCOL.md §5): beacon floods from many
device ids of the account, garbage datagrams, beacons of another account,
replays, while the genuine pair keeps handing off."""

from attacks import assert_survived, under_attack
from victims import Pair

OTHER_KEY = bytes(0xA0 + i for i in range(32)).hex()

FLOOD_DEVICES = 5000
FLOOD_ROUNDS = 2
FLOOD_RATE = 2500   # beacons per second, to each victim


def victims_udp(pair, host="127.0.0.1"):
    return ["--to", "%s:%d" % (host, pair.ports["sender"]),
            "--to", "%s:%d" % (host, pair.ports["receiver"])]


def flood(pair, attack, record, name, key, listen, bind, targets, netns=None):
    args = ["beacon-flood", FLOOD_DEVICES, "--rounds", FLOOD_ROUNDS, "--rate", FLOOD_RATE,
            "--listen", listen, "--bind", bind, "--seconds", 60, *targets]
    if key:
        args += ["--key", key]
    return under_attack(pair, lambda: attack(*args, netns=netns), record, name,
                        attack_ends_by_itself=True)


def test_beacon_flood_from_many_devices(ns_pair, attack, record):
    """A device holding the key announces 5,000 device ids whose channel is
    a port the attacker chose: the victims' threads, fds and RSS stay
    bounded, and they connect to that port less than once per device id
    (no amplification)."""
    h = ns_pair.hosts
    me = h.address["attacker"]
    targets = ["--to", "%s:%d" % (h.address["sender"], ns_pair.ports["sender"]),
               "--to", "%s:%d" % (h.address["receiver"], ns_pair.ports["receiver"])]
    out = flood(ns_pair, attack, record, "beacon-flood 5000 (namespaces)", None,
                "%s:47100" % me, me, targets, netns=h["attacker"])
    assert int(out.result["sent"]) == 2 * FLOOD_DEVICES * FLOOD_ROUNDS, out.result
    assert int(out.result["connections_to_attacker"]) < FLOOD_DEVICES, out.result
    assert_survived(out)


def test_wrong_account_beacons_cost_nothing(pair, attack, record):
    """Sealed with another account's key: no victim ever connects."""
    out = flood(pair, attack, record, "wrong-account-beacons 5000", OTHER_KEY,
                "127.0.0.2:%d" % pair.ports["channel"], "127.0.0.2", victims_udp(pair))
    assert int(out.result["sent"]) == 2 * FLOOD_DEVICES * FLOOD_ROUNDS, out.result
    assert out.result["connections_to_attacker"] == "0", out.result
    assert_survived(out)


def test_garbage_datagrams(ns_pair, attack, record):
    h = ns_pair.hosts
    targets = ["--to", "%s:%d" % (h.address["sender"], ns_pair.ports["sender"]),
               "--to", "%s:%d" % (h.address["receiver"], ns_pair.ports["receiver"])]
    out = under_attack(ns_pair, lambda: attack("garbage-udp", 20000, "--rate", 2500, "--seconds", 60,
                                               *targets, netns=h["attacker"]),
                       record, "garbage-udp (namespaces)", attack_ends_by_itself=True)
    assert out.result["sent"] == "20000", out.result
    assert_survived(out)


def test_replayed_beacons_change_nothing(spawn, attack, record, ports):
    """The sender's beacons reach a capture port too; the attacker replays
    them to the receiver all along: no activity is announced twice, and none
    comes back after it was withdrawn."""
    rport, sport, channel, capture = ports(4)
    pair = Pair(spawn).start("127.0.0.1:%d" % sport, "127.0.0.1:%d" % rport,
                             "127.0.0.1:%d" % channel, extra_peers=["127.0.0.1:%d" % capture])
    assert pair.handoff()
    out = under_attack(pair, lambda: attack("replay", "--capture", "127.0.0.1:%d" % capture,
                                            "--to", "127.0.0.1:%d" % rport, "--rate", 2000,
                                            "--seconds", 110),
                       record, "replay")
    assert int(out.result["heard"]) > 0 and int(out.result["resent"]) > 0, out.result
    available = [e["id"] for e in pair.receiver.matches("available")]
    assert len(available) == len(set(available)), "an activity was announced twice"
    for e in pair.receiver.events:
        if e.name == "withdrawn":
            later = pair.receiver.events[pair.receiver.events.index(e) + 1:]
            assert not [x for x in later if x.name in ("available", "updated") and x["id"] == e["id"]], \
                "withdrawn activity %s came back" % e["id"]
    assert_survived(out)
