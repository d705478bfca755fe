# SPDX-License-Identifier: MIT OR Apache-2.0
"""A pytest fixture that fails a run which leaves something behind (issue
34): a conftest imports `run_leaves_nothing`. At the end of the session,
any process still running with the run's tag in its environment (a child
of a test, a private bus, what a bus activated, a bus that a browser
autolaunched) and any mount under the run's temporary folders is ended or
undone, then named in the failure."""

import pytest

import leftovers


@pytest.fixture(scope="session", autouse=True)
def run_leaves_nothing(tmp_path_factory):
    token = leftovers.tag_run()
    yield
    processes, mounts = leftovers.clean(leftovers.RUN_TAG, token, [tmp_path_factory.getbasetemp()])
    assert not processes and not mounts, (
        f"the tests left behind processes {processes} and mounts {mounts} (ended and undone now)")
