# SPDX-License-Identifier: MIT OR Apache-2.0
"""Attacks on a sender's channel port (docs/PROTOCOL.md §6, §7), with and
without the account key, while the genuine pair keeps handing off.

Attackers bind to 127.0.0.2 (loopback) or sit on a host of their own
(namespaces), so per-source admission has a source to tell apart."""

from attacks import assert_survived, under_attack

ATTACKER_IP = "127.0.0.2"
OTHER_KEY = bytes(0xA0 + i for i in range(32)).hex()


def channel_attack(pair, attack, record, name, *args, netns=None, bind=ATTACKER_IP):
    where = ["--target", pair.channel] + (["--bind", bind] if bind else [])
    return under_attack(pair, lambda: attack(*args, *where, "--seconds", 110, netns=netns),
                        record, name)


# --------------------------------------------------- without the key (item 1)

def test_silent_connections_do_not_starve_handshakes(pair, attack, record):
    out = channel_attack(pair, attack, record, "silent 64 (loopback)", "silent", 64)
    assert_survived(out)


def test_silent_connections_from_another_host(ns_pair, attack, record):
    out = channel_attack(ns_pair, attack, record, "silent 64 (namespaces)", "silent", 64,
                         netns=ns_pair.hosts["attacker"], bind=None)
    assert_survived(out)


def test_slow_client_hellos_do_not_starve_handshakes(pair, attack, record):
    out = channel_attack(pair, attack, record, "slowhello 64", "slowhello", 64)
    assert_survived(out)


def test_garbage_connections(pair, attack, record):
    out = channel_attack(pair, attack, record, "garbage-tcp 16", "garbage-tcp", 16)
    assert_survived(out)


def test_wrong_psk_handshakes_never_authenticate(pair, attack, record):
    out = channel_attack(pair, attack, record, "wrong-psk", "wrong-psk", "--key", OTHER_KEY)
    assert int(out.result["attempts"]) > 0, out.result
    assert out.result["authenticated"] == "0", out.result
    assert_survived(out)


# ------------------------------------------------------ with the key (item 2)

def test_idle_authenticated_connections_do_not_lock_out(ns_pair, attack, record):
    out = channel_attack(ns_pair, attack, record, "idle-auth 64 (namespaces)", "idle-auth", 64,
                         netns=ns_pair.hosts["attacker"], bind=None)
    assert_survived(out)


def test_random_confirms_do_not_keep_connections_alive(pair, attack, record):
    out = channel_attack(pair, attack, record, "idle-auth 64 --confirm-random", "idle-auth", 64,
                         "--confirm-random")
    assert_survived(out)


def test_malformed_frames_end_the_connection(pair, attack, record):
    out = channel_attack(pair, attack, record, "malformed-frames", "malformed-frames")
    assert int(out.result["sent"]) >= 6, out.result  # every kind at least once
    assert out.result["left_open"] == "0", out.result
    assert int(out.result["closed_by_peer"]) > 0, out.result
    assert_survived(out)
