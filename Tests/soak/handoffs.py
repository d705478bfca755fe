# SPDX-License-Identifier: MIT OR Apache-2.0
"""Soak: many handoffs between two agents, and what the agents hold meanwhile.

    python3 Tests/soak/handoffs.py [--handoffs 10000] [--every 500]

Two devices of one account on loopback, each a `handoff agent` with its own
XDG_CONFIG_HOME and XDG_RUNTIME_DIR (unicast beacons to each other, no
multicast, channels on 127.0.0.1). On A a sender app (build/bin/peer
--send --agent) offers one activity; on B a receiver app continues it,
again and again (--continue-times), each handoff through both agents.
Every --every handoffs both agents' RSS, open fds and threads are read
from /proc. Flat means: the last sample within a bound of the sample after
warm-up (the first after 2 x --every handoffs): RSS +5% or +2 MiB (the
larger), fds +2, threads +4 (the library starts a short-lived thread per
fetch and per confirm, which a sample may catch).

A failed continue ends the receiver's chain: a new receiver takes over
for the rest (at most 5 times, each counted). Exit status 1 when the
handoffs did not all complete, or an agent did not stay flat.
"""

import argparse
import sys
import time

import soak

TYPE = "com.example.soak.handoff"
STALL = 60        # s without a handoff: the receiver is replaced
RESTARTS = 5
TIME_LIMIT = 1800  # s for the whole run


def flat(samples, warm_index):
    """{metric: (first, warm, last, max, bound, ok)} over one agent's samples."""
    out = {}
    warm, last = samples[warm_index], samples[-1]
    bounds = {"rss": max(warm["rss"] * 0.05, 2048), "fds": 2, "threads": 4}
    for metric, slack in bounds.items():
        values = [s[metric] for s in samples]
        out[metric] = (values[0], warm[metric], last[metric], max(values), warm[metric] + slack,
                       last[metric] <= warm[metric] + slack)
    return out


def run(handoffs, every):
    scratch = soak.Scratch("handoff-soak-")
    started = []
    try:
        a, b = soak.two_agents(scratch, "soak", started)
        sender = a.app("--send", "--type", TYPE, "--title", "soak")
        started.append(sender)
        sender.wait_for("offering", 60)

        done, failures, restarts, confirmed = 0, [], 0, 0
        samples = {"A": [], "B": []}
        marks = []

        def sample():
            marks.append(done)
            for name, device in (("A", a), ("B", b)):
                samples[name].append(soak.held(device.agent.pid))

        t0 = time.monotonic()
        end = t0 + TIME_LIMIT
        while done < handoffs:
            if restarts > RESTARTS:
                raise soak.Failed("the receiver failed %d times: %s" % (restarts, failures[-3:]))
            receiver = b.app("--receive", "--type", TYPE, "--auto-continue",
                             "--continue-times", handoffs - done)
            started.append(receiver)
            receiver.wait_for("available", 60)  # each receiver: the offer first
            if not marks:
                sample()
            last_progress = time.monotonic()
            chain_broken = False
            while done < handoffs and not chain_broken:
                got = soak.lines(receiver)
                if not got:
                    if receiver.proc.poll() is not None or time.monotonic() - last_progress > STALL:
                        failures.append("receiver stalled or exited (status %s)" % receiver.proc.poll())
                        chain_broken = True
                    if time.monotonic() > end:
                        raise soak.Failed("time limit: %d of %d handoffs in %d s" % (done, handoffs, TIME_LIMIT))
                    time.sleep(0.01)
                    continue
                for line in got:
                    word = line.split(" ", 1)[0]
                    if word == "restored":
                        done += 1
                        last_progress = time.monotonic()
                        if done % every == 0:
                            sample()
                    elif word in ("failed", "continue-error"):
                        failures.append(line)
                        chain_broken = True
                confirmed += sum(1 for line in soak.lines(sender) if line.startswith("was-continued"))
            if done < handoffs:
                restarts += 1
            soak.stop(receiver)
            started.remove(receiver)
        elapsed = time.monotonic() - t0
        # The last CONFIRMs may still be on their way.
        deadline = time.monotonic() + 10
        while confirmed < handoffs and time.monotonic() < deadline:
            confirmed += sum(1 for line in soak.lines(sender) if line.startswith("was-continued"))
            time.sleep(0.05)
        if marks[-1] != done:
            sample()
        return report(handoffs, every, done, elapsed, confirmed, failures, restarts, marks, samples)
    finally:
        soak.stop_all(started)
        scratch.close()


def report(handoffs, every, done, elapsed, confirmed, failures, restarts, marks, samples):
    print("soak: %d handoffs between two agents on loopback in %.1f s (%.0f/s; %s at the end)"
          % (done, elapsed, done / elapsed, soak.loaded()))
    print("  sender told it was continued %d times; failed continues %d, receivers replaced %d"
          % (confirmed, len(failures), restarts))
    for failure in failures[:5]:
        print("    %s" % failure)
    warm_index = min(2, len(marks) - 1)
    ok = done == handoffs
    print("  agents sampled every %d handoffs (%d samples); warm-up sample at %d handoffs"
          % (every, len(marks), marks[warm_index]))
    print("  %-6s %-8s %10s %10s %10s %10s %12s  %s" % ("agent", "", "first", "warm-up", "last", "max",
                                                        "bound", "flat"))
    for name in ("A", "B"):
        for metric, (first, warm, last, top, bound, good) in flat(samples[name], warm_index).items():
            print("  %-6s %-8s %10d %10d %10d %10d %12s  %s" % (name, metric, first, warm, last, top,
                                                             "<= %d" % bound, "yes" if good else "NO"))
            ok = ok and good
        cpu = samples[name][-1]["cpu"] - samples[name][0]["cpu"]
        print("  %-6s cpu      %.1f s over the run, %.0f us per handoff" % (name, cpu, cpu / max(done, 1) * 1e6))
    print("  (rss in KiB; the bound: warm-up + max(5%, 2 MiB) for rss, +2 fds, +4 threads)")
    series = ", ".join("%d:%d/%d" % (m, sa["rss"], sb["rss"]) for m, sa, sb in zip(marks, samples["A"], samples["B"]))
    print("  rss A/B by handoffs: %s" % series)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--handoffs", type=int, default=10000)
    parser.add_argument("--every", type=int, default=500)
    args = parser.parse_args()
    return soak.outcome("soak: handoffs", lambda: run(args.handoffs, args.every))


if __name__ == "__main__":
    sys.exit(main())
