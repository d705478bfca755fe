# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the process-level tests share: free ports, and running programs
that print one event per line (build/bin/peer, build/bin/streamer) with
bounded waits. Every process started is killed when its test ends (the
fixtures in conftest.py), with an atexit backstop.
"""

import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import children  # Tests/support
import ports  # Tests/support

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "build" / "bin" / "peer"
STREAMER = ROOT / "build" / "bin" / "streamer"




def free_port():
    """A port free for UDP and TCP on this host right now, outside the
    kernel's ephemeral range (Tests/support/ports.py)."""
    return ports.free_port(os.getpid() * 211)


def unescape(value):
    return urllib.parse.unquote(value, errors="strict")


def parse_line(line):
    """'available id=X web=0' -> ('available', {'id': 'X', 'web': '0'})"""
    words = line.split(" ")
    fields = {}
    for word in words[1:]:
        key, _, value = word.partition("=")
        fields[key] = unescape(value)
    return words[0], fields


# ----------------------------------------------------------------- peers

class Event(dict):
    """One printed event: its fields, plus .name and .at (arrival time)."""

    def __init__(self, name, fields, at, line):
        super().__init__(fields)
        self.name, self.at, self.line = name, at, line


class Peer:
    """One running peer: its events as they arrive, with bounded waits.

    Each peer is a device of its own: without a device id the library uses
    the device file under XDG_CONFIG_HOME, so each peer gets a fresh config
    directory (removed when it ends) unless `config` names one to share."""

    def __init__(self, name, args, netns=None, program=PEER, config=None):
        self.name = name
        cmd = [str(program)] + [str(a) for a in args]
        if netns:
            cmd = ["ip", "netns", "exec", netns] + cmd
        self.cmd = cmd
        self._own_config = None if config else tempfile.mkdtemp(prefix="handoff-peer-")
        self.config = str(config or self._own_config)
        env = dict(os.environ, XDG_CONFIG_HOME=self.config)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        children.track(self.proc)
        self.events = []           # Event, in order of arrival
        self.stderr = []
        self.exited = False
        self._queue = queue.Queue()
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _read_stdout(self):
        for line in self.proc.stdout:
            self._queue.put((time.monotonic(), line.rstrip("\n")))
        self._queue.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def _pump(self, timeout):
        """Moves what arrived into self.events; waits up to `timeout` for
        the first item. False once the peer's stdout has ended."""
        try:
            item = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return not self.exited
        while True:
            if item is None:
                self.exited = True
            else:
                at, line = item
                name, fields = parse_line(line)
                self.events.append(Event(name, fields, at, line))
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return not self.exited

    def matches(self, name, **fields):
        self._pump(0)
        return [e for e in self.events
                if e.name == name and all(e.get(k) == str(v) for k, v in fields.items())]

    def wait_for(self, name, timeout=5.0, nth=1, **fields):
        """The nth event `name` with these field values, waiting at most
        `timeout` seconds; fails with the transcript otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.matches(name, **fields)
            if len(found) >= nth:
                return found[nth - 1]
            left = deadline - time.monotonic()
            if left <= 0 or self.exited:
                why = "exited" if self.exited else "timed out after %.1f s" % timeout
                pytest.fail("%s: no %r %s #%d (%s)\n%s" % (
                    self.name, name, fields, nth, why, self.transcript()))
            self._pump(min(left, 0.1))

    def settle(self, seconds):
        """Collects events for `seconds`."""
        deadline = time.monotonic() + seconds
        self._pump(0)
        while time.monotonic() < deadline:
            self._pump(min(0.05, deadline - time.monotonic()))

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=5.0):
        """SIGTERM, then the exit status (SIGKILL after `timeout`)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            children.kill(self.proc)
            code = "hung, killed"
        self.finish()
        return code

    def kill(self):
        children.kill(self.proc)
        self.finish()

    def finish(self):
        children.kill(self.proc)
        for t in self._threads:
            t.join(timeout=2)
        self._pump(0)
        if self._own_config:
            shutil.rmtree(self._own_config, ignore_errors=True)

    def transcript(self):
        self._pump(0)
        out = ["--- %s: %s (exit %s)" % (self.name, " ".join(self.cmd), self.proc.poll())]
        out += ["  " + e.line for e in self.events]
        out += ["  stderr: " + line for line in self.stderr]
        return "\n".join(out)


def loopback(port):
    return "127.0.0.1:%d" % port


def peer_flags(*ports_):
    flags = []
    for p in ports_:
        flags += ["--peer", loopback(p)]
    return flags
