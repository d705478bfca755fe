# SPDX-License-Identifier: MIT OR Apache-2.0
"""Child processes end with the test run that started them: each suite
tracks what it starts until it is reaped, and whatever is left is killed
and reaped at exit. A run stopped with SIGTERM (a CI job cancelled) still
runs its fixtures' finalizers: SIGTERM becomes KeyboardInterrupt, which
pytest treats as an interruption and tears fixtures down. A child orphaned
anyway (SIGKILL) ends by its own timeout."""

import atexit
import signal
import subprocess

LIVE = set()  # every Popen not yet reaped


def track(proc):
    """Keeps `proc` until it is reaped (by `kill`) or forgotten."""
    LIVE.add(proc)
    return proc


def forget(proc):
    """`proc` was reaped by its owner."""
    LIVE.discard(proc)


def kill(proc, wait=5):
    """Kills `proc` if it still runs, and reaps it (waiting `wait` seconds)."""
    if proc.poll() is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        pass
    LIVE.discard(proc)


@atexit.register
def _kill_leftovers():
    for proc in list(LIVE):
        kill(proc)


def _terminated(signum, frame):
    raise KeyboardInterrupt("SIGTERM")


if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
    signal.signal(signal.SIGTERM, _terminated)
