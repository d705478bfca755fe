# SPDX-License-Identifier: MIT OR Apache-2.0
"""The sender's channel out of descriptors (docs/PROTOCOL.md §6 "Limits
and lifecycle"): accept fails with EMFILE while connections wait in the
backlog, so the listener stays readable. The admission thread backs off
(its listener parked 100 ms at a time) instead of spinning on it, and the
pair hands off again once descriptors are free.

Counts only: the admission thread's CPU ticks (/proc/PID/task/TID/stat),
not how long anything took."""

import os
import resource
import socket
import time

CHANNEL_HOST = "127.0.0.1"
FLOOD = 40              # silent connections queued in the backlog
HEADROOM = 3            # descriptors left to the sender above what it holds
WINDOW = 2.0            # seconds the admission thread is watched
MAX_TICKS = 40          # of ~200 (clock ticks at 100 Hz over WINDOW): a spin takes all


def thread_ticks(pid, name):
    """utime + stime of the thread called `name` in `pid`, in clock ticks."""
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() != name:
                    continue
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
        except FileNotFoundError:
            continue
    raise AssertionError("no thread %s in %d" % (name, pid))


def test_out_of_descriptors_the_admission_thread_backs_off(pair):
    pid = pair.sender.proc.pid
    port = pair.ports["channel"]
    limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    held = len(os.listdir("/proc/%d/fd" % pid))
    flood = []
    try:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (held + HEADROOM, limits[1]))
        for _ in range(FLOOD):
            s = socket.create_connection((CHANNEL_HOST, port), timeout=5)
            flood.append(s)
        # The sender takes what its descriptors allow, then accept fails.
        deadline = time.monotonic() + 10
        while len(os.listdir("/proc/%d/fd" % pid)) < held + HEADROOM and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(os.listdir("/proc/%d/fd" % pid)) >= held + HEADROOM, "the sender never ran out of descriptors"
        before = thread_ticks(pid, "hoff-admission")
        time.sleep(WINDOW)  # an observation window, not a synchronisation
        spent = thread_ticks(pid, "hoff-admission") - before
        assert spent <= MAX_TICKS, "the admission thread spent %d ticks in %.0f s out of descriptors" % (spent, WINDOW)
        assert pair.alive()
    finally:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, limits)
        for s in flood:
            s.close()
    # Descriptors back: the flood's connections end at their deadlines and
    # the genuine pair hands off again.
    assert pair.handoff(timeout=20), "no handoff once descriptors were free again"
