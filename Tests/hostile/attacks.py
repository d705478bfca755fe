# SPDX-License-Identifier: MIT OR Apache-2.0
"""How every hostile test runs: the genuine pair hands off while the
attacker is at work, the victims' threads, fds and RSS are sampled all
along and for a moment after, and one more handoff follows the attack."""

import os

import pytest

from victims import bounds_broken

# Handoffs under each attack (the acceptance: all of them succeed).
HANDOFFS = int(os.environ.get("HOSTILE_HANDOFFS", "20"))


class Outcome:
    pass


def under_attack(pair, start, record, name, after_engaged=None, handoffs=HANDOFFS,
                 attack_ends_by_itself=False):
    """start() starts the attacker; after_engaged(attacker), if given, runs
    once the attacker's first round reached the victims. Returns an
    Outcome with the counts; the caller asserts."""
    out = Outcome()
    with pair.sampler() as sampler:
        attacker = start()
        attacker.wait_for("engaged", timeout=30)
        if after_engaged:
            after_engaged(attacker)
        out.succeeded, out.attempted = pair.handoffs(handoffs)
        # However quickly the handoffs went, the attack goes on for 20 more
        # samples of the victims (about a second).
        sampler.wait_samples(20)
        if attack_ends_by_itself:
            attacker.wait_for("result", timeout=120)
        attacker.stop(timeout=15)
        results = attacker.matches("result")
        out.result = dict(results[0]) if results else {}
        # After the attack: one more handoff, and the peaks of the moment.
        out.after = pair.alive() and pair.handoff()
        pair.receiver.settle(1.0)
    out.sampler = sampler
    out.broken = bounds_broken(sampler)
    out.alive = pair.alive()
    record(name, out.succeeded, out.attempted, sampler, after=out.after,
           alive=out.alive, attacker=out.result)
    return out


def assert_survived(out, handoffs=HANDOFFS):
    """The victims lived, every genuine handoff succeeded during and after
    the attack, and their resources stayed within bounds."""
    peaks = "; ".join(repr(p) for p in out.sampler.peaks.values())
    assert out.alive, "a victim died (%s)" % peaks
    assert (out.succeeded, out.attempted) == (handoffs, handoffs), \
        "%d of %d genuine handoffs succeeded under the attack (%s; attacker %s)" % (
            out.succeeded, out.attempted, peaks, out.result)
    assert out.after, "no handoff after the attack ended"
    assert not out.broken, "; ".join(out.broken)

