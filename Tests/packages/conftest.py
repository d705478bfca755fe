# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the package tests: the built .debs, installed into a fresh
Debian root (debian_root.py)."""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "support"))

from debian_root import DebianRoot, cached_root, packages_in  # noqa: E402

DEB_DIR = Path(os.environ.get("DEB_DIR") or HERE.parents[1] / "build" / "deb")


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        raise pytest.UsageError("the package tests need root (chroot, mount namespaces): run as root")
    if not packages_in(DEB_DIR):
        raise pytest.UsageError(f"no .debs in {DEB_DIR}: run `make deb` (or `make test-packages`) first")


@pytest.fixture(scope="module")
def debs():
    """{package name: path of its .deb}."""
    return packages_in(DEB_DIR)


def sweep(cache):
    """Removes the roots of earlier runs whose process is gone (a run
    killed before its teardown leaves its overlay mounted)."""
    for run in cache.glob("run-*"):
        pid = run.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            DebianRoot(run).remove()


def fresh_root(debs, extra=()):
    """A fresh Debian root (with the `extra` packages) and the .debs
    installed; removed afterwards, whatever happens (its mounts live and
    die with each command's own mount namespace)."""
    cache = DEB_DIR.parent / "deb-root"
    lower = cached_root(cache, debs, extra)
    sweep(cache)
    debian_root = DebianRoot(cache / f"run-{os.getpid()}-{len(extra)}")
    try:
        debian_root.start(lower)
        debian_root.install(debs)
        yield debian_root
    finally:
        debian_root.remove()


@pytest.fixture(scope="module")
def root(debs):
    """A fresh Debian root with the .debs installed."""
    yield from fresh_root(debs)


# Debian's browsers, as a person installs them; the browser bridge's
# packages are tried with them (test_webext.py).
BROWSERS = ("firefox-esr", "chromium")


@pytest.fixture(scope="module")
def browser_root(debs):
    """A fresh Debian root with Debian's firefox-esr and chromium, and the
    .debs installed (the webext packages after the browsers, as a person
    who has a browser installs the bridge)."""
    yield from fresh_root(debs, BROWSERS)
