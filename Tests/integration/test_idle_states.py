# SPDX-License-Identifier: MIT OR Apache-2.0
"""An idle `handoff agent` sleeps in every state of the machine (issue 34;
docs/agent.md §8 "Every state of the machine"), counted, not timed.

Each state of Tests/support/idle_states.py (tailscaled's folder absent,
appearing, without a socket, a stale socket, a hung tailscaled; the relay's
broker down or silent; no session bus, an empty one, one restarting; the
history's disk full) is set up around one agent, and the agent's wake-ups
(voluntary context switches, Tests/support/wakeups.py) and the CPU clock
ticks it used are counted over WINDOW seconds once the state has happened
(a thread spinning on a descriptor that stays readable makes no voluntary
switch, but it makes ticks). Everything that retries does
so on a timer of seconds (tailscaled's socket every 10 s, the relay's
backoff from 1 s up), so a few wake-ups fit in a window and a loop does
not: the agent that spun on tailscaled's folder woke thousands of times a
second. The counts, with the syscalls that made them, are printed.
"""

import os
import time

import pytest

import idle_states
import wakeups

WINDOW = 4.0
# What may wake an idle agent in WINDOW seconds in any state: a retry or
# poll of a few seconds' period and the window's edges. A busy loop is
# thousands.
BOUND = 6
# CPU clock ticks (1/100 s) in the window: an idle agent uses none; the
# one that spun used 100 a second.
TICKS = 10


def agent_wakeups(state):
    with idle_states.agent_in(state) as ctx:
        window = wakeups.Window(ctx.agent.pid)
        time.sleep(WINDOW)  # the window measured, not a wait for anything
        counts = window.end()
        alive = ctx.agent.poll() is None
        log = ctx.log_text()
    return counts, alive, log


@pytest.mark.parametrize("state", sorted(idle_states.STATES))
def test_an_idle_agent_sleeps(state):
    if not idle_states.TOOL.exists():
        pytest.skip("%s is missing: make tool" % idle_states.TOOL)
    if state == "disk-full" and os.geteuid() != 0:
        pytest.skip("mounting the full file system needs root")
    counts, alive, log = agent_wakeups(state)
    print(state)
    print(counts.table())
    assert alive, log[-2000:]
    assert counts.total <= BOUND, "%s: %d wake-ups in %.0f s\n%s\n%s" % (
        state, counts.total, counts.seconds, counts.table(), log[-2000:])
    assert counts.ticks <= TICKS, "%s: %d CPU ticks in %.0f s\n%s\n%s" % (
        state, counts.ticks, counts.seconds, counts.table(), log[-2000:])
    assert counts.born == 0, counts.table()  # no thread started per retry


@pytest.mark.parametrize("state", ["bus-appears", "bus-restarting"])
def test_the_desktop_faces_come_back_with_the_bus(state):
    """The bus comes (or comes back) while the agent runs: its search
    provider and its session-bus API own their names again on the new bus,
    without a restart."""
    if not idle_states.TOOL.exists():
        pytest.skip("%s is missing: make tool" % idle_states.TOOL)
    with idle_states.agent_in(state, settle=0) as ctx:
        deadline = time.monotonic() + 30
        while not ctx.bus.has_owner("org.libhandoff.History"):
            assert ctx.agent.poll() is None, ctx.log_text()[-2000:]
            assert time.monotonic() < deadline, "the search never came back:\n" + ctx.log_text()[-2000:]
            time.sleep(0.1)
        ctx.wait_log("the session bus is back: search started again")
        ctx.wait_log("the session bus is back: tray started again")
        ctx.wait_log("the session bus is back: notifications started again")
        # The API front ends use (docs/agent.md §15) owns its name again too.
        ctx.wait_log("the session bus is back: session-api started again")
        deadline = time.monotonic() + 30
        while not ctx.bus.has_owner("org.libhandoff.Agent"):
            assert time.monotonic() < deadline, "the session-bus API never came back:\n" + ctx.log_text()[-2000:]
            time.sleep(0.1)
