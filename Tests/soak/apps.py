# SPDX-License-Identifier: MIT OR Apache-2.0
"""Scale: as many apps as one agent takes (docs/agent.md §3 "Bounds": 64
connections, 8 per pid), all advertising or receiving, and a handoff each
way still works.

    python3 Tests/soak/apps.py [--apps 64]

Two devices of one account on loopback, each a `handoff agent`. On A,
--apps build/bin/peer processes in agent mode (one connection each): half
senders, each offering an activity of its own, half receivers of the type
B offers, the first of which continues what B offers. One more app on A
is refused (the agent logs "refused"). On B, one sender and one receiver
that continues what A offers: one device advertises one activity at a
time (docs/agent.md §4), the current activity of the app that made one
current last, so B hears one of A's senders', and that sender, and no
other, is told it was continued.
Agent A's RSS, open fds and threads are read from /proc alone, with every
app, and after the handoffs. Exit status 1 when an app did not connect,
an activity was not seen, a handoff failed or the extra app got in.
"""

import argparse
import sys
import time

import soak

FROM_A = "com.example.soak.froma"
FROM_B = "com.example.soak.fromb"
WAIT = 120
BOUND = 64  # AgentLimits: connections per agent


def start_all(device, argvs):
    """Starts every app at once, then waits for each to be ready."""
    apps = [device.app(*argv) for argv in argvs]
    for app in apps:
        app.wait_for("ready", WAIT)
    return apps


def run(count):
    scratch = soak.Scratch("handoff-apps-")
    started = []
    try:
        a, b = soak.two_agents(scratch, "apps", started)
        time.sleep(1.5)  # past the agent's start-up solicitations
        alone = soak.held(a.agent.pid)

        senders_n = count // 2
        argvs = [["--send", "--type", FROM_A, "--title", "a%d" % i, "--bundle", "com.example.soak.a%d" % i]
                 for i in range(senders_n)]
        argvs += [["--receive", "--type", FROM_B, "--bundle", "com.example.soak.r%d" % i]
                  + (["--auto-continue"] if i == 0 else []) for i in range(count - senders_n)]
        t0 = time.monotonic()
        apps = start_all(a, argvs)
        started += apps
        senders, receivers = apps[:senders_n], apps[senders_n:]
        offered = {soak.fields(app.wait_for("offering", WAIT))["id"] for app in senders}
        connected = time.monotonic() - t0
        full = soak.held(a.agent.pid)

        # At the bound, one app more is refused at once.
        if count >= BOUND:
            extra = a.app("--receive", "--type", FROM_B, "--bundle", "com.example.soak.extra", timeout=30)
            started.append(extra)
            soak.wait_for(lambda: any('"event":"refused"' in line for line in a.agent.lines + soak.lines(a.agent)),
                          "agent A refusing app %d" % (count + 1), WAIT)
            soak.stop(extra)
            started.remove(extra)

        # B offers: every receiver on A hears of it; the first continues it.
        t1 = time.monotonic()
        b_sender = b.app("--send", "--type", FROM_B, "--title", "from B")
        started.append(b_sender)
        b_offered = soak.fields(b_sender.wait_for("offering", WAIT))["id"]
        for app in receivers:
            seen = soak.fields(app.wait_for("available", WAIT))
            if seen.get("id") != b_offered:
                raise soak.Failed("a receiver on A was offered %s, not B's %s" % (seen, b_offered))
        heard_all = time.monotonic() - t1
        receivers[0].wait_for("restored", WAIT)
        b_sender.wait_for("was-continued", WAIT)
        b_to_a = time.monotonic() - t1

        # B continues what A advertises: one of its senders' activities.
        t2 = time.monotonic()
        b_receiver = b.app("--receive", "--type", FROM_A, "--auto-continue")
        started.append(b_receiver)
        seen = set()
        restored = False

        def progress():
            nonlocal restored
            for line in soak.lines(b_receiver):
                word = line.split(" ", 1)[0]
                if word == "available":
                    seen.add(soak.fields(line)["id"])
                elif word == "restored":
                    restored = True
                elif word in ("failed", "continue-error"):
                    raise soak.Failed("B's receiver: %s" % line)
            return restored and seen

        soak.wait_for(progress, "B's receiver hearing of A's activity and continuing it", WAIT)
        if not seen <= offered:
            raise soak.Failed("B heard of %s, none of A's senders' %s" % (seen - offered, offered))
        a_to_b = time.monotonic() - t2
        continued = soak.wait_for(lambda: [app for app in senders if any(
            line.startswith("was-continued") for line in app.lines + soak.lines(app))],
            "A's sender told it was continued", WAIT)
        time.sleep(1)  # and no other
        continued = [app for app in senders if any(line.startswith("was-continued")
                                                   for line in app.lines + soak.lines(app))]
        ids = {soak.fields(line)["id"] for app in continued for line in app.lines
               if line.startswith("was-continued")}
        if len(continued) != 1 or ids != seen:
            raise soak.Failed("A's senders told they were continued: %d, of %s (B continued %s)"
                              % (len(continued), ids, seen))
        after = soak.held(a.agent.pid)
        if any(app.proc.poll() is not None for app in apps):
            raise soak.Failed("an app on A exited during the run")

        print("scale: %d apps on one agent (%d senders, %d receivers), loopback; %s"
              % (count, senders_n, count - senders_n, soak.loaded()))
        print("  all %d connected and offering %.1f s after they started%s"
              % (count, connected, "; app %d refused at once" % (count + 1) if count >= BOUND else ""))
        print("  B's activity: heard by all %d receivers on A in %.2f s, continued by one and confirmed "
              "%.2f s after B offered it" % (count - senders_n, heard_all, b_to_a))
        print("  A's current activity (of %d senders): continued and restored on B, its sender told so, "
              "%.2f s after B's receiver started" % (senders_n, a_to_b))
        print("  agent A  %-20s %10s %6s %8s %8s" % ("", "rss KiB", "fds", "threads", "cpu s"))
        for what, held in (("alone", alone), ("with %d apps" % count, full), ("after the handoffs", after)):
            print("  agent A  %-20s %10d %6d %8d %8.2f" % (what, held["rss"], held["fds"], held["threads"],
                                                          held["cpu"]))
        return True
    finally:
        soak.stop_all(started)
        scratch.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=int, default=64)
    args = parser.parse_args()
    return soak.outcome("scale: apps", lambda: run(args.apps))


if __name__ == "__main__":
    sys.exit(main())
