# SPDX-License-Identifier: MIT OR Apache-2.0
"""What `make install` does about the dynamic linker (mk/dynamic-linker.sh),
case by case: it runs ldconfig only when installing for real (no DESTDIR)
as root into a folder the linker searches, and otherwise prints the one
line to run. The linker's folders and cache come from a fake ldconfig that
records whether it was run, or, in the last tests, from this machine's own
ldconfig (read only: the wrapper never lets it write).

Installing into /usr/local for real, with the real ldconfig, is in
test_install_system.py (in a private mount namespace).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from install_support import ROOT

NOBODY = 65534
# The root cases run as root (as CI does); as another user they are skipped.
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the root cases need root (setpriv for the user case)")
FAKE_LDCONFIG = """#!/bin/sh
# A stand-in for ldconfig: its folders, its cache, and a log of real runs.
case "$*" in
    "-v -N -X") while IFS= read -r dir; do
                    printf '%s: (from /etc/ld.so.conf.d/fake.conf:1)\\n\\tlibfake.so.1 -> libfake.so.1.0\\n' "$dir"
                done < "$FAKE/dirs" ;;
    "-p") printf '1 libs found in cache\\n'; cat "$FAKE/cache" ;;
    "") echo ran >> "$FAKE/runs" ;;
    *) echo "unexpected: $*" >&2; exit 2 ;;
esac
"""
# The real ldconfig for reading; a run (no arguments) only logged.
REAL_LDCONFIG_READ_ONLY = """#!/bin/sh
case "$*" in
    "-v -N -X") exec {ldconfig} -v -N -X ;;
    "-p") cat "$FAKE/cache" ;;
    "") echo ran >> "$FAKE/runs" ;;
    *) echo "unexpected: $*" >&2; exit 2 ;;
esac
"""


@pytest.fixture
def fake():
    folder = Path(tempfile.mkdtemp(prefix="handoff-ldconfig-"))
    os.chmod(folder, 0o755)  # nobody runs it too
    shutil.copy(ROOT / "mk" / "dynamic-linker.sh", folder / "dynamic-linker.sh")
    (folder / "ldconfig").write_text(FAKE_LDCONFIG)
    os.chmod(folder / "ldconfig", 0o755)
    (folder / "lib").mkdir()
    (folder / "dirs").write_text("")
    (folder / "cache").write_text("")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def decide(fake, mode, libdir, destdir="", as_nobody=False):
    env = {"PATH": "/usr/bin:/bin", "FAKE": str(fake), "LDCONFIG": str(fake / "ldconfig"), "SOMAJOR": "0",
           "DESTDIR": destdir}
    command = ["sh", str(fake / "dynamic-linker.sh"), mode, str(libdir)]
    if as_nobody:
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    runs = (fake / "runs").read_text().count("ran") if (fake / "runs").exists() else 0
    return done, runs


def searched(fake, *dirs):
    (fake / "dirs").write_text("".join(f"{d}\n" for d in dirs))


def cached(fake, path):
    (fake / "cache").write_text(f"\tlibhandoff.so.0 (libc6,x86-64) => {path}\n")


@as_root
def test_root_installing_into_a_searched_folder_runs_ldconfig(fake):
    libdir = fake / "lib"
    searched(fake, "/usr/lib", libdir)
    cached(fake, libdir / "libhandoff.so.0")
    done, runs = decide(fake, "install", libdir)
    assert done.returncode == 0, done.stderr
    assert runs == 1
    assert "running ldconfig" in done.stdout and "LD_LIBRARY_PATH" not in done.stdout
    assert done.stderr == ""


@as_root
def test_a_folder_is_matched_as_a_file_not_as_a_string(fake):
    # /lib and /usr/lib are one folder on merged-/usr systems: ldconfig
    # lists one name, the install may use the other.
    os.symlink(fake / "lib", fake / "lib-alias")
    searched(fake, fake / "lib")
    cached(fake, fake / "lib" / "libhandoff.so.0")
    done, runs = decide(fake, "install", fake / "lib-alias")
    assert done.returncode == 0 and runs == 1, done.stdout + done.stderr


@as_root
def test_ldconfig_that_leaves_the_library_out_of_its_cache_fails_the_install(fake):
    searched(fake, fake / "lib")
    done, runs = decide(fake, "install", fake / "lib")
    assert runs == 1
    assert done.returncode != 0 and "its cache has no libhandoff.so.0" in done.stderr


@as_root
def test_another_copy_first_in_the_cache_is_reported(fake):
    searched(fake, fake / "lib")
    cached(fake, "/usr/lib/libhandoff.so.0")
    done, runs = decide(fake, "install", fake / "lib")
    assert done.returncode == 0 and runs == 1
    assert "programs will load /usr/lib/libhandoff.so.0" in done.stderr


def test_a_folder_the_linker_does_not_search_gets_the_two_lines_and_no_ldconfig(fake):
    searched(fake, "/usr/lib")
    libdir = fake / "lib"
    done, runs = decide(fake, "install", libdir)
    assert done.returncode == 0 and runs == 0
    assert f"  export LD_LIBRARY_PATH={libdir}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n" in done.stdout
    assert f"  echo '{libdir}' > /etc/ld.so.conf.d/handoff.conf && ldconfig\n" in done.stdout


@as_root
def test_a_user_installing_into_a_searched_folder_is_told_to_run_ldconfig_as_root(fake):
    searched(fake, fake / "lib")
    cached(fake, fake / "lib" / "libhandoff.so.0")
    done, runs = decide(fake, "install", fake / "lib", as_nobody=True)
    assert done.returncode == 0, done.stderr
    assert runs == 0
    assert "run as root: ldconfig" in done.stdout


def test_destdir_runs_nothing_and_prints_no_line(fake):
    searched(fake, fake / "lib")
    done, runs = decide(fake, "install", fake / "lib", destdir=str(fake / "stage"))
    assert done.returncode == 0 and runs == 0
    assert "staged under DESTDIR" in done.stdout and "LD_LIBRARY_PATH" not in done.stdout
    done, runs = decide(fake, "uninstall", fake / "lib", destdir=str(fake / "stage"))
    assert done.returncode == 0 and runs == 0 and done.stdout == ""


@as_root
def test_root_uninstalling_from_a_searched_folder_runs_ldconfig_so_the_cache_forgets(fake):
    searched(fake, fake / "lib")
    done, runs = decide(fake, "uninstall", fake / "lib")
    assert done.returncode == 0 and runs == 1


def test_uninstalling_from_an_unsearched_folder_runs_nothing(fake):
    searched(fake, "/usr/lib")
    done, runs = decide(fake, "uninstall", fake / "lib")
    assert done.returncode == 0 and runs == 0 and done.stdout == ""


@pytest.fixture
def machine(fake):
    """This machine's ldconfig lists the folders; nothing writes."""
    ldconfig = shutil.which("ldconfig", path="/usr/sbin:/sbin:/usr/bin:/bin")
    if ldconfig is None:
        pytest.skip("no ldconfig on this machine")
    (fake / "ldconfig").write_text(REAL_LDCONFIG_READ_ONLY.format(ldconfig=ldconfig))
    return fake


def linker_folders():
    out = subprocess.run([shutil.which("ldconfig", path="/usr/sbin:/sbin"), "-v", "-N", "-X"], capture_output=True,
                         text=True).stdout
    return [line.split(":")[0] for line in out.splitlines() if line and not line[0].isspace()]


@as_root
def test_this_machines_own_folders_are_read_from_ldconfig(machine):
    folders = linker_folders()
    assert folders, "ldconfig lists no folder"
    for folder in folders:
        cached(machine, f"{folder}/libhandoff.so.0")
        done, runs = decide(machine, "install", folder)
        assert done.returncode == 0, done.stderr
        assert "running ldconfig" in done.stdout, folder
    assert (machine / "runs").read_text().count("ran") == len(folders)


def test_a_temporary_folder_is_not_one_this_machine_searches(machine):
    done, runs = decide(machine, "install", machine / "lib")
    assert done.returncode == 0 and runs == 0
    assert "export LD_LIBRARY_PATH=" in done.stdout
