# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the process-level tests (see harness.py)."""

import sys
from pathlib import Path

import pytest

# Tests/support: helpers the suites share (netns.py, keys.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))

import leftovers  # noqa: E402
from harness import PEER, STREAMER, Peer, free_port  # noqa: E402
from leftover_check import run_leaves_nothing  # noqa: E402,F401  (a session fixture: nothing left behind)

# Every process the tests start carries the run's tag (see leftovers.py),
# from the first one on.
leftovers.tag_run()


def _spawner(program, build_hint):
    if not program.exists():
        pytest.skip("%s is missing: build it first (%s)" % (program, build_hint))
    started = []

    def start(name, *args, netns=None, config=None):
        peer = Peer(name, args, netns, program=program, config=config)
        started.append(peer)
        peer.wait_for("ready", timeout=5)
        return peer

    return started, start


def _stop_all(started):
    for peer in started:
        peer.kill()
    for peer in started:  # shown by pytest only when the test failed
        print(peer.transcript())


@pytest.fixture
def spawn():
    """spawn(name, *args, netns=None) starts a peer and waits for `ready`.
    Every peer is killed when the test ends, whatever happened."""
    started, start = _spawner(PEER, "make lib build/bin/peer")
    yield start
    _stop_all(started)


@pytest.fixture
def spawn_streamer():
    """As `spawn`, for build/bin/streamer (Tests/integration/streamer.c)."""
    started, start = _spawner(STREAMER, "make lib build/bin/streamer")
    yield start
    _stop_all(started)


@pytest.fixture
def ports():
    return lambda n: [free_port() for _ in range(n)]
