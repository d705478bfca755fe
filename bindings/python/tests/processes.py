# SPDX-License-Identifier: MIT OR Apache-2.0
"""Child processes for the two-process tests: their output lines as they
arrive, bounded waits, and a guaranteed end (killed and reaped by the
`spawn` fixture, with an atexit backstop)."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import children  # Tests/support (on the path: conftest.py)

class Child:
    """A running child: stdout lines collected by a thread, stderr kept.
    Unless `env` sets XDG_CONFIG_HOME, each child gets a config directory of
    its own (removed by kill()): it is a device of its own, not this
    process's, whose device file it would otherwise share."""

    def __init__(self, name, argv, env=None, cwd=None):
        self.name = name
        self.argv = [str(a) for a in argv]
        env = dict(os.environ if env is None else env)
        self._config = None
        if "XDG_CONFIG_HOME" not in env or env["XDG_CONFIG_HOME"] == os.environ.get("XDG_CONFIG_HOME"):
            self._config = tempfile.mkdtemp(prefix="handoff-child-")
            env["XDG_CONFIG_HOME"] = self._config
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
        children.track(self.proc)
        self.lines = []
        self.stderr = []
        self._queue = queue.Queue()
        self._ended = False
        threading.Thread(target=self._read, args=(self.proc.stdout, self._queue.put, True),
                         daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr.append, False),
                         daemon=True).start()

    @staticmethod
    def _read(stream, sink, mark_end):
        for line in stream:
            sink(line.rstrip("\n"))
        if mark_end:
            sink(None)  # stdout ended

    def _pump(self, timeout):
        try:
            item = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return
        while True:
            if item is None:
                self._ended = True
            else:
                self.lines.append(item)
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return

    def wait_for(self, prefix, timeout=10.0):
        """The first stdout line starting with `prefix`; fails with the
        transcript after `timeout` seconds or when the child ended."""
        deadline = time.monotonic() + timeout
        while True:
            self._pump(0)
            for line in self.lines:
                if line.startswith(prefix):
                    return line
            left = deadline - time.monotonic()
            if left <= 0 or self._ended:
                pytest.fail(f"{self.name}: no line {prefix!r} "
                            f"({'ended' if self._ended else 'timed out'})\n{self.transcript()}")
            self._pump(min(left, 0.1))

    def matching(self, prefix):
        self._pump(0)
        return [line for line in self.lines if line.startswith(prefix)]

    def finish(self, timeout=30.0):
        """Waits for the child to end by itself: its exit status."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            children.kill(self.proc)
            pytest.fail(f"{self.name} did not end within {timeout} s\n{self.transcript()}")
        deadline = time.monotonic() + 5
        while not self._ended and time.monotonic() < deadline:
            self._pump(0.1)
        children.forget(self.proc)
        return code

    def stop(self):
        """SIGTERM, then its exit status (SIGKILL after 5 s)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            children.kill(self.proc)
            return "killed"

    def kill(self):
        children.kill(self.proc)
        if self._config:
            shutil.rmtree(self._config, ignore_errors=True)

    def transcript(self):
        self._pump(0)
        return "\n".join([f"--- {self.name}: {' '.join(self.argv)}", *self.lines,
                          "--- stderr", *self.stderr])


@pytest.fixture
def spawn():
    children = []

    def start(name, argv, **kwargs):
        child = Child(name, argv, **kwargs)
        children.append(child)
        return child

    yield start
    for child in children:
        child.kill()
