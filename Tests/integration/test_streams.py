# SPDX-License-Identifier: MIT OR Apache-2.0
"""Continuation streams between two real processes over loopback.

build/bin/streamer (Tests/integration/streamer.c) runs at each end: the
sender offers an activity that supports streams; the receiver continues it
and opens streams; each side writes a deterministic byte sequence, then
half-closes, and hashes what it reads (FNV-1a 64), printing both sums.

Build first:  make lib build/bin/streamer
"""

import signal
import time

import pytest

from harness import loopback

HANDOFF_E_INVALID_STATE = 8  # include/handoff.h
HANDOFF_FAILED = 4608


def pair(spawn_streamer, ports, *, sender=(), receiver=(), timeout=90):
    """A sender and a receiver on loopback, each the other's unicast peer."""
    ps, pr = ports(2)
    common = ["--timeout", timeout]
    s = spawn_streamer("sender", "--send", "--port", ps, "--peer", loopback(pr), *common, *sender)
    s.wait_for("offering")
    r = spawn_streamer("receiver", "--receive", "--port", pr, "--peer", loopback(ps), *common, *receiver)
    return s, r


def done_streams(peer, count, timeout):
    peer.wait_for("all-done", timeout=timeout)
    found = peer.matches("stream-done")
    assert len(found) == count, peer.transcript()
    return found


def test_100_mb_each_way_arrive_whole(spawn_streamer, ports):
    size = 100_000_000
    s, r = pair(spawn_streamer, ports, sender=["--bytes", size], receiver=["--bytes", size])
    [rs] = done_streams(r, 1, timeout=90)
    [ss] = done_streams(s, 1, timeout=10)
    for d in (rs, ss):
        assert d["end"] == "ok", d.line
        assert int(d["sent"]) == size and int(d["received"]) == size, d.line
    assert ss["sent-sum"] == rs["received-sum"]
    assert rs["sent-sum"] == ss["received-sum"]
    assert ss["sent-sum"] != rs["sent-sum"]  # the two directions differ


def test_16_concurrent_streams(spawn_streamer, ports):
    size = 2_000_000
    s, r = pair(spawn_streamer, ports, sender=["--bytes", size, "--streams", 16],
                receiver=["--bytes", size, "--streams", 16])
    received = done_streams(r, 16, timeout=60)
    sent = done_streams(s, 16, timeout=10)
    assert all(d["end"] == "ok" for d in received + sent), r.transcript() + s.transcript()
    # Streams arrive in any order: every stream's bytes reach its own
    # counterpart, none mixed up.
    assert sorted(d["sent-sum"] for d in sent) == sorted(d["received-sum"] for d in received)
    assert sorted(d["sent-sum"] for d in received) == sorted(d["received-sum"] for d in sent)
    assert len({d["sent-sum"] for d in sent}) == 16


@pytest.mark.parametrize("victim", ["sender", "receiver"])
def test_peer_killed_mid_stream_ends_the_stream(spawn_streamer, ports, victim):
    big = 4_000_000_000  # more than can move before the kill
    s, r = pair(spawn_streamer, ports, sender=["--bytes", big], receiver=["--bytes", big])
    s.wait_for("stream-open", timeout=15)
    r.wait_for("stream-open", timeout=15)
    time.sleep(0.5)
    dead, survivor = (s, r) if victim == "sender" else (r, s)
    dead.signal(signal.SIGKILL)
    started = time.monotonic()
    done = survivor.wait_for("stream-done", timeout=15)
    assert time.monotonic() - started < 15
    # A lost stream reads as an error, never as a clean (early) EOF.
    assert done["end"] in ("epipe", "reset"), done.line
    assert int(done["received"]) < big and int(done["sent"]) < big
    survivor.wait_for("all-done", timeout=5)


@pytest.mark.parametrize("stopped", ["sender", "receiver"])
def test_an_app_freed_before_its_host_half_closed_loses_the_stream_visibly(spawn_streamer, ports, stopped):
    """One side's app is freed (SIGTERM: handoff_application_free) while its
    host is still writing and has not half-closed: the library must not end
    the stream on its behalf. The other side reads what arrived, then an
    error (ECONNRESET), never a clean EOF it would take for the whole."""
    big = 4_000_000_000  # more than can move before the stop
    writer = ["--bytes", big]
    reader = ["--bytes", 0]  # half-closes at once: its stream ends on what it reads
    s, r = pair(spawn_streamer, ports, sender=writer if stopped == "sender" else reader,
                receiver=writer if stopped == "receiver" else reader)
    s.wait_for("stream-open", timeout=15)
    r.wait_for("stream-open", timeout=15)
    victim, survivor = (s, r) if stopped == "sender" else (r, s)
    victim.signal(signal.SIGTERM)
    victim.wait_for("exit", timeout=15)
    done = survivor.wait_for("stream-done", timeout=30)
    assert done["end"] == "reset", done.line + "\n" + survivor.transcript() + victim.transcript()
    assert int(done["received"]) < big, done.line
    survivor.wait_for("all-done", timeout=5)


def test_stream_refused_for_an_activity_without_support(spawn_streamer, ports):
    s, r = pair(spawn_streamer, ports, sender=["--no-support"], receiver=["--bytes", 10])
    error = r.wait_for("request-error", timeout=15)
    assert int(error["code"]) == HANDOFF_E_INVALID_STATE
    assert "does not support continuation streams" in error.line
    assert not s.matches("stream-open") and not r.matches("stream-open")


def test_stream_refused_by_a_sender_that_takes_none(spawn_streamer, ports):
    s, r = pair(spawn_streamer, ports, sender=["--refuse"], receiver=["--bytes", 10])
    error = r.wait_for("stream-error", timeout=15)
    assert int(error["code"]) == HANDOFF_FAILED
    assert "delegate" in error.line
    assert not s.matches("stream-open")


def test_slow_reader_keeps_memory_bounded(spawn_streamer, ports):
    """The sender writes 48 MB as fast as it can; the receiver reads 64 KiB
    every 2 ms. Neither process may buffer what the reader has not taken."""
    size = 48_000_000
    s, r = pair(spawn_streamer, ports, sender=["--bytes", size],
                receiver=["--bytes", 0, "--slow-read-ms", 2])
    [rs] = done_streams(r, 1, timeout=90)
    [ss] = done_streams(s, 1, timeout=10)
    assert int(rs["received"]) == size and rs["received-sum"] == ss["sent-sum"]
    assert float(rs["seconds"]) > 1.0, "the reader was not slow: the test proves nothing"
    for peer in (s, r):
        opened_kb = int(peer.matches("stream-open")[0]["rss-kb"])
        peak_kb = int(peer.matches("all-done")[0]["hwm-kb"])
        assert peak_kb - opened_kb < 16 * 1024, "%s grew by %d kB while streaming:\n%s" % (
            peer.name, peak_kb - opened_kb, peer.transcript())
