# SPDX-License-Identifier: MIT OR Apache-2.0
"""The two releases a compatibility test hands off between: this tree's
build and the previous release (build/releases/<version>, made by
scripts/build-release.sh from the commit RELEASES records)."""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Release:
    version: str
    folder: Path    # lib/, bin/handoff, bin/peer below it

    @property
    def tool(self):
        return self.folder / "bin" / "handoff"

    @property
    def peer(self):
        return self.folder / "bin" / "peer"

    @property
    def streamer(self):
        return self.folder / "bin" / "streamer"

    @property
    def lib(self):
        return self.folder / "lib"

    @property
    def revision(self):
        """The protocol revision the release speaks, from its own source
        (ProtocolRevision.current; 0.1.0 had none: revision 1)."""
        source = self.folder / "src" if (self.folder / "src").is_dir() else ROOT
        file = source / "Sources/HandoffContinuity/Versioning/ProtocolRevision.swift"
        if not file.exists():
            return 1
        return int(re.search(r"public static let current = (\d+)", file.read_text()).group(1))

    def __str__(self):
        return self.version


def this_build():
    version = (ROOT / "VERSION").read_text().strip()
    for needed in ("bin/handoff", "bin/peer", "bin/streamer", "lib/libhandoff.so.0"):
        if not (ROOT / "build" / needed).exists():
            pytest.fail(f"build/{needed} is missing: make lib tool build/bin/peer build/bin/streamer")
    return Release(version, ROOT / "build")


def previous_release():
    """Builds (or finds) the previous release; its folder may be given as
    HANDOFF_PREVIOUS_RELEASE by the Makefile, which built it already."""
    folder = os.environ.get("HANDOFF_PREVIOUS_RELEASE")
    if not folder:
        done = subprocess.run(["sh", str(ROOT / "scripts" / "build-release.sh"), "--previous"],
                              cwd=ROOT, capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            pytest.fail("the previous release did not build:\n" + done.stderr)
        folder = done.stdout.strip().splitlines()[-1]
    folder = (ROOT / folder).resolve()
    return Release(folder.name, folder)
