# SPDX-License-Identifier: MIT OR Apache-2.0
"""The package as Python developers get it: `make wheel` makes a manylinux
wheel carrying the library (and the OpenSSL it needs) that installs offline
into a fresh venv and works there; and a pip install with no library to
carry fails saying how to build one, instead of making a wheel that cannot
run."""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import BINDING, REPO

VERSION = (REPO / "VERSION").read_text().strip()

# The venv's program: what a first user does, reported as JSON.
PROGRAM = r"""
import json, sys
import handoff
activity = handoff.UserActivity("com.example.wheel.edit")
state = {"document": "notes.txt", "line": 42, "zoom": 1.5, "tags": {"a", "b"},
         "url": handoff.URL("https://example.com/notes"), "none": None, "data": b"\x00\x01"}
activity.user_info = state
back = handoff.UserActivity.decode(activity.encode()).user_info
with open("/proc/self/maps") as maps:
    loaded = sorted({line.split()[-1] for line in maps
                     if "libhandoff" in line or "libssl" in line or "libcrypto" in line})
json.dump({"package": handoff.__file__, "library": handoff.library_path,
           "version": handoff.library_version(), "same": back == state,
           "keys": sorted(back), "loaded": loaded,
           "bytes": handoff.decode_value(handoff.encode_value([1, "x"]))}, sys.stdout)
"""


def clean_environment():
    """This process's environment without what would point the venv or a
    nested make back at the checkout."""
    drop = ("HANDOFF_LIBRARY", "PYTHONPATH", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
            "PIP_FIND_LINKS")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """`make wheel`, into a folder of the test's own."""
    out = tmp_path_factory.mktemp("wheelhouse")
    make = subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "wheel",
                           f"WHEEL_DIR={out}"],
                          capture_output=True, text=True, env=clean_environment(), timeout=1200)
    assert make.returncode == 0, make.stdout + make.stderr
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, (wheels, make.stdout)
    assert str(wheels[0]) in make.stdout  # it says what it made
    return wheels[0]


def test_the_wheel_is_manylinux_and_carries_the_library(wheel):
    assert re.fullmatch(r"libhandoff-" + re.escape(VERSION) + r"-py3-none-manylinux_2_\d+_x86_64\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        wheel_file = archive.read(f"libhandoff-{VERSION}.dist-info/WHEEL").decode()
    assert "handoff/libhandoff.so.0" in names and "handoff/_bplist.py" in names
    assert "Root-Is-Purelib: false" in wheel_file
    grafted = [n for n in names if n.startswith("libhandoff.libs/")]
    assert any("libssl" in n for n in grafted) and any("libcrypto" in n for n in grafted)
    assert not [n for n in names if "tests/" in n or n.endswith(".pyc")]


def test_the_wheel_installs_offline_into_a_fresh_venv_and_works(wheel, tmp_path):
    env = clean_environment()
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "env")], check=True, env=env,
                   timeout=300)
    python = tmp_path / "env" / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-index", str(wheel)],
                             capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    away = tmp_path / "elsewhere"  # not the checkout: nothing found by accident
    away.mkdir()
    run = subprocess.run([str(python), "-c", PROGRAM], capture_output=True, text=True,
                         env=env, cwd=away, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    site = tmp_path / "env" / "lib"
    assert report["package"].startswith(str(site))
    assert report["library"] == os.path.join(os.path.dirname(report["package"]),
                                             "libhandoff.so.0")
    assert report["version"] == VERSION
    assert report["same"] and report["keys"] == ["data", "document", "line", "none", "tags",
                                                 "url", "zoom"]
    assert report["bytes"] == [1, "x"]
    # The library and OpenSSL all come from the venv (the grafted copies).
    assert len(report["loaded"]) == 3
    assert all(path.startswith(str(site)) for path in report["loaded"]), report["loaded"]


def pip_wheel(source, env, out):
    return subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index",
                           "--wheel-dir", str(out), str(source)],
                          capture_output=True, text=True, env=env, timeout=300)


def says_how_to_build(result):
    output = result.stdout + result.stderr
    return ("no library to put in the wheel" in output and "make lib" in output
            and "make wheel" in output and "HANDOFF_LIBRARY" in output)


def test_pip_without_a_built_library_fails_saying_how_to_build_it(tmp_path):
    # A copy of the package outside any checkout: no build/lib next to it.
    source = tmp_path / "python"
    shutil.copytree(BINDING, source, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    out = tmp_path / "out"
    result = pip_wheel(source, clean_environment(), out)
    assert result.returncode != 0
    assert says_how_to_build(result), result.stdout + result.stderr
    assert not out.exists() or not list(out.glob("*.whl"))


def test_pip_with_handoff_library_naming_nothing_fails_too(tmp_path):
    env = clean_environment()
    env["HANDOFF_LIBRARY"] = str(tmp_path / "missing" / "libhandoff.so.0")
    out = tmp_path / "out"
    result = pip_wheel(BINDING, env, out)
    assert result.returncode != 0
    assert says_how_to_build(result) and "$HANDOFF_LIBRARY" in result.stderr + result.stdout
    assert not out.exists() or not list(out.glob("*.whl"))
