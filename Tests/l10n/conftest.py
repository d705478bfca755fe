# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the translation tests: the `handoff` command tests' helpers
(Tests/cli: devices, the stand-in desktop) for the agent speaking German."""

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS / "support"))
sys.path.insert(0, str(TESTS / "cli"))

import leftovers  # noqa: E402
from leftover_check import run_leaves_nothing  # noqa: E402,F401  (a session fixture: nothing left behind)

leftovers.tag_run()


@pytest.fixture
def procs():
    """Processes a test starts; all killed when it ends, however it ends."""
    started = []
    yield started
    for proc in started:
        proc.kill()
