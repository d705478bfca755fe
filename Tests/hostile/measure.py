# SPDX-License-Identifier: MIT OR Apache-2.0
"""The victims' resources, read from /proc while an attack runs: threads
(/proc/PID/task), open fds (/proc/PID/fd) and resident memory (VmRSS of
/proc/PID/status); and, once the attack is over, the TCP sockets left in
CLOSE-WAIT (reading the socket tables is too slow to do every 50 ms). A sampler thread keeps the peaks; a process whose RSS
passes a hard ceiling is killed at once, so a decoding bomb cannot take the
machine down with it (the test then fails on the recorded peak)."""

import os
import signal
import threading

# Hard ceiling for a victim's RSS: far over any bound the tests assert, so
# reaching it is a failure anyway; it only protects the machine.
KILL_RSS_KB = 1024 * 1024


CLOSE_WAIT = "08"  # the st column of /proc/net/tcp


def close_wait(pid):
    """How many of the process's TCP sockets are in CLOSE-WAIT (the peer
    closed; the process never did). Read through /proc/PID/net, so it is
    the table of the process's own network namespace."""
    try:
        inodes = set()
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        count = 0
        for table in ("tcp", "tcp6"):
            with open("/proc/%d/net/%s" % (pid, table)) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if cols[3] == CLOSE_WAIT and cols[9] in inodes:
                        count += 1
        return count
    except (FileNotFoundError, ProcessLookupError, PermissionError, StopIteration):
        return 0


def snapshot(pid):
    """(threads, fds, rss_kb) of a live process, or None once it is gone."""
    try:
        threads = len(os.listdir("/proc/%d/task" % pid))
        fds = len(os.listdir("/proc/%d/fd" % pid))
        rss = 0
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                    break
        return threads, fds, rss
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None


class Peaks:
    def __init__(self, name, pid):
        self.name, self.pid = name, pid
        self.threads = self.fds = self.rss_kb = 0
        self.close_wait = 0
        self.samples = 0
        self.killed_for_rss = False

    def take(self, sample):
        threads, fds, rss = sample
        self.threads = max(self.threads, threads)
        self.fds = max(self.fds, fds)
        self.rss_kb = max(self.rss_kb, rss)
        self.samples += 1

    def __repr__(self):
        return "%s: threads %d, fds %d, RSS %.1f MB, CLOSE-WAIT %d%s" % (
            self.name, self.threads, self.fds, self.rss_kb / 1024, self.close_wait,
            " (killed at the RSS ceiling)" if self.killed_for_rss else "")


class Sampler:
    """Samples every `period` seconds until stop(); peaks per process.
    Bounded: it stops by itself after `limit` seconds too."""

    def __init__(self, processes, period=0.05, limit=300):
        self.peaks = {name: Peaks(name, pid) for name, pid in processes.items()}
        self.period, self.limit = period, limit
        self._stop = threading.Event()
        self.rounds = 0   # samplings done by the thread
        self.errors = []  # what went wrong while sampling (the test fails on it)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def sample(self, sockets=False):
        for p in self.peaks.values():
            if sockets:
                p.close_wait = max(p.close_wait, close_wait(p.pid))
            now = snapshot(p.pid)
            if now is None:
                continue
            p.take(now)
            if now[2] > KILL_RSS_KB and not p.killed_for_rss:
                p.killed_for_rss = True
                try:
                    os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _run(self):
        for _ in range(int(self.limit / self.period)):
            if self._stop.wait(self.period):
                return
            try:
                self.sample()
                self.rounds += 1
            except Exception as e:  # noqa: BLE001 - kept for the test to report
                self.errors.append(repr(e))
                if len(self.errors) > 20:
                    return

    def wait_samples(self, count, limit=60):
        """Returns once `count` more samples were taken (at most `limit`
        seconds): the attack is still running while they are."""
        target = self.rounds + count
        for _ in range(int(limit / self.period)):
            if self.rounds >= target or not self._thread.is_alive():
                return
            self._stop.wait(self.period)

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.sample(sockets=True)
