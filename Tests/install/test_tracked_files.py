# SPDX-License-Identifier: MIT OR Apache-2.0
"""What a clone holds: sources only. No wheel, shared or static library,
object file or other binary is tracked (issue 17 found a stray wheel under
Tests/integration); build output belongs in build/, .build/ and target/.
"""

import subprocess

import pytest

from install_support import ROOT

# First bytes of binaries: ELF (executables, .so, .o), ar archives (.a),
# zip (wheels, jars).
MAGIC = {b"\x7fELF": "ELF", b"!<arch>\n": "ar archive", b"PK\x03\x04": "zip (a wheel?)"}
SUFFIXES = (".whl", ".so", ".a", ".o", ".pyc", ".egg", ".rlib", ".crate")


def tracked():
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    return [name for name in done.stdout.decode().split("\0") if name]


def test_no_binary_is_tracked():
    found = []
    for name in tracked():
        path = ROOT / name
        if name.endswith(SUFFIXES) or ".so." in path.name:
            found.append(f"{name}: binary by its name")
            continue
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as file:
            head = file.read(8)
        found += [f"{name}: {kind}" for magic, kind in MAGIC.items() if head.startswith(magic)]
    assert found == []
