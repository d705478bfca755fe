# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared set-up of the binding's tests: the package from this source tree,
the repository's paths, free loopback ports, and a loop that drives
several applications of this process at once."""

from __future__ import annotations

import gc
import os
import select
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

BINDING = Path(__file__).resolve().parents[1]
REPO = BINDING.parents[1]
sys.path.insert(0, str(BINDING))
sys.path.insert(0, str(REPO / "Tests" / "support"))
import ports as port_picker  # noqa: E402  (Tests/support: one port picker for every suite)

import handoff  # noqa: E402  (the package of this source tree)

BINDIR = REPO / "build" / "bin"
EXAMPLES = REPO / "examples" / "python"
TEST_KEY = bytes(range(32))  # docs/PROTOCOL.md's test account (peer.c's default)



def free_port() -> int:
    """A port free for UDP and TCP on this host right now, outside the
    kernel's ephemeral range (Tests/support/ports.py)."""
    return port_picker.free_port(os.getpid() * 197)


@pytest.fixture
def ports():
    return lambda n: [free_port() for _ in range(n)]


def pump(apps, until, timeout=8.0, children=()):
    """Dispatches `apps` (all created on this thread) until `until()` is
    true; fails after `timeout` seconds, with the transcripts of
    `children` (processes.Child)."""
    deadline = time.monotonic() + timeout
    while not until():
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"condition not reached within {timeout} s\n"
                        + "\n".join(child.transcript() for child in children))
        select.select(apps, [], [], min(left, 0.1))
        for app in apps:
            app.dispatch()


def settle(apps, seconds):
    """Dispatches `apps` for `seconds` (to see that something does NOT happen)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        select.select(apps, [], [], min(left, 0.05))
        for app in apps:
            app.dispatch()


def new_device_id() -> str:
    """A device id of its own, for an app that must be another device than
    the other apps of this process (they would share the device file's)."""
    return uuid.uuid4().hex


@pytest.fixture(autouse=True)
def own_config_directory(tmp_path_factory, monkeypatch):
    """Every test runs with a config directory of its own: an app started
    without a device id uses (and creates) the device file there, never the
    real one under $HOME."""
    config = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return config


def connect(apps_and_ports, key=TEST_KEY, **options):
    """Starts continuity for each (app, port, name), every app the others'
    unicast peer on loopback, each app a device of its own."""
    for app, port, name in apps_and_ports:
        peers = [f"127.0.0.1:{p}" for _, p, _ in apps_and_ports if p != port]
        account = handoff.Account.from_key(key)
        app.start_continuity(account, beacon_port=port, multicast=False, peers=peers,
                             device_id=new_device_id(), device_name=name,
                             channel_address="127.0.0.1:0", **options)
        account.close()


def c_compiler():
    """The C compiler, or a skip when there is none."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler (set CC)")
    return cc


def compile_c(source: Path, output: Path, *flags: str) -> Path:
    subprocess.run([c_compiler(), "-std=c11", "-Wall", "-Wextra", "-Werror", *flags,
                    "-o", str(output), str(source)], check=True)
    return output


class Recorder:
    """Collects what callbacks saw, in order."""

    def __init__(self):
        self.events = []

    def __call__(self, *event):
        self.events.append(event)

    def names(self):
        return [e[0] for e in self.events]

    def find(self, name):
        return [e for e in self.events if e[0] == name]


@pytest.fixture(autouse=True)
def _collect_leftovers():
    """Releases what a test left (applications stop their threads)."""
    yield
    gc.collect()


@pytest.fixture
def closing():
    """closing(x) closes x when the test ends, whatever happens."""
    things = []
    yield lambda thing: things.append(thing) or thing
    for thing in reversed(things):
        thing.close()


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def unraisable(monkeypatch):
    """What reached sys.unraisablehook during the test."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    return seen
