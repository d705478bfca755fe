# SPDX-License-Identifier: MIT OR Apache-2.0
"""How often an idle process wakes, per thread: counts, not timings.

Each time a sleeping thread is woken and goes back to sleep the kernel
counts one voluntary context switch for it (/proc/PID/task/TID/status,
voluntary_ctxt_switches). The difference over a window is the number of
wake-ups in it, however slow or loaded the machine: a wake-up is counted
when it happens, not by how long it took. Non-voluntary switches
(preemption while running) are reported beside them.

As a module (the integration suite's idle test): `Window(pid)` ...
`.end()` gives a `Counts`. As a program, it measures build/bin/peer in the
three idle situations of docs/agent.md §8 and prints a table (the agent's
figures: `make bench-agent-idle`, bench/agent_idle.py):

    python3 Tests/support/wakeups.py [--seconds 30] [--strace] [--only abc]

  a  a receiver: nothing advertised, no other device
  b  a sender: one activity advertised, no other device
  c  a receiver, and a sender it has verified (measured: the receiver)

Each runs in a network namespace of its own (named hoffw-<pid>-<x>, lo
only; always deleted) when run as root, so that links other programs
create on the host (netlink reports) do not wake it; else on loopback.
"""

import argparse
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "build" / "bin" / "peer"
TOOL = ROOT / "build" / "bin" / "handoff"


# ------------------------------------------------------------- counting

def _status(path):
    """The fields of a /proc status file that matter here, or None when
    the task is gone."""
    try:
        text = Path(path).read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _syscall(pid, tid):
    """What the thread waits in now, e.g. 'poll(n=3, timeout=-1)'."""
    try:
        words = Path("/proc/%d/task/%d/syscall" % (pid, tid)).read_text().split()
    except OSError:
        return "?"
    if not words or not words[0].isdigit():
        return words[0] if words else "?"
    number, args = int(words[0]), [int(w, 16) for w in words[1:7]]
    names = {7: "poll", 271: "ppoll", 202: "futex", 232: "epoll_wait", 281: "epoll_pwait",
             0: "read", 45: "recvfrom", 47: "recvmsg", 230: "clock_nanosleep", 35: "nanosleep",
             270: "pselect6"}
    name = names.get(number, "syscall %d" % number)
    if number == 7:
        timeout = args[2] - (1 << 64) if args[2] >= 1 << 63 else args[2]
        timeout = timeout - (1 << 32) if timeout >= 1 << 31 else timeout
        return "poll(n=%d, timeout=%d)" % (args[1], timeout)
    return name


class Thread:
    def __init__(self, tid, name, voluntary, nonvoluntary, waits):
        self.tid, self.name, self.voluntary, self.nonvoluntary, self.waits = tid, name, voluntary, nonvoluntary, waits


def threads(pid):
    """{tid: Thread} of a live process."""
    out = {}
    for entry in os.listdir("/proc/%d/task" % pid):
        tid = int(entry)
        fields = _status("/proc/%d/task/%d/status" % (pid, tid))
        if fields is None:
            continue
        out[tid] = Thread(tid, fields.get("Name", "?"), int(fields.get("voluntary_ctxt_switches", 0)),
                          int(fields.get("nonvoluntary_ctxt_switches", 0)), _syscall(pid, tid))
    return out


def cpu_ticks(pid):
    """User plus system CPU time of the whole process in clock ticks
    (/proc/PID/stat; 100 a second): a thread that spins without sleeping
    makes no voluntary switch, but it makes these."""
    try:
        text = Path("/proc/%d/stat" % pid).read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def rss_kib(pid):
    fields = _status("/proc/%d/status" % pid) or {}
    return int(fields.get("VmRSS", "0 kB").split()[0])


class Counts:
    """Wake-ups of each thread over one window."""

    def __init__(self, seconds, rows, born, ended, rss, thread_count, ticks=0):
        self.seconds = seconds
        self.ticks = ticks          # CPU clock ticks used in the window
        self.rows = rows            # [(tid, name, voluntary, nonvoluntary, waits)]
        self.born, self.ended = born, ended
        self.rss, self.thread_count = rss, thread_count

    @property
    def total(self):
        return sum(r[2] for r in self.rows)

    def per_thread(self):
        return {r[0]: r[2] for r in self.rows}

    def table(self):
        lines = ["  %-7s %-16s %9s %9s %8s  %s" % ("tid", "thread", "wake-ups", "per s", "preempt", "waits in")]
        for tid, name, vol, nonvol, waits in self.rows:
            lines.append("  %-7d %-16s %9d %9.3f %8d  %s" % (tid, name, vol, vol / self.seconds, nonvol, waits))
        lines.append("  %-7s %-16s %9d %9.3f" % ("", "process", self.total, self.total / self.seconds))
        lines.append("  threads %d, RSS %d KiB, CPU %d ticks%s%s" % (
            self.thread_count, self.rss, self.ticks,
            ", threads started in the window: %d" % self.born if self.born else "",
            ", ended: %d" % self.ended if self.ended else ""))
        return "\n".join(lines)


class Window:
    """Counts a process's wake-ups from now until `end()`."""

    def __init__(self, pid):
        self.pid = pid
        self.before = threads(pid)
        self.ticks = cpu_ticks(pid)
        self.started = time.monotonic()

    def end(self):
        after = threads(self.pid)
        seconds = time.monotonic() - self.started
        rows = []
        for tid, t in sorted(after.items()):
            b = self.before.get(tid)
            base_v, base_n = (b.voluntary, b.nonvoluntary) if b else (0, 0)
            rows.append((tid, t.name, t.voluntary - base_v, t.nonvoluntary - base_n, t.waits))
        born = len(set(after) - set(self.before))
        ended = len(set(self.before) - set(after))
        return Counts(seconds, rows, born, ended, rss_kib(self.pid), len(after), cpu_ticks(self.pid) - self.ticks)


def strace_summary(pid, seconds):
    """`strace -f -c` attached for `seconds`: the system calls made."""
    if shutil.which("strace") is None:
        return "  (strace is not installed)"
    proc = subprocess.Popen(["strace", "-f", "-c", "-p", str(pid)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    keep = [line for line in err.splitlines() if not line.startswith("strace: Process")]
    return "\n".join("  " + line for line in keep)


# ------------------------------------------------------------- the peers

class Running:
    """One program (build/bin/peer unless `program`), its stdout and
    stderr read line by line (bounded waits)."""

    def __init__(self, args, netns=None, program=PEER, config=None, env=None):
        self.own_config = config is None
        self.config = config or tempfile.mkdtemp(prefix="handoff-wakeups-")
        cmd = [str(program)] + [str(a) for a in args]
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd
        environment = dict(os.environ, XDG_CONFIG_HOME=self.config)
        # An embedded engine unless told otherwise (no agent of the host's).
        environment.pop("HANDOFF_AGENT_SOCKET", None)
        environment.pop("XDG_RUNTIME_DIR", None)
        environment.pop("DBUS_SESSION_BUS_ADDRESS", None)
        environment.update(env or {})
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=environment)
        self.lines = []
        self._queue = queue.Queue()
        for stream in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def wait_for(self, word, timeout):
        """Reads lines until one starts with `word`, for `timeout` seconds at most."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                raise RuntimeError("%s never printed %r:\n%s" % (self.proc.args, word, "\n".join(self.lines)))
            self.lines.append(line)
            if line.startswith(word) or ('"event":"%s"' % word) in line:
                return line

    def _read(self, stream):
        for line in stream:
            self._queue.put(line.rstrip("\n"))

    @property
    def pid(self):
        """The peer's own pid (under `ip netns exec`, which execs it, the same)."""
        return self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.own_config:
            shutil.rmtree(self.config, ignore_errors=True)


def free_udp_tcp_port(start):
    import socket
    for port in range(start, start + 2000):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, \
                    socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                u.bind(("127.0.0.1", port))
                t.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    raise RuntimeError("no free port")


def ports():
    base = 40000 + (os.getpid() * 97) % 18000
    me = free_udp_tcp_port(base)
    return me, free_udp_tcp_port(me + 1)


def measure(named, seconds, use_strace, settle):
    """Past the start-up bursts (adverts 1.75 s, solicitations 1 s), the
    wake-ups of each (name, Running) over `seconds`, then strace of each."""
    time.sleep(settle)
    windows = [(name, Window(r.pid)) for name, r in named]
    time.sleep(seconds)
    out = [(name, window.end(), None) for name, window in windows]
    if use_strace:  # after the window: strace's own stops are context switches too
        out = [(name, counts, strace_summary(r.pid, seconds)) for (name, counts, _), (_, r) in zip(out, named)]
    return out


def scenario(which, netns, seconds, use_strace, settle):
    me, other = ports()
    common = ["--port", me, "--timeout", seconds + settle + 120, "--channel-address", "127.0.0.1:0"]
    started = []
    try:
        if which == "a":
            measured = Running(["--receive", "--device-name", "idle-a"] + common + ["--peer", "127.0.0.1:%d" % other], netns)
            started.append(measured)
            measured.wait_for("ready", 10)
        elif which == "b":
            measured = Running(["--send", "--device-name", "idle-b"] + common + ["--peer", "127.0.0.1:%d" % other], netns)
            started.append(measured)
            measured.wait_for("offering", 10)
        else:
            measured = Running(["--receive", "--device-name", "idle-c"] + common + ["--peer", "127.0.0.1:%d" % other], netns)
            started.append(measured)
            measured.wait_for("ready", 10)
            sender = Running(["--send", "--device-name", "idle-c-sender", "--port", other,
                              "--timeout", seconds + settle + 120, "--channel-address", "127.0.0.1:0",
                              "--peer", "127.0.0.1:%d" % me], netns)
            started.append(sender)
            measured.wait_for("available", 20)
        return measure([("peer", measured)], seconds, use_strace, settle)
    finally:
        for p in reversed(started):
            p.stop()


# The peer's default account (docs/PROTOCOL.md §4 test vector): an agent
# the peer is to reach joins it (test_idle.py).
PAIRING_CODE = "000G4-0R40M-30E20-9185G-R38E1-W8124-GK2GA-HC5RR-34D1P-70X3R-FP63E-D54"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--settle", type=float, default=3)
    parser.add_argument("--strace", action="store_true", help="then attach strace -f -c for as long again")
    parser.add_argument("--only", default="abc")
    args = parser.parse_args()
    if not PEER.exists():
        sys.exit("%s is missing: make lib build/bin/peer" % PEER)
    titles = {"a": "a) idle, nothing advertised, no other device",
              "b": "b) one activity advertised, no other device",
              "c": "c) a verified other device present (it advertises; this one is idle)"}
    isolated = os.geteuid() == 0 and shutil.which("ip") is not None
    for which in args.only:
        ns = None
        if isolated:
            ns = "hoffw-%d-%s" % (os.getpid(), which)
            subprocess.run(["ip", "netns", "add", ns], check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        try:
            results = scenario(which, ns, args.seconds, args.strace, args.settle)
        finally:
            if ns:
                subprocess.run(["ip", "netns", "del", ns], check=False)
        print("%s  [%.0f s%s]" % (titles[which], results[0][1].seconds, ", own netns" if ns else ", host loopback"))
        for name, counts, text in results:
            if len(results) > 1:
                print(" %s:" % name)
            print(counts.table())
            if text:
                print(text)
        print()


if __name__ == "__main__":
    main()
