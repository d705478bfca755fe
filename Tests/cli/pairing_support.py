# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the pairing tests share: the person's answers on a `handoff --json
pair` process's standard input, and how its run ended."""

from cli_support import WAIT

HANDOFF_FAILED = 4608  # include/handoff.h
TIMED_OUT = 10


def answer(proc, word):
    """The person's answer. The other side may have ended the run already
    (it said no first: this side heard REJECT and exited), which the
    outcome checks that follow tell; a closed pipe is not an error here."""
    try:
        proc.proc.stdin.write(word + "\n")
        proc.proc.stdin.flush()
    except BrokenPipeError:
        pass


def outcome(proc):
    """(exit status, last JSON line) once the process has ended."""
    status = proc.wait(timeout=WAIT * 4)
    events = proc.events()
    assert events, f"no output; stderr {proc.stderr}"
    return status, events[-1]


def failed_with(proc, code):
    """The error of a run that ended with exit 1 and `code`."""
    status, last = outcome(proc)
    assert status == 1 and last.get("error", {}).get("code") == code, (status, proc.lines, proc.stderr)
    return last["error"]
