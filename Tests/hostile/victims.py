# SPDX-License-Identifier: MIT OR Apache-2.0
"""The genuine pair the attacks run against: a sender that makes a fresh
activity current on each SIGUSR1 and a receiver that continues every
activity offered (build/bin/peer --offer-on-usr1 / --continue-each), and
the bounds their resources must stay under.

The receiver keeps no connection for the next handoff, so each handoff
handshakes afresh with the sender's channel: admission is on every path.
A handoff counts as succeeded when the receiver printed `continued` for the
activity the sender offered and the sender heard `was-continued` for it.
"""

import signal
import time

from measure import Sampler

TYPE = "com.example.peer.activity"      # what the sender offers
BOMB_TYPE = "com.example.peer.bomb"     # what the bomb server offers

# Bounds on each victim. A healthy pair handing off 20 times in a row shows
# at most 5 threads, 16 fds and 16 MB RSS each. The bounds leave room for
# the library's fixed pools (verification, pumps) and for what a fair
# channel grants one attacker (docs/PROTOCOL.md §6: 8 pending slots, and 32
# authenticated connections per source address with a thread each), not for
# growth with the attack. Counts only.
MAX_THREADS = 48
MAX_FDS = 64
MAX_RSS_MB = 64

HANDOFF_TIMEOUT = 10.0   # seconds one handoff may take under attack
GIVE_UP_AFTER = 3        # consecutive failed handoffs end a run early


class Pair:
    def __init__(self, spawn, sender_ns=None, receiver_ns=None):
        self.spawn = spawn
        self.sender_ns, self.receiver_ns = sender_ns, receiver_ns
        self.sender = self.receiver = None
        self.offers = 0

    def start(self, sender_addr, receiver_addr, channel, extra_peers=(), userinfo=200):
        """sender_addr/receiver_addr: 'host:udpport' of each; channel:
        'host:port' the sender's channel listens on."""
        self.channel = channel
        rport = receiver_addr.rsplit(":", 1)[1]
        sport = sender_addr.rsplit(":", 1)[1]
        self.receiver = self.spawn(
            "receiver", "--receive", "--port", rport, "--continue-each",
            "--declare", TYPE, "--declare", BOMB_TYPE, "--device-name", "victim-receiver",
            # No pooled connection: every handoff goes through admission.
            "--connection-reuse-ms", -1,
            "--timeout", 170, netns=self.receiver_ns)
        peers = []
        for p in (receiver_addr, *extra_peers):
            peers += ["--peer", p]
        self.sender = self.spawn(
            "sender", "--send", "--port", sport, *peers, "--channel-address", channel,
            "--offer-on-usr1", "--userinfo-bytes", userinfo, "--device-name", "victim-sender",
            "--timeout", 170, netns=self.sender_ns)
        return self

    def processes(self):
        return {"sender": self.sender.proc.pid, "receiver": self.receiver.proc.pid}

    def sampler(self):
        return Sampler(self.processes())

    def alive(self):
        return self.sender.alive() and self.receiver.alive()

    def handoff(self, timeout=HANDOFF_TIMEOUT):
        """One genuine handoff; True when it succeeded."""
        r = self.receiver
        failed_before = len(r.matches("failed", type=TYPE)) + len(r.matches("continue-error"))
        self.offers += 1
        self.sender.signal(signal.SIGUSR1)
        offered = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.alive():
            if offered is None:
                found = self.sender.matches("offering")
                if len(found) >= self.offers:
                    offered = found[self.offers - 1]["id"]
            if offered is not None:
                if r.matches("continued", id=offered) and self.sender.matches("was-continued", id=offered):
                    return True
                failed_now = len(r.matches("failed", type=TYPE)) + len(r.matches("continue-error"))
                if failed_now > failed_before and not r.matches("continued", id=offered):
                    return False
            r.settle(0.05)
        return False

    def handoffs(self, count):
        """Up to `count` handoffs one after another: (succeeded, attempted).
        Stops early after GIVE_UP_AFTER failures in a row, or when a victim
        died."""
        succeeded = attempted = streak = 0
        for _ in range(count):
            if not self.alive():
                attempted = count  # what was left fails with the victim
                break
            attempted += 1
            if self.handoff():
                succeeded += 1
                streak = 0
            else:
                streak += 1
                if streak >= GIVE_UP_AFTER:
                    break
        return succeeded, attempted

    def stop(self):
        for p in (self.sender, self.receiver):
            if p is not None:
                p.kill()


def bounds_broken(sampler):
    """What broke the bounds, as text per victim (empty when within)."""
    broken = ["sampling failed: %s" % e for e in sampler.errors[:3]]
    for p in sampler.peaks.values():
        if p.samples < 3:
            broken.append("%s: sampled only %d times" % (p.name, p.samples))
        if p.threads > MAX_THREADS:
            broken.append("%s: %d threads > %d" % (p.name, p.threads, MAX_THREADS))
        if p.fds > MAX_FDS:
            broken.append("%s: %d fds > %d" % (p.name, p.fds, MAX_FDS))
        if p.rss_kb > MAX_RSS_MB * 1024:
            broken.append("%s: RSS %.0f MB > %d MB%s" % (
                p.name, p.rss_kb / 1024, MAX_RSS_MB,
                " (killed at the ceiling)" if p.killed_for_rss else ""))
    return broken
