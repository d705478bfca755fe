# SPDX-License-Identifier: MIT OR Apache-2.0
"""A device with a real media player for the MPRIS bridge's tests: its own
private session bus (agent_desktop.Desktop), its own HOME and
XDG_RUNTIME_DIR under the test's folder, mpv with Debian's mpv-mpris
plugin on that bus, and MPRIS read back with busctl. Everything started
here is in the test's `procs` and killed with it."""

import json
import os
import shutil
import subprocess
import wave
from pathlib import Path

import pytest

from agent_desktop import Desktop, wait_for
from cli_support import WAIT, Process

MPRIS_PLUGIN = Path("/usr/lib/mpv-mpris/mpris.so")
PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"


def require_mpv():
    if not shutil.which("mpv") or not MPRIS_PLUGIN.exists():
        pytest.skip("mpv and mpv-mpris are not installed (scripts/install-deps.sh)")


def silence(path, seconds=300, rate=8000):
    """A WAV of silence, mono 16-bit: long enough that it never ends in a test."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * rate * seconds)
    return path


class MediaDevice:
    """One device's desktop: bus, HOME, runtime dir, agent socket path."""

    def __init__(self, root, device, procs):
        self.device = device
        self.procs = procs
        self.desktop = Desktop(root / "desktop", procs)
        self.home = root / "home"
        self.home.mkdir(parents=True)
        self.runtime = root / "run"
        self.runtime.mkdir(mode=0o700)
        self.socket = root / "agent" / "agent.sock"
        self.env = dict(self.desktop.env(device.env, self.socket), HOME=str(self.home),
                        XDG_RUNTIME_DIR=str(self.runtime))

    @property
    def bus(self):
        return self.desktop.address

    def mpv(self, *files):
        """mpv on this bus, no audio device, no window, idle when the file ends."""
        proc = Process(["mpv", "--no-config", f"--script={MPRIS_PLUGIN}", "--no-video", "--ao=null", "--idle=yes",
                        "--no-terminal", *map(str, files)], self.env)
        self.procs.append(proc)
        wait_for(lambda: self.player_name(), "mpv's MPRIS name on the bus")
        return proc

    def player_name(self):
        out = subprocess.run(["busctl", f"--address={self.bus}", "list", "--no-legend"], capture_output=True, text=True,
                             timeout=WAIT).stdout
        names = [line.split()[0] for line in out.splitlines() if line.startswith("org.mpris.MediaPlayer2.")]
        return names[0] if names else None

    def get(self, prop):
        """A Player property, read with busctl --json."""
        out = subprocess.run(["busctl", f"--address={self.bus}", "--json=short", "get-property", self.player_name(),
                              PATH, PLAYER, prop], capture_output=True, text=True, timeout=WAIT, check=True).stdout
        return json.loads(out)["data"]

    def call(self, member, signature="", *args):
        subprocess.run(["busctl", f"--address={self.bus}", "call", self.player_name(), PATH, PLAYER, member,
                        *([signature] if signature else []), *map(str, args)],
                       capture_output=True, text=True, timeout=WAIT, check=True)

    def position(self):
        return self.get("Position") / 1e6

    def status_file(self):
        path = self.runtime / "handoff" / "mpris-status"
        return json.loads(path.read_text()) if path.exists() else None
