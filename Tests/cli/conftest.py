# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the `handoff` command tests (see cli_support.py)."""

import sys
from pathlib import Path

import pytest

# Tests/support: helpers the suites share (netns.py, keys.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))

import leftovers  # noqa: E402
from cli_support import TOOL, Device, free_port, pair_of_devices  # noqa: E402
from leftover_check import run_leaves_nothing  # noqa: E402,F401  (a session fixture: nothing left behind)

# Every process the tests start carries the run's tag (see leftovers.py),
# from the first one on.
leftovers.tag_run()


def pytest_collection_modifyitems(config, items):
    if not TOOL.exists():
        raise pytest.UsageError(f"{TOOL} is not built: run `make tool` (or `make test-cli`) first")


@pytest.fixture
def procs():
    """Processes a test starts; all killed when it ends, however it ends."""
    started = []
    yield started
    for proc in started:
        proc.kill()


@pytest.fixture
def pair(tmp_path, procs):
    return pair_of_devices(tmp_path, procs)


@pytest.fixture
def device(tmp_path, procs):
    """One device with no account yet."""
    return Device(tmp_path, "solo", procs)


@pytest.fixture
def ports():
    """A fresh pair of UDP ports: (A's beacon port, B's beacon port)."""
    return free_port(), free_port()
