# SPDX-License-Identifier: MIT OR Apache-2.0
"""The channel's admission under hostile peers (docs/PROTOCOL.md §6
"Limits and lifecycle"), with real processes on loopback.

A sender (build/bin/peer) is the victim. While an attack runs, genuine
handoffs keep going: each round the sender offers a fresh activity and a
fresh receiver process continues it (a new TLS handshake each time), and a
genuine `openssl s_client` with the account's PSK handshakes too. Every
attack is bounded (a stop event and a cap on iterations) and everything
started is killed when the test ends. The victim's threads and descriptors
(/proc/PID/task, /proc/PID/fd) are sampled throughout and must stay under
fixed bounds: the limits of §6 plus the process's own baseline.

Attackers bind to 127.0.0.2.. so that per-source shares apply (loopback
answers for all of 127/8); some share 127.0.0.1 with the genuine peers.
"""

import os
import random
import selectors
import signal
import socket
import subprocess
import threading
import time

import pytest

import netns
from keys import derive

ACCOUNT_KEY = bytes(range(32))
OTHER_KEY = bytes(0xA0 + i for i in range(32))

# docs/PROTOCOL.md §6 "Limits and lifecycle", as enforced.
PENDING_SLOTS = 16
AUTHENTICATED_CAP = 64
ROUNDS = 6


PSK = derive(ACCOUNT_KEY, b"channel psk").hex()
WRONG_PSK = derive(OTHER_KEY, b"channel psk").hex()


def s_client_args(psk, port, source=None, extra=()):
    args = ["openssl", "s_client", "-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256",
            "-psk", psk, "-psk_identity", "handoff1." + os.urandom(16).hex(),
            "-connect", "127.0.0.1:%d" % port, "-nocommands", *extra]
    if source:
        args += ["-bind", "%s:0" % source]
    return args


def handshake_once(port, psk=PSK, timeout=30):
    """One complete TLS handshake attempt with stock OpenSSL: True when it
    authenticated (the client then closes at once: stdin is empty)."""
    try:
        done = subprocess.run(s_client_args(psk, port, extra=["-brief"]), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return "Ciphersuite: TLS_AES_128_GCM_SHA256" in done.stdout + done.stderr


def confirm_frame():
    """A CONFIRM (§7) for an activity id that was never offered."""
    return (17).to_bytes(4, "big") + b"\x04" + os.urandom(16)


# ------------------------------------------------------------- measuring

def counts(pid):
    try:
        return len(os.listdir("/proc/%d/task" % pid)), len(os.listdir("/proc/%d/fd" % pid))
    except FileNotFoundError:
        return 0, 0


class Sampler:
    """Peak threads and descriptors of a process, sampled every 20 ms."""

    def __init__(self, pid):
        self.pid, self.peak_threads, self.peak_fds = pid, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        for _ in range(100_000):  # bounded: at most ~30 minutes
            threads, fds = counts(self.pid)
            self.peak_threads = max(self.peak_threads, threads)
            self.peak_fds = max(self.peak_fds, fds)
            if self._stop.wait(0.02):
                return

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)


# --------------------------------------------------------------- attacks

def reusable(s):
    """Thousands of attack connections leave TIME_WAIT sockets on ports a
    later test may pick for its channel: SO_REUSEADDR lets that bind."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


class Attack:
    """Runs `body(stop)` on threads until stopped; each body bounds its loop."""

    def __init__(self, *bodies):
        self.stop_event = threading.Event()
        self.stats = {"connections": 0}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=b, args=(self,), daemon=True) for b in bodies]
        self.children = []
        for t in self.threads:
            t.start()

    def count(self, key="connections", n=1):
        with self.lock:
            self.stats[key] = self.stats.get(key, 0) + n

    def stop(self):
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=30)
        with self.lock:
            children = list(self.children)
        for child in children:
            if child.poll() is None:
                child.kill()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def holding_flood(port, sources, first_bytes=b"", cap=5_000_000):
    """Holds per-source connections open that send `first_bytes` (maybe
    none) then stay silent; each is reopened as soon as the server closes it."""

    def body(attack):
        sel = selectors.DefaultSelector()

        def open_one(source):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                reusable(s)
                s.bind((source, 0))
                s.settimeout(2)
                s.connect(("127.0.0.1", port))
                if first_bytes:
                    s.sendall(first_bytes)
                s.setblocking(False)
            except OSError:
                s.close()
                return False
            sel.register(s, selectors.EVENT_READ, source)
            attack.count()
            return True

        for source in sources:
            open_one(source)
        opened = 0
        while not attack.stop_event.is_set() and opened < cap:
            missing = [s for s in sources
                       if sum(1 for k in sel.get_map().values() if k.data == s) < sources.count(s)]
            for source in missing[:8]:
                opened += 1
                if not open_one(source):
                    attack.stop_event.wait(0.05)
            for key, _ in sel.select(timeout=0.05):
                try:
                    gone = key.fileobj.recv(4096) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
        for key in list(sel.get_map().values()):
            key.fileobj.close()
        sel.close()

    return body


def garbage_flood(port, source, cap=20_000):
    """Connections that send random bytes (half of them shaped like a TLS
    handshake record) and close."""

    def body(attack):
        rng = random.Random(os.getpid())
        for _ in range(cap):
            if attack.stop_event.is_set():
                return
            payload = rng.randbytes(rng.randint(1, 4096))
            if rng.random() < 0.5 and len(payload) > 5:
                payload = b"\x16\x03\x01" + rng.randint(0, 0xFFFF).to_bytes(2, "big") + payload[5:]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    reusable(s)
                    s.bind((source, 0))
                    s.settimeout(2)
                    s.connect(("127.0.0.1", port))
                    s.sendall(payload)
                attack.count()
            except OSError:
                attack.stop_event.wait(0.02)

    return body


def wrong_key_clients(port, source, cap=5_000):
    """Stock TLS clients holding another account's key, one after another."""

    def body(attack):
        for _ in range(cap):
            if attack.stop_event.is_set():
                return
            proc = subprocess.Popen(s_client_args(WRONG_PSK, port, source), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with attack.lock:
                attack.children.append(proc)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with attack.lock:
                attack.children.remove(proc)
            attack.count()

    return body


def idle_authenticated(port, sources, cap=20_000):
    """Clients holding the key that authenticate and then only ever send
    CONFIRMs for ids never served; each is reopened when the server closes it."""

    def body(attack):
        slots = [None] * len(sources)
        started = 0
        while not attack.stop_event.is_set() and started < cap:
            for i, source in enumerate(sources):
                if slots[i] is None or slots[i].poll() is not None:
                    slots[i] = subprocess.Popen(s_client_args(PSK, port, source, extra=["-quiet"]),
                                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL)
                    with attack.lock:
                        attack.children = [p for p in attack.children if p.poll() is None] + [slots[i]]
                    started += 1
                    attack.count()
            for proc in slots:
                try:
                    proc.stdin.write(confirm_frame())
                    proc.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass
            attack.stop_event.wait(1.0)

    return body


# ------------------------------------------------------------ the victim

def dual_stack_port(ports):
    """A port `[::]` can be bound on with SO_REUSEADDR, as the channel does
    (free_port checks 127.0.0.1 only)."""
    if not socket.has_ipv6 or not os.path.exists("/proc/net/if_inet6"):
        return ports(1)[0]  # the channel falls back to 0.0.0.0
    for _ in range(100):
        port = ports(1)[0]
        try:
            with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
                reusable(s)
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.bind(("::", port))
            return port
        except OSError:
            continue
    pytest.fail("no port free for [::]")

@pytest.fixture
def victim(spawn, ports):
    """A sender listening on the dual-stack wildcard, offering on SIGUSR1;
    returns (sender, channel port, receiver beacon port)."""
    rport, sport = ports(2)
    channel = dual_stack_port(ports)
    sender = spawn("sender", "--send", "--port", sport, "--peer", "127.0.0.1:%d" % rport,
                   "--channel-address", "[::]:%d" % channel, "--offer-on-usr1",
                   "--userinfo-bytes", 100, "--timeout", 600)
    return sender, channel, rport


def handoff_round(spawn, sender, rport, n):
    """Offers a fresh activity and has a fresh receiver continue it: True
    when the receiver restored it and the sender heard it was continued."""
    sender.signal(signal.SIGUSR1)
    offered = sender.wait_for("offering", timeout=10, nth=n)
    receiver = spawn("receiver-%d" % n, "--receive", "--port", rport, "--auto-continue", "--timeout", 120)
    try:
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            receiver.settle(0.1)
            if receiver.matches("failed") or receiver.matches("continue-error"):
                return False
            if receiver.matches("continued", id=offered["id"]):
                break
        else:
            return False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            sender.settle(0.1)
            if sender.matches("was-continued", id=offered["id"]):
                return True
        return False
    finally:
        receiver.kill()


def run_under(attack_factory, spawn, victim, handshakes_per_round=2):
    """Runs the genuine rounds while the attack runs; returns the figures."""
    sender, channel, rport = victim
    base_threads, base_fds = counts(sender.proc.pid)
    sampler = Sampler(sender.proc.pid)
    attack = attack_factory(channel)
    try:
        time.sleep(1.0)  # let the attack take hold first
        handoffs, handshakes = [], []
        for n in range(1, ROUNDS + 1):
            handoffs.append(handoff_round(spawn, sender, rport, n))
            handshakes += [handshake_once(channel) for _ in range(handshakes_per_round)]
        still_running = all(t.is_alive() for t in attack.threads)
    finally:
        attack.stop()
        sampler.stop()
    figures = dict(handoffs="%d/%d" % (sum(handoffs), len(handoffs)),
                   handshakes="%d/%d" % (sum(handshakes), len(handshakes)),
                   base_threads=base_threads, peak_threads=sampler.peak_threads,
                   base_fds=base_fds, peak_fds=sampler.peak_fds, attack=dict(attack.stats))
    print("figures:", figures)
    assert still_running, "an attack ended before the genuine rounds did: %s" % figures
    assert all(handoffs), (figures, sender.transcript())
    assert all(handshakes), figures
    assert sender.alive(), sender.transcript()
    # One admission thread and at most one per authenticated connection;
    # at most the pending slots and the authenticated cap in sockets.
    assert sampler.peak_threads <= base_threads + AUTHENTICATED_CAP + 8, figures
    assert sampler.peak_fds <= base_fds + PENDING_SLOTS + AUTHENTICATED_CAP + 8, figures
    return figures, attack


# ----------------------------------------------------------------- tests

def test_silent_connection_flood(spawn, victim):
    # 8 silent holders from each of 127.0.0.2-5 and 8 from the genuine
    # peers' own address: more than all the pending slots.
    sources = [s for s in ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"] for _ in range(8)]
    figures, attack = run_under(lambda port: Attack(holding_flood(port, sources)), spawn, victim)
    assert attack.stats["connections"] > len(sources), figures  # they were shed and came back


def test_slow_client_hello_flood(spawn, victim):
    # A TLS handshake record header and the first bytes of a ClientHello, then silence.
    start = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"
    sources = [s for s in ["127.0.0.1", "127.0.0.6", "127.0.0.7"] for _ in range(10)]
    figures, attack = run_under(lambda port: Attack(holding_flood(port, sources, first_bytes=start)), spawn, victim)
    assert attack.stats["connections"] > len(sources), figures


def test_garbage_and_wrong_key_clients(spawn, victim):
    figures, attack = run_under(lambda port: Attack(garbage_flood(port, "127.0.0.8"), garbage_flood(port, "127.0.0.1"),
                                                    wrong_key_clients(port, "127.0.0.9"),
                                                    wrong_key_clients(port, "127.0.0.1")), spawn, victim)
    assert attack.stats["connections"] > 10, figures


def test_idle_authenticated_connections_beyond_the_cap(spawn, victim):
    # 70 holders of the key, a third on the genuine peers' own address.
    sources = [s for s in ["127.0.0.1", "127.0.0.10", "127.0.0.11"] for _ in range(24)][:70]
    figures, attack = run_under(lambda port: Attack(idle_authenticated(port, sources)), spawn, victim)
    assert attack.stats["connections"] >= 70, figures


def test_idle_connection_is_closed_with_close_notify_despite_confirms(victim):
    sender, channel, _ = victim
    proc = subprocess.Popen(s_client_args(PSK, channel, extra=["-msg"]), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # CONFIRMs for ids never served, one a second: they do not keep it
        # open. Bounded: the server must close within 60 of them (idle 15 s).
        for _ in range(60):
            try:
                proc.stdin.write(confirm_frame())
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                break
            try:
                proc.wait(timeout=1)
                break
            except subprocess.TimeoutExpired:
                pass
        assert proc.poll() is not None, "the idle connection was kept open by CONFIRMs for unknown ids"
        output = proc.stdout.read().decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=5)
    assert "Cipher is TLS_AES_128_GCM_SHA256" in output, output
    # The server's alert record as s_client -msg shows it.
    assert "<<< TLS 1.3, Alert" in output and "close_notify" in output, output


def test_the_channel_answers_on_ipv4_and_ipv6_on_one_port(victim):
    sender, channel, _ = victim
    assert handshake_once(channel)
    try:
        with open("/proc/net/if_inet6") as f:
            has_ipv6 = any(line.split()[-1] == "lo" for line in f)
    except OSError:
        has_ipv6 = False
    if not has_ipv6:
        pytest.skip("this host has no IPv6")
    args = s_client_args(PSK, channel, extra=["-brief"])
    args[args.index("-connect") + 1] = "[::1]:%d" % channel
    done = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert "Ciphersuite: TLS_AES_128_GCM_SHA256" in done.stdout + done.stderr, done.stdout + done.stderr


# ------------------------------------------------- link-local in namespaces

@pytest.fixture
def two_hosts():
    """Namespaces a and b (hadm-<pid>-<x>) joined by one veth pair (eth0 in
    each) with the link-local addresses fe80::a and fe80::b and
    10.214.N.1/.2; deleted when the test ends."""
    netns.require()
    with netns.Namespaces("hadm-") as space:
        hosts = space.veth("ab")
        subnet = netns.subnet(214)
        for number, (x, ns) in enumerate(hosts.items(), start=1):
            netns.address(ns, "fe80::%s/64" % x, "%s.%d/24" % (subnet, number))
        netns.wait_up(hosts.values())
        yield hosts, subnet


def test_link_local_ipv6_and_ipv4_reach_one_channel_port(spawn, ports, two_hosts):
    hosts, subnet = two_hosts
    bport, channel = ports(2)
    spawn("sender", "--send", "--port", bport, "--channel-address", "[::]:%d" % channel, netns=hosts["a"])
    for target in ["[fe80::a%%eth0]:%d" % channel, "%s.1:%d" % (subnet, channel)]:
        args = s_client_args(PSK, channel, extra=["-brief"])
        args[args.index("-connect") + 1] = target
        done = subprocess.run(["ip", "netns", "exec", hosts["b"], *args], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=30)
        assert "Ciphersuite: TLS_AES_128_GCM_SHA256" in done.stdout + done.stderr, (target, done.stdout + done.stderr)
