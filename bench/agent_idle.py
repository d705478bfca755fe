# SPDX-License-Identifier: MIT OR Apache-2.0
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

Then every state of the machine of Tests/support/idle_states.py (the
tailnet's folder absent or appearing, a stale or hung tailscaled, the
relay's broker down, silent, refusing or failing TLS, no bus, an empty
bus, a bus restarting, the history's disk full, not paired yet), each
measured over `--state-seconds` (60 by default) beside the quiet
baseline: wake-ups per second and CPU (clock ticks per second, 100 = a
whole core). `--states` picks some; `--tool` another build (an older one,
to compare).
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
sys.path.insert(0, str(ROOT / "Tests" / "support"))
from wakeups import Window  # noqa: E402  one way of counting wake-ups, shared with test_idle
import idle_states  # noqa: E402  the states, shared with test_idle_states


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


def line(who, counts):
    busy = ", ".join("#%d %s %.2f (in %s)" % (i, name, vol / counts.seconds, waits)
                     for i, (_, name, vol, _, waits) in enumerate(counts.rows) if vol > 0) or "none"
    return "%-30s %8.2f %8d %8d   %s" % (who, counts.total / counts.seconds, counts.rss, counts.thread_count, busy)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--settle", type=float, default=3)
    parser.add_argument("--tool", default=str(ROOT / "build" / "bin" / "handoff"))
    parser.add_argument("--app", default=str(ROOT / "build" / "bin" / "idle_app"))
    parser.add_argument("--state-seconds", type=float, default=60)
    parser.add_argument("--states", default=",".join(idle_states.STATES),
                        help="comma-separated, of: " + ", ".join(idle_states.STATES))
    parser.add_argument("--no-situations", action="store_true", help="only the states")
    args = parser.parse_args()
    if not args.no_situations:
        situations(args)
    states(args)


def states(args):
    idle_states.TOOL = Path(args.tool)
    print()
    print("every state of the machine, %.0f s each (wake-ups and CPU ticks per second; "
          "100 ticks/s = a whole core); load average %s" % (args.state_seconds, open("/proc/loadavg").read().split()[:3]))
    print("%-24s %10s %10s %8s   %s" % ("state", "wakeups/s", "ticks/s", "threads", "busiest thread"))
    for state in args.states.split(","):
        with idle_states.agent_in(state) as ctx:
            window = Window(ctx.agent.pid)
            time.sleep(args.state_seconds)
            counts = window.end()
        busiest = max(counts.rows, key=lambda r: (r[2], r[3]), default=None)
        print("%-24s %10.2f %10.2f %8d   %s" % (state, counts.total / counts.seconds, counts.ticks / counts.seconds,
                                               counts.thread_count,
                                               "%s %d wake-ups, %d preempted" % (busiest[1], busiest[2], busiest[3])
                                               if busiest else "-"))


def situations(args):

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
            window = Window(agent.pid)
            time.sleep(args.seconds)
            rows.append(line("a  agent, idle", window.end()))
            env["HANDOFF_AGENT_SOCKET"] = sock
            for label, extra in (("b", []), ("c", ["--advertise"])):
                app = subprocess.Popen([args.app] + extra, env=env, stdout=subprocess.PIPE, text=True)
                if app.stdout.readline().strip() != "ready":
                    raise SystemExit("idle_app did not start")
                time.sleep(args.settle)
                # measured over the same window
                agent_window, app_window = Window(agent.pid), Window(app.pid)
                time.sleep(args.seconds)
                ma, mp = agent_window.end(), app_window.end()
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


if __name__ == "__main__":
    sys.exit(main())
