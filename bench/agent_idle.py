"""What an idle `handoff agent` and an app connected to it cost: wake-ups
per second per thread, RSS and threads (docs/agent.md §8, "Figures").

    python3 bench/agent_idle.py [--seconds 20] [--tool build/bin/handoff]
                                [--app build/bin/idle_app]

A wake-up is a voluntary context switch (/proc/PID/task/TID/status,
voluntary_ctxt_switches): a thread that slept was woken and went back to
sleep. The difference over a window counts wake-ups, however loaded the
machine is. Three situations, each measured over the window after a
settling time (the first beacon burst of an advertisement lasts 1.75 s):

  a  the agent alone: nothing advertised, no app, no other device
  b  the agent and one app connected to it (bench/idle_app), nothing advertised
  c  the same app with one activity current: the agent advertises it

The agent runs with its own XDG_CONFIG_HOME / XDG_RUNTIME_DIR in a
temporary directory, no multicast, and one unicast peer on 127.0.0.1 where
nothing listens (beacons go there and nowhere else).
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def status(pid, tid=None):
    path = "/proc/%d/status" % pid if tid is None else "/proc/%d/task/%d/status" % (pid, tid)
    fields = {}
    for line in Path(path).read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def threads(pid):
    """{tid: (name, voluntary switches)} of a live process."""
    out = {}
    for entry in os.listdir("/proc/%d/task" % pid):
        tid = int(entry)
        try:
            s = status(pid, tid)
        except (FileNotFoundError, ProcessLookupError):
            continue
        out[tid] = (s["Name"], int(s["voluntary_ctxt_switches"]))
    return out


def measure(pid, seconds):
    before = threads(pid)
    time.sleep(seconds)
    return finish(pid, before, seconds)


def waiting_in(pid, tid):
    """What a thread waits in now: epoll_wait(timeout ms), poll(...), futex..."""
    try:
        words = Path("/proc/%d/task/%d/syscall" % (pid, tid)).read_text().split()
    except OSError:
        return "?"
    if not words or not words[0].isdigit():
        return words[0] if words else "?"
    number, args = int(words[0]), [int(w, 16) for w in words[1:7]]
    def signed(v):
        v &= (1 << 32) - 1
        return v - (1 << 32) if v >= 1 << 31 else v
    if number in (232, 281):
        return "epoll_wait %d ms" % signed(args[3])
    if number == 7:
        return "poll %d ms" % signed(args[2])
    return {202: "futex", 0: "read", 45: "recvfrom", 47: "recvmsg", 230: "clock_nanosleep",
            35: "nanosleep", 271: "ppoll"}.get(number, "syscall %d" % number)


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(path, text, proc, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit("agent exited: %s" % Path(path).read_text()[-400:])
        if Path(path).exists() and text in Path(path).read_text():
            return
        time.sleep(0.05)
    raise SystemExit("agent did not listen within %d s" % seconds)


def line(who, m):
    busy = ", ".join("#%d %s %.2f (in %s)" % (i, name, w, waits) for i, (name, w, waits) in
                     enumerate(m["per_thread"]) if w > 0) or "none"
    return "%-30s %8.2f %8d %8d   %s" % (who, m["total"], m["rss_kib"], m["threads"], busy)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--settle", type=float, default=3)
    parser.add_argument("--tool", default=str(ROOT / "build" / "bin" / "handoff"))
    parser.add_argument("--app", default=str(ROOT / "build" / "bin" / "idle_app"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="handoff-idle-") as tmp:
        config, runtime = Path(tmp, "config"), Path(tmp, "run")
        config.mkdir(mode=0o700)
        runtime.mkdir(mode=0o700)
        env = dict(os.environ, XDG_CONFIG_HOME=str(config), XDG_RUNTIME_DIR=str(runtime))
        for key in ("HANDOFF_AGENT_SOCKET", "DBUS_SESSION_BUS_ADDRESS", "LISTEN_FDS", "LISTEN_PID"):
            env.pop(key, None)
        subprocess.run([args.tool, "account", "create"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        log = Path(tmp, "agent.log")
        sock = str(runtime / "handoff" / "agent.sock")
        agent = subprocess.Popen(
            [args.tool, "agent", "--socket", sock, "--no-launch", "--no-notifications",
             "--no-multicast", "--peer", "127.0.0.1:%d" % free_udp_port(), "--beacon-port", "0",
             "--channel", "127.0.0.1:0"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log.open("w"))
        app = None
        rows = []
        try:
            wait_for(log, "listening", agent)
            time.sleep(args.settle)
            rows.append(line("a  agent, idle", measure(agent.pid, args.seconds)))
            env["HANDOFF_AGENT_SOCKET"] = sock
            for label, extra in (("b", []), ("c", ["--advertise"])):
                app = subprocess.Popen([args.app] + extra, env=env, stdout=subprocess.PIPE, text=True)
                if app.stdout.readline().strip() != "ready":
                    raise SystemExit("idle_app did not start")
                time.sleep(args.settle)
                before_agent, before_app = threads(agent.pid), threads(app.pid)
                time.sleep(args.seconds)
                # measured over the same window
                ma = finish(agent.pid, before_agent, args.seconds)
                mp = finish(app.pid, before_app, args.seconds)
                rows.append(line("%s  agent, app connected" % label, ma))
                rows.append(line("%s  app in agent mode" % label, mp))
                app.terminate()
                app.wait(timeout=10)
                app = None
        finally:
            if app is not None:
                app.kill()
                app.wait()
            agent.terminate()
            try:
                agent.wait(timeout=10)
            except subprocess.TimeoutExpired:
                agent.kill()
                agent.wait()
    print("idle cost over %.0f s windows (wake-ups = voluntary context switches per second; "
          "RSS in KiB); load average %s" % (args.seconds, open("/proc/loadavg").read().split()[:3]))
    print("%-30s %8s %8s %8s   %s" % ("situation", "wakeups/s", "RSS", "threads", "per thread (name wakeups/s)"))
    for r in rows:
        print(r)


def finish(pid, before, seconds):
    after = threads(pid)
    s = status(pid)
    per_thread = [(name, (count - before.get(tid, (name, 0))[1]) / seconds, waiting_in(pid, tid))
                  for tid, (name, count) in sorted(after.items())]
    return {"rss_kib": int(s["VmRSS"].split()[0]), "threads": int(s["Threads"]),
            "per_thread": per_thread, "total": sum(w for _, w, _ in per_thread)}


if __name__ == "__main__":
    sys.exit(main())
