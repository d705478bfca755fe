# SPDX-License-Identifier: MIT OR Apache-2.0
"""Process-level integration tests of libhandoff.

Each test starts real peers (build/bin/peer, Tests/integration/peer.c), one
app per process, and reads the events they print. Only loopback and the
addresses of the tests' own network namespaces are ever used.

Build first:  make lib build/bin/peer
Run:          python3 -m pytest -q -p no:cacheprovider Tests/integration

Every process a test starts is killed when the test ends (fixture
finalizers, and an atexit backstop), and every network namespace the
multicast test creates is deleted.
"""

import os
import random
import shutil
import signal
import socket
import subprocess
import time

import pytest

import netns
import children  # Tests/support
from harness import loopback, peer_flags
from keys import derive

# The peer's default account key (docs/PROTOCOL.md §4 test key) and another.
ACCOUNT_KEY = bytes(range(32))
OTHER_KEY = bytes(0xA0 + i for i in range(32))

TYPE = "com.example.peer.activity"  # the peer's default activity type
OTHER_TYPE = "com.example.peer.other"


# --------------------------------------------------------------- helpers

def blob(n):
    """The userInfo "blob" a peer sends (see peer.c)."""
    return bytes((31 * i + 7) & 0xFF for i in range(n))


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return "%08x" % h




def assert_alive(*peers):
    for p in peers:
        assert p.alive(), "%s died\n%s" % (p.name, p.transcript())


# ---------------------------------------------------------------- tests

def test_hkdf_matches_protocol_vector():
    """docs/PROTOCOL.md §4 test vector: the derivation used below is right."""
    key = bytes(range(32))
    assert derive(key, b"beacon key").hex() == \
        "077d7477a99849fe6604ecdaaa4aba891b7fdc9e483ad2a58e5a2602b3689b3c"
    assert derive(key, b"channel psk").hex() == \
        "9386ddc336c8eab1b9dab96302f4403c48cfefbe081bd43e1c5f975290092ac4"
    assert derive(key, b"account id", 8).hex() == "f95a8593f326c9d2"


# 1 ----------------------------------------------------------------------

def test_two_processes_on_loopback(spawn, ports):
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, *peer_flags(sport),
                     "--auto-continue", "--device-name", "Receiver")
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport),
                   "--title", "Loop back", "--userinfo-bytes", 1000,
                   "--device-name", "Sender one")
    offered = sender.wait_for("offering")

    available = receiver.wait_for("available", timeout=5)
    assert len(available["device-id"]) == 32
    assert dict(available) == {"id": offered["id"], "type": TYPE, "title": "Loop back",
                               "web": "0", "device": "Sender one", "url": "",
                               "device-id": available["device-id"]}
    receiver.wait_for("will-continue", type=TYPE)
    continued = receiver.wait_for("continued", timeout=5)
    assert dict(continued) == {"type": TYPE, "id": offered["id"], "title": "Loop back",
                               "info-bytes": "1000", "info-sum": fnv1a(blob(1000)),
                               "count": "1000"}
    receiver.wait_for("restored", **{"info-bytes": 1000})
    sender.wait_for("was-continued", timeout=5, id=offered["id"])

    assert receiver.matches("failed") == []
    assert len(receiver.matches("available")) == 1


def device_file(config):
    """The fields of the device file under XDG_CONFIG_HOME `config`."""
    text = (config / "handoff" / "device").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if line)


def test_apps_without_a_device_id_are_the_persons_device(spawn, ports, tmp_path):
    """Two apps of one person on one host (one XDG_CONFIG_HOME), neither
    given a device id: the first creates the device file, both announce its
    id and name, and the receiver (another device) sees one device."""
    person = tmp_path / "person"
    person.mkdir(mode=0o700)
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, *peer_flags(sport))
    first = spawn("first", "--send", "--port", sport, *peer_flags(rport), config=person)
    offered = first.wait_for("offering")
    seen = receiver.wait_for("available", timeout=10, id=offered["id"])
    device = device_file(person)
    assert len(device["id"]) == 32 and device["role"] == "full"
    assert seen["device-id"] == device["id"] and seen["device"] == device["name"]
    first.stop()  # its exit status is not this test's subject

    # Another process of the same person: the same device, from the file.
    second = spawn("second", "--send", "--port", sport, *peer_flags(rport), config=person)
    offered = second.wait_for("offering")
    seen = receiver.wait_for("available", timeout=10, id=offered["id"])
    assert seen["device-id"] == device["id"] and device_file(person) == device

    # An explicit name still wins over the file's; the id stays the file's.
    second.stop()
    named = spawn("named", "--send", "--port", sport, *peer_flags(rport), "--device-name", "Explicit",
                  config=person)
    offered = named.wait_for("offering")
    seen = receiver.wait_for("available", timeout=10, id=offered["id"])
    assert seen["device-id"] == device["id"] and seen["device"] == "Explicit"


def test_two_apps_of_one_person_running_together_announce_one_device(spawn, ports, tmp_path):
    """Two apps of one person running at once without a device id both
    announce the device file's id (each seen by a receiver of its own: to
    each other they would be the same device)."""
    person = tmp_path / "person"
    person.mkdir(mode=0o700)
    ids = set()
    senders = []
    for _ in range(2):
        rport, sport = ports(2)
        receiver = spawn("receiver", "--receive", "--port", rport, *peer_flags(sport))
        sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport), config=person)
        senders.append((receiver, sender))
    for receiver, sender in senders:
        offered = sender.wait_for("offering")
        ids.add(receiver.wait_for("available", timeout=10, id=offered["id"])["device-id"])
    assert ids == {device_file(person)["id"]}


def test_an_activity_continued_again_is_heard_each_time(spawn, ports):
    """The sender's activity stays current; the receiver continues it five
    times; the sender's was_continued runs five times, once per CONFIRM."""
    rport, sport = ports(2)
    times = 5
    receiver = spawn("receiver", "--receive", "--port", rport, *peer_flags(sport),
                     "--auto-continue", "--continue-times", times)
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport), "--userinfo-bytes", 100)
    offered = sender.wait_for("offering")
    for n in range(1, times + 1):
        receiver.wait_for("restored", nth=n, timeout=10)
        sender.wait_for("was-continued", nth=n, timeout=10, id=offered["id"])
    assert len(receiver.matches("continued")) == times
    assert all(c["id"] == offered["id"] for c in receiver.matches("continued"))
    assert receiver.matches("failed") == [] and receiver.matches("continue-error") == []
    assert len(sender.matches("was-continued")) == times
    assert sender.stop() == 0  # freeing the app withdraws its activity
    receiver.wait_for("withdrawn", timeout=2, id=offered["id"])
    assert receiver.stop() == 0


# 2 ----------------------------------------------------------------------

@pytest.fixture
def three_hosts():
    """Namespaces a, b, c (hoff-<pid>-<x>, one host each, eth0 =
    10.213.N.1/2/3) joined by a Linux bridge in namespace br, all deleted
    when the test ends. Yields {'a': ns, 'b': ns, 'c': ns}."""
    netns.require()
    with netns.Namespaces("hoff-") as space:
        hosts = space.bridged("abc")
        for number, ns in enumerate(hosts.values(), start=1):
            netns.address(ns, "%s.%d/24" % (netns.subnet(213), number))
        netns.wait_up(hosts.values())
        yield hosts


def test_three_hosts_multicast_in_namespaces(three_hosts, spawn):
    b = spawn("host-b", "--receive", "--multicast", "--auto-continue", "--device-name", "host-b",
              netns=three_hosts["b"])
    c = spawn("host-c", "--receive", "--multicast", "--device-name", "host-c",
              netns=three_hosts["c"])
    a = spawn("host-a", "--send", "--multicast", "--device-name", "host-a",
              "--userinfo-bytes", 300, netns=three_hosts["a"])
    offered = a.wait_for("offering")

    for receiver in (b, c):
        seen = receiver.wait_for("available", timeout=5)
        assert dict(seen) == {"id": offered["id"], "type": TYPE, "title": "peer-title",
                              "web": "0", "device": "host-a", "url": "",
                              "device-id": seen["device-id"]}
    b.wait_for("will-continue", type=TYPE)
    continued = b.wait_for("continued", timeout=5)
    assert continued["id"] == offered["id"]
    assert continued["info-bytes"] == "300" and continued["info-sum"] == fnv1a(blob(300))
    a.wait_for("was-continued", timeout=5, id=offered["id"])

    c.settle(0.5)
    assert c.matches("will-continue") == [] and c.matches("failed") == []
    # IPv4 and IPv6 copies of a beacon, or repeats, make one event.
    assert len(b.matches("available")) == 1 and len(c.matches("available")) == 1
    for p in (a, b, c):
        assert p.stop() == 0


# 3 ----------------------------------------------------------------------

def s_client(psk_hex, port, timeout=2.5):
    """openssl s_client with an external PSK; its output and exit status
    (None when it was still connected at the timeout)."""
    proc = subprocess.Popen(
        ["openssl", "s_client", "-tls1_3", "-psk", psk_hex, "-psk_identity", "handoff1.x",
         "-connect", loopback(port), "-ign_eof"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    children.track(proc)
    try:
        out, _ = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        code = None
    children.forget(proc)
    return out, code


def test_wrong_account_sees_nothing_and_cannot_fetch(spawn, ports):
    right_port, wrong_port, sport, channel = ports(4)
    right = spawn("right-account", "--receive", "--port", right_port)
    wrong = spawn("wrong-account", "--receive", "--port", wrong_port,
                  "--account-key", OTHER_KEY.hex())
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(right_port, wrong_port),
                   "--channel-address", loopback(channel))
    started = time.monotonic()
    offered = sender.wait_for("offering")
    right.wait_for("available", timeout=5, id=offered["id"])

    # The channel, with stock OpenSSL: only the account's PSK gets in.
    have_openssl = shutil.which("openssl") is not None
    if have_openssl:
        wrong_out, wrong_code = s_client(derive(OTHER_KEY, b"channel psk").hex(), channel)
        right_out, _ = s_client(derive(ACCOUNT_KEY, b"channel psk").hex(), channel)
        assert "alert" in wrong_out.lower() and wrong_code not in (0, None), wrong_out
        assert "New, (NONE), Cipher is (NONE)" in wrong_out, wrong_out
        assert "TLSv1.3" in right_out and "alert" not in right_out.lower(), right_out
        assert "Cipher is TLS_AES_128_GCM_SHA256" in right_out, right_out

    wrong.settle(max(0.0, 3.0 - (time.monotonic() - started)))
    assert wrong.matches("available") == [], wrong.transcript()
    assert wrong.matches("updated") == [], wrong.transcript()
    assert_alive(sender, right, wrong)
    if not have_openssl:
        pytest.skip("openssl is not installed: the channel half of this test did not run")


# 4 ----------------------------------------------------------------------

def capture_socket(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    return sock


def collect(sock, seconds):
    """The datagrams that arrive on `sock` within `seconds`."""
    packets = []
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return packets
        sock.settimeout(left)
        try:
            packets.append(sock.recv(2048))
        except socket.timeout:
            return packets


def test_replayed_beacons_of_a_stopped_sender_are_ignored(spawn, ports):
    """Beacons captured from a sender, replayed after it stopped to a
    receiver that never heard it, must not make a phantom activity."""
    rport, sport, cport = ports(3)
    with capture_socket(cport) as cap:
        sender = spawn("sender", "--send", "--port", sport, *peer_flags(cport))
        sender.wait_for("offering")
        captured = collect(cap, 2.0)  # the announcement burst
        assert len(captured) >= 3, "captured %d beacons" % len(captured)
        assert sender.stop() == 0
        collect(cap, 0.3)  # its withdrawals: not replayed

        receiver = spawn("receiver", "--receive", "--port", rport)
        for packet in captured:
            cap.sendto(packet, ("127.0.0.1", rport))
        receiver.settle(3.0)
    assert receiver.matches("available") == [], (
        "a replay of a stopped device's beacons was offered as an activity\n"
        + receiver.transcript())
    assert_alive(receiver)


def test_replayed_beacon_while_sender_runs_is_ignored(spawn, ports):
    """The sender moved on to a new activity; replaying beacons of its
    first one changes nothing on a receiver that heard it."""
    rport, sport, cport = ports(3)
    with capture_socket(cport) as cap:
        receiver = spawn("receiver", "--receive", "--port", rport)
        sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport, cport))
        first = sender.wait_for("offering")
        receiver.wait_for("available", id=first["id"])
        captured = collect(cap, 1.0)  # beacons of the first activity
        assert captured

        sender.signal(signal.SIGUSR1)  # a new activity replaces it
        second = sender.wait_for("offering", nth=2)
        receiver.wait_for("available", id=second["id"])
        collect(cap, 2.0)  # the new activity's burst is over
        receiver.settle(0)
        before = len(receiver.events)

        # Accepted, these would bring the first activity back.
        for packet in captured:
            cap.sendto(packet, ("127.0.0.1", rport))
        receiver.settle(2.0)
    assert receiver.events[before:] == [], receiver.transcript()
    assert_alive(sender, receiver)


def test_replaced_activity_is_withdrawn_once_without_flicker(spawn, ports):
    """A sender switches to a new activity: the receiver hears the old one
    withdrawn and the new one available, once each."""
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport)
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport))
    first = sender.wait_for("offering")
    receiver.wait_for("available", id=first["id"])
    receiver.settle(2.0)  # the first burst is over

    sender.signal(signal.SIGUSR1)
    second = sender.wait_for("offering", nth=2)
    receiver.settle(2.5)  # the second burst and the old one's withdrawals
    events = [(e.name, e.get("id")) for e in receiver.events if e.name != "ready"]
    assert events == [("available", first["id"]), ("withdrawn", first["id"]),
                      ("available", second["id"])], receiver.transcript()
    assert_alive(sender, receiver)


# 5 ----------------------------------------------------------------------

def test_never_offered(spawn, ports):
    control_port, team_port, type_port, watch_port, sport = ports(5)
    control = spawn("control", "--receive", "--port", control_port)
    other_team = spawn("other-team", "--receive", "--port", team_port, "--team", "OTHERTEAM")
    undeclared = spawn("undeclared", "--receive", "--port", type_port, "--declare", OTHER_TYPE)
    send_only = spawn("send-only", "--receive", "--port", watch_port,
                      "--device-role", "send-only")
    sender = spawn("sender", "--send", "--port", sport,
                   *peer_flags(control_port, team_port, type_port, watch_port))
    started = time.monotonic()
    offered = sender.wait_for("offering")
    control.wait_for("available", timeout=3, id=offered["id"])

    left = 3.0 - (time.monotonic() - started)
    for peer in (other_team, undeclared, send_only):
        peer.settle(max(0.0, left))
        left = 0
        assert peer.matches("available") == [], peer.transcript()
        assert peer.matches("updated") == [], peer.transcript()
    assert_alive(control, other_team, undeclared, send_only, sender)


# 6 ----------------------------------------------------------------------

def test_web_fallback(spawn, ports):
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, "--declare", OTHER_TYPE,
                     "--auto-continue")
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport),
                   "--url", "https://example.com/x")
    offered = sender.wait_for("offering")
    available = receiver.wait_for("available", timeout=5)
    assert dict(available) == {"id": offered["id"], "type": TYPE, "title": "peer-title",
                               "web": "1", "device": available["device"],
                               "device-id": available["device-id"], "url": "https://example.com/x"}
    receiver.wait_for("webpage", url="https://example.com/x")
    receiver.settle(1.5)
    assert receiver.matches("will-continue") == [], receiver.transcript()
    assert receiver.matches("continued") == [] and receiver.matches("failed") == []
    assert len(receiver.matches("webpage")) == 1
    assert_alive(sender, receiver)


# 7 ----------------------------------------------------------------------

def test_error_4611_userinfo_too_large(spawn, ports):
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, "--auto-continue")
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport),
                   "--userinfo-bytes", 5000)
    receiver.wait_for("will-continue", timeout=5)
    failed = receiver.wait_for("failed", timeout=5)
    assert failed["code"] == "4611" and failed["type"] == TYPE, failed.line
    receiver.settle(0.5)
    assert receiver.matches("continued") == [] and len(receiver.matches("failed")) == 1
    assert sender.matches("was-continued") == []
    assert_alive(sender, receiver)


def test_error_4610_remote_application_timed_out(spawn, ports):
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, "--auto-continue")
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport),
                   "--never-dispatch", "--fetch-timeout-ms", 800)
    will = receiver.wait_for("will-continue", timeout=5)
    failed = receiver.wait_for("failed", timeout=8)
    assert failed["code"] == "4610" and failed["type"] == TYPE, failed.line
    # The sender's 800 ms ran out, not the receiver's own (>= 5 s) limit.
    assert 0.7 <= failed.at - will.at <= 3.0, failed.at - will.at
    assert receiver.matches("continued") == []
    assert_alive(sender, receiver)


def test_error_4609_connection_unavailable(spawn, ports):
    rport, sport = ports(2)
    receiver = spawn("receiver", "--receive", "--port", rport, "--auto-continue")
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport), "--never-dispatch")
    will = receiver.wait_for("will-continue", timeout=5)
    sender.proc.send_signal(signal.SIGKILL)
    failed = receiver.wait_for("failed", timeout=8)
    assert failed["code"] == "4609" and failed["type"] == TYPE, failed.line
    assert failed.at - will.at < 4.5, "reported only after the fetch timeout"
    assert receiver.matches("continued") == []
    assert_alive(receiver)


# 8 ----------------------------------------------------------------------

def test_garbage_then_real_handoff(spawn, ports):
    rport, sport, channel = ports(3)
    receiver = spawn("receiver", "--receive", "--port", rport, "--auto-continue")
    # Listening, but offering nothing until SIGUSR1.
    sender = spawn("sender", "--send", "--port", sport, *peer_flags(rport),
                   "--channel-address", loopback(channel), "--offer-on-usr1",
                   "--userinfo-bytes", 200)
    rng = random.Random(os.getpid())

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        for i in range(500):
            # A third of them of a size a beacon can have (28 + 64k), so
            # they reach the decryption.
            size = 28 + 64 * rng.randint(1, 18) if i % 3 == 0 else rng.randint(0, 1500)
            payload = rng.randbytes(size)
            udp.sendto(payload, ("127.0.0.1", rport))
            if i % 5 == 0:
                udp.sendto(payload, ("127.0.0.1", sport))
            if i % 50 == 0:
                time.sleep(0.005)  # keep the kernel's receive queue from overflowing

    for i in range(50):
        size = rng.randint(0, 4096)
        payload = rng.randbytes(size)
        if i % 2 == 0 and size >= 5:
            # Looks like a TLS handshake record, so it gets parsed further.
            payload = b"\x16\x03\x01" + rng.randint(0, 0xFFFF).to_bytes(2, "big") + payload[5:]
        with socket.create_connection(("127.0.0.1", channel), timeout=2) as tcp:
            try:
                tcp.sendall(payload)
            except OSError:
                pass  # the server may close first

    receiver.settle(0.5)
    assert_alive(sender, receiver)
    assert receiver.matches("available") == []

    sender.signal(signal.SIGUSR1)
    offered = sender.wait_for("offering")
    receiver.wait_for("available", timeout=5, id=offered["id"])
    continued = receiver.wait_for("continued", timeout=5)
    assert continued["id"] == offered["id"]
    assert continued["info-bytes"] == "200" and continued["info-sum"] == fnv1a(blob(200))
    sender.wait_for("was-continued", timeout=5, id=offered["id"])
    assert receiver.matches("failed") == []
    assert_alive(sender, receiver)
    assert sender.stop() == 0
    assert receiver.stop() == 0
