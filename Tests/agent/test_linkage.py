# SPDX-License-Identifier: MIT OR Apache-2.0
"""sd-bus (libsystemd) and libmosquitto (the relay, PROTOCOL.md §11) are
linked into the agent, i.e. the `handoff` command, and never into
libhandoff.so (docs/agent.md §6, §12): apps gain no dependency."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def needed(path):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def test_the_library_does_not_link_libsystemd():
    libs = needed(ROOT / "build" / "lib" / "libhandoff.so")
    assert libs and not [name for name in libs if "systemd" in name or "dbus" in name], libs


def test_the_library_does_not_link_libmosquitto():
    libs = needed(ROOT / "build" / "lib" / "libhandoff.so")
    assert libs and not [name for name in libs if "mosquitto" in name], libs


def test_the_command_links_libsystemd():
    assert "libsystemd.so.0" in needed(ROOT / "build" / "bin" / "handoff")
