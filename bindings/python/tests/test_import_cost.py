# SPDX-License-Identifier: MIT OR Apache-2.0
"""What `import handoff` costs, as counts (no timings): the standard
library modules that made it slow (typing, dataclasses with inspect, ast
and dis, pathlib, socket, traceback, urllib.parse) are not imported until
used. The library itself is loaded at import, so a missing one still fails
the import (test_library_lookup.py)."""

import json
import os
import subprocess
import sys

from conftest import BINDING, REPO

HEAVY = ["typing", "dataclasses", "inspect", "ast", "dis", "pathlib", "socket", "traceback",
         "urllib.parse", "asyncio", "tempfile", "shutil"]

PROBE = f"""
import json, sys
before = set(sys.modules)
import handoff
json.dump({{"heavy": [m for m in {HEAVY!r} if m in sys.modules and m not in before],
           "new": sorted(set(sys.modules) - before)}}, sys.stdout)
"""


def imported_by_handoff():
    # -S: no site, so nothing is imported before handoff but the bare start-up.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["HANDOFF_LIBRARY"] = str(REPO / "build" / "lib" / "libhandoff.so.0")
    env["PYTHONPATH"] = str(BINDING)
    result = subprocess.run([sys.executable, "-S", "-c", PROBE], env=env, capture_output=True,
                            text=True, timeout=60, cwd=BINDING)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_import_handoff_leaves_the_heavy_modules_alone():
    found = imported_by_handoff()
    assert found["heavy"] == [], found["new"]
    assert "handoff._ffi" in found["new"] and "handoff.values" in found["new"]


def test_what_needs_them_still_works():
    import handoff
    assert handoff.URL("https://a.example/x").parts().path == "/x"  # urllib.parse, when used
    remote = handoff.RemoteActivity("ID", "t", None, None, "dev", "d", 0.5, False, False)
    assert remote == handoff.RemoteActivity("ID", "t", None, None, "dev", "d", 0.5, False, False)
    assert len({remote, handoff.RemoteActivity("ID", "t", None, None, "dev", "d", 0.5, False,
                                               False)}) == 1
    try:
        remote.title = "x"
    except AttributeError:
        pass
    else:
        raise AssertionError("a RemoteActivity is immutable")
    # Streams (socket, imported where one arrives): test_streams.py.
