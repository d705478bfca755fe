# SPDX-License-Identifier: MIT OR Apache-2.0
"""Finding the library: $HANDOFF_LIBRARY, the package's copy, the
repository's build folder, the system; a clear ImportError otherwise, and
for a library of another major version. Each case imports the package in
a fresh interpreter."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BINDING, REPO, compile_c

REPO_LIBRARY = REPO / "build" / "lib" / "libhandoff.so.0"
FAKE = BINDING / "tests" / "c" / "fake_library.c"


def run_import(package_parent, env_library=None, cwd=None):
    """Imports handoff from `package_parent` in a new interpreter: its exit
    code and output (library path on success, the error otherwise)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("HANDOFF_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(package_parent)
    if env_library is not None:
        env["HANDOFF_LIBRARY"] = str(env_library)
    code = ("import sys\ntry:\n    import handoff\nexcept ImportError as e:\n"
            "    print(e); sys.exit(3)\nprint(handoff.library_path)")
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd or package_parent,
                            capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout.strip(), result.stderr


def copy_package(destination):
    shutil.copytree(BINDING / "handoff", destination / "handoff",
                    ignore=shutil.ignore_patterns("__pycache__", "libhandoff.so*"))
    return destination


def test_the_repository_build_folder_when_run_from_the_checkout():
    code, out, err = run_import(BINDING)
    assert code == 0, out + err
    assert Path(out) == REPO_LIBRARY


def test_environment_variable_comes_first(tmp_path):
    alias = tmp_path / "libhandoff-alias.so"
    alias.symlink_to(REPO_LIBRARY.resolve())
    code, out, err = run_import(BINDING, env_library=alias)
    assert code == 0, out + err
    assert out == str(alias)


def test_a_set_environment_variable_is_the_only_place_tried(tmp_path):
    missing = tmp_path / "nowhere" / "libhandoff.so"
    code, out, _ = run_import(BINDING, env_library=missing)
    assert code == 3
    assert "$HANDOFF_LIBRARY" in out and str(missing) in out and "no such file" in out
    assert "repository build folder" not in out  # never silently another copy


def test_the_package_copy_comes_before_the_repository(tmp_path):
    # A package copy inside the checkout's tree would see the repository's
    # build too; the copy inside the package must win.
    parent = copy_package(tmp_path)
    shutil.copy(REPO_LIBRARY.resolve(), parent / "handoff" / "libhandoff.so.0")
    code, out, err = run_import(parent)
    assert code == 0, out + err
    assert Path(out) == parent / "handoff" / "libhandoff.so.0"


def test_nothing_found_lists_every_place_tried(tmp_path):
    parent = copy_package(tmp_path / "elsewhere")  # not in a repository, no copy
    code, out, _ = run_import(parent)
    assert code == 3, out
    assert "Places tried" in out
    for place in ("$HANDOFF_LIBRARY: not set",
                  f"copy inside the package: {parent / 'handoff' / 'libhandoff.so.0'}: no such file",
                  "repository build folder:",
                  "system (dynamic linker search): libhandoff.so.0:"):
        assert place in out, out
    assert "make" in out  # and what to do


def fake_library(tmp_path, number, string):
    return compile_c(FAKE, tmp_path / f"libfake{number}.so", "-shared", "-fPIC",
                     f"-DFAKE_VERSION={number}", f'-DFAKE_VERSION_STRING="{string}"')


def test_another_major_version_is_refused(tmp_path):
    code, out, _ = run_import(BINDING, env_library=fake_library(tmp_path, 10203, "1.2.3"))
    assert code == 3
    assert "libhandoff 1.2.3" in out and "0.x" in out, out


def test_a_library_older_than_the_binding_is_refused(tmp_path):
    # Version 0.0.9 passes the major check but lacks the functions.
    code, out, _ = run_import(BINDING, env_library=fake_library(tmp_path, 9, "0.0.9"))
    assert code == 3
    assert "has no handoff_" in out and "older than this binding" in out, out


def test_a_library_that_is_not_libhandoff_is_refused(tmp_path):
    libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6",
                             "/lib64/libm.so.6", "/usr/lib/libm.so.6") if os.path.exists(p)), None)
    if libm is None:
        pytest.skip("no libm.so.6 at a known path")
    code, out, _ = run_import(BINDING, env_library=libm)
    assert code == 3
    assert "is not libhandoff" in out, out
