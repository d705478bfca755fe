# SPDX-License-Identifier: MIT OR Apache-2.0
"""The acceptance command: `pip install ./bindings/python` into a fresh
venv, offline, then the example pair hands off a shape between two
processes of that venv, with the library the package carries."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BINDING, EXAMPLES, REPO
from processes import spawn  # noqa: F401  (fixture)
from test_examples import run_pair


def source_files():
    return {p for p in BINDING.rglob("*") if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv with the binding pip-installed from the checkout."""
    root = tmp_path_factory.mktemp("venv")
    env = {k: v for k, v in os.environ.items()
           if k not in ("HANDOFF_LIBRARY", "PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-m", "venv", str(root / "env")], check=True, env=env,
                   timeout=120)
    python = root / "env" / "bin" / "python"
    before = source_files()
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-index",
                              str(REPO / "bindings" / "python")],
                             capture_output=True, text=True, env=env, timeout=120)
    assert install.returncode == 0, install.stdout + install.stderr
    assert source_files() == before  # the build wrote nothing into the checkout
    return python, root, env


def test_the_installed_package_carries_the_library(venv):
    python, root, env = venv
    out = subprocess.run(
        [str(python), "-c", "import sys; sys.path.insert(0, sys.argv[1]); import demo_network; "
         "h = demo_network.handoff; print(h.__file__); print(h.library_path); "
         "print(h.library_version())", str(EXAMPLES)],
        capture_output=True, text=True, env=env, cwd=root, check=True).stdout.split("\n")
    package, library, version = Path(out[0]), Path(out[1]), out[2]
    site = root / "env" / "lib"
    assert site in package.parents  # the venv's copy, not the checkout's
    assert library == package.parent / "libhandoff.so.0" and library.is_file()
    assert version == (REPO / "VERSION").read_text().strip()


def test_the_example_pair_from_the_venv(venv, spawn, ports):
    python, root, env = venv
    sender, receiver = run_pair(spawn, ports, "create_shape_receiver.py", ["--shape", "circle"],
                                python=python, cwd=root, env=env)
    assert sender.finish() == 0, sender.transcript()
    assert receiver.finish() == 0, receiver.transcript()
    assert receiver.matching("receiver: restored a circle (activity-version 1)")
