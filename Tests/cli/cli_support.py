# SPDX-License-Identifier: MIT OR Apache-2.0
"""Helpers of the `handoff` command tests: devices (each its own account
directory), loopback ports, and running processes whose output is read as it
arrives. Every process started here is killed when its test ends (the
`procs` fixture) and, as a backstop, at exit.
"""

import json
import os
import queue
import socket
import subprocess
import threading
import time
from pathlib import Path

import children  # Tests/support
import ports  # Tests/support

ROOT = Path(__file__).resolve().parents[2]
# Where tests keep real folders of documents: the tree's build/, or, for a
# tree under /tmp or /var/tmp (whose files a device never describes),
# ~/handoff-tests.
SCRATCH = (Path.home() / "handoff-tests" if str(ROOT).startswith(("/tmp/", "/var/tmp/")) else ROOT / "build")
TOOL = Path(os.environ.get("HANDOFF_TOOL") or ROOT / "build" / "bin" / "handoff")

# Bounds on waits, generous for a loaded machine: a test fails only when the
# thing never happens, never because it was slow.
WAIT = 40

def free_port():
    """A port free for UDP and TCP on this host right now, outside the
    kernel's ephemeral range (Tests/support/ports.py)."""
    return ports.free_port(os.getpid() * 389)


def loopback(own_port, peer_port):
    """Options that keep a process on loopback: its own beacon port, no
    multicast, the other process as unicast peer, the channel on 127.0.0.1."""
    return ["--beacon-port", str(own_port), "--no-multicast", "--peer", f"127.0.0.1:{peer_port}",
            "--channel", "127.0.0.1:0"]


class Result:
    def __init__(self, completed):
        self.code = completed.returncode
        self.out = completed.stdout
        self.err = completed.stderr

    def json(self):
        """The last line of stdout as JSON (results and errors are one line)."""
        lines = [line for line in self.out.splitlines() if line.strip()]
        assert lines, f"no output; stderr: {self.err}"
        return json.loads(lines[-1])

    def __repr__(self):
        return f"<exit {self.code}\nstdout: {self.out}\nstderr: {self.err}>"


class Device:
    """One device of a person: its own account directory (XDG_CONFIG_HOME)."""

    def __init__(self, root, name, procs, netns=None):
        self.name = name
        # Runs its processes in this network namespace (`ip netns exec`
        # execs the tool: the pid is the tool's, so killing it kills it).
        self.prefix = ["ip", "netns", "exec", netns] if netns else []
        self.config = Path(root) / name
        self.config.mkdir(parents=True, exist_ok=True)
        # Its history (docs/history.md) is its own, beside its account.
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(self.config), LC_ALL="C",
                        HANDOFF_HISTORY_DB=str(self.config / "history.sqlite"))
        self.procs = procs

    @property
    def directory(self):
        return self.config / "handoff"

    @property
    def account_file(self):
        return self.directory / "account"

    def run(self, *args, input=None, env=None, timeout=WAIT * 2):
        completed = subprocess.run(self.prefix + [str(TOOL)] + [str(a) for a in args], input=input,
                                   capture_output=True, text=True,
                                   env=env or self.env, timeout=timeout)
        return Result(completed)

    def spawn(self, *args, env=None):
        return self.spawn_process([str(TOOL)] + [str(a) for a in args], env)

    def spawn_process(self, command, env=None):
        """Any program as this device runs it (an app), killed with the test."""
        proc = Process(self.prefix + [str(c) for c in command], env or self.env)
        self.procs.append(proc)
        return proc


class Process:
    """A running `handoff`: its stdout lines as they arrive, bounded waits."""

    def __init__(self, cmd, env, stdin=subprocess.DEVNULL):
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        children.track(self.proc)
        self.lines = []
        self.stderr = []
        self._queue = queue.Queue()
        self._ended = False
        threading.Thread(target=self._read, args=(self.proc.stdout, self._queue.put), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read, args=(self.proc.stderr, self._stderr_line),
                                               daemon=True)
        self._stderr_reader.start()

    def _stderr_line(self, line):
        if line is not None:
            self.stderr.append(line)

    @staticmethod
    def _read(stream, sink):
        for line in stream:
            sink(line.rstrip("\n"))
        sink(None)

    def _next(self, deadline):
        try:
            line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if line is None:
            self._ended = True
            return False
        self.lines.append(line)
        return True

    def events(self):
        return [json.loads(line) for line in self.lines]

    def expect(self, predicate, timeout=WAIT):
        """The first JSON line (seen before or arriving within `timeout`)
        for which predicate holds; fails the test otherwise."""
        for event in self.events():
            if predicate(event):
                return event
        deadline = time.monotonic() + timeout
        while not self._ended and self._next(deadline):
            event = json.loads(self.lines[-1])
            if predicate(event):
                return event
        raise AssertionError(f"{self.cmd[1:]}: no matching event; stdout {self.lines}; stderr {self.stderr}")

    def event(self, name, timeout=WAIT, **fields):
        return self.expect(lambda e: e.get("event") == name and all(e.get(k) == v for k, v in fields.items()),
                           timeout)

    def expect_line(self, text, timeout=WAIT):
        """Waits until a line of stdout contains `text` (human output)."""
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert not self._ended and self._next(deadline), f"{self.cmd[1:]}: never printed {text!r}; {self.lines}"

    def expect_stderr(self, text, timeout=WAIT):
        """Waits until a line of stderr contains `text`."""
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.stderr):
            assert time.monotonic() < deadline and self.proc.poll() is None, \
                f"{self.cmd[1:]}: never said {text!r}; stderr {self.stderr}"
            time.sleep(0.02)

    def signal(self, number):
        self.proc.send_signal(number)

    def wait(self, timeout=WAIT):
        """The exit status; reads the rest of stdout and stderr."""
        code = self.proc.wait(timeout=timeout)
        deadline = time.monotonic() + 5
        while not self._ended and self._next(deadline):
            pass
        self._stderr_reader.join(timeout=5)
        children.forget(self.proc)
        return code

    def kill(self):
        children.kill(self.proc, wait=10)


def pair_of_devices(root, procs, netns=(None, None)):
    """Two devices on one account: A creates it, B joins with A's code."""
    a = Device(root, "a", procs, netns[0])
    b = Device(root, "b", procs, netns[1])
    created = a.run("account", "create")
    assert created.code == 0, created
    code = a.run("account", "code").out.strip()
    joined = b.run("account", "join", code)
    assert joined.code == 0, joined
    assert a.run("device", "--name", "Device A").code == 0
    assert b.run("device", "--name", "Device B").code == 0
    return a, b


def publish(device, port, peer_port, *extra):
    """Starts `handoff --json publish` and returns it with its first event."""
    proc = device.spawn("--json", "publish", *loopback(port, peer_port), *extra)
    return proc, proc.event("publishing")
