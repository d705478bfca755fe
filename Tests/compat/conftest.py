# SPDX-License-Identifier: MIT OR Apache-2.0
"""Fixtures of the compatibility tests: the previous release, built from
its commit (scripts/build-release.sh, RELEASES), and this tree's build."""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
sys.path.insert(0, str(HERE.parent / "integration"))

from releases import previous_release, this_build  # noqa: E402


@pytest.fixture(scope="session")
def old():
    return previous_release()


@pytest.fixture(scope="session")
def new():
    return this_build()
