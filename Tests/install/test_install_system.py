# SPDX-License-Identifier: MIT OR Apache-2.0
"""`make install PREFIX=/usr/local` for real, as root, with this machine's
ldconfig: the case of issue 17, where a program built with pkg-config
exited 127 until someone ran ldconfig. Here the install runs ldconfig, the
C program and a Rust app outside the repository (a path dependency, no
build script, no environment variables) run at once, and uninstall leaves
/usr/local as it was and the linker's cache without the library.

The machine is not touched: system_namespace.py runs in a private mount
namespace where /etc and /usr/local are overlays on a tmpfs, gone when it
exits. Needs root and overlayfs (skipped otherwise, saying so).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from install_support import HERE, VERSION


def can_overlay():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="handoff-overlay-probe-"))
    try:
        script = ("set -e; mount -t tmpfs tmpfs \"$1\"; mkdir \"$1/u\" \"$1/w\"; "
                  "mount -t overlay overlay -o lowerdir=/usr/local,upperdir=\"$1/u\",workdir=\"$1/w\" /usr/local")
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                               str(probe)], capture_output=True, timeout=60).returncode == 0
    finally:
        probe.rmdir()


pytestmark = [
    pytest.mark.skipif(any(Path(p).exists() for p in ("/usr/local/lib/libhandoff.so.0",
                                                      "/usr/local/share/handoff/install-manifest")),
                       reason="libhandoff is installed in this machine's /usr/local: uninstall would remove it"),
    pytest.mark.skipif(not can_overlay(), reason="needs root, unshare and overlayfs for a private /usr/local"),
]


@pytest.fixture(scope="module")
def report():
    work = Path(tempfile.mkdtemp(prefix="handoff-system-"))
    try:
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                               str(HERE / "system_namespace.py"), str(work)], capture_output=True, text=True,
                              timeout=3600, cwd=HERE)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        return json.loads(done.stdout.splitlines()[-1])
    finally:
        # The tmpfs was mounted in the namespace only: here it is an empty folder.
        work.rmdir()


def test_install_runs_ldconfig_and_the_cache_finds_the_library(report):
    assert report["cache_before"] == []
    assert "running ldconfig" in report["install"]
    assert "LD_LIBRARY_PATH" not in report["install"]
    assert any(line.endswith("=> /usr/local/lib/libhandoff.so.0") for line in report["cache_installed"]), \
        report["cache_installed"]


def test_a_c_program_built_with_pkg_config_runs_right_after_install(report):
    code, out, err = report["c_run"]
    assert code == 0, err
    assert out == f"libhandoff {VERSION}\n"


def test_a_rust_app_outside_the_repository_builds_and_runs_with_nothing_set(report):
    code, out, err = report["rust_run"]
    assert code == 0, err
    assert out == f"libhandoff {VERSION}\n"
    # The linker's cache finds it: no rpath to a system folder.
    assert report["rust_runpath"] == []


def test_uninstall_leaves_usr_local_as_it_was_and_the_cache_forgets(report):
    assert report["after"] == report["before"]
    assert report["cache_uninstalled"] == []
    code, _, err = report["c_run_uninstalled"]
    assert code == 127 and "libhandoff.so.0" in err
