# SPDX-License-Identifier: MIT OR Apache-2.0
"""Each binding is built from its own folder (a copied folder, an sdist,
a crate package), so it carries real copies of the licence files, never
links out of itself: every bindings/<name>/LICENSE-* is a regular file
identical to the root's, each binding has both, and nothing under
bindings/ is a symbolic link that leaves its binding's folder. Exit 1,
naming each file that does not agree."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
failures = 0
licences = sorted(p.name for p in ROOT.glob("LICENSE-*"))
if not licences:
    print("FAIL - no LICENSE-* at the repository's root")
    sys.exit(1)


def fail(message):
    global failures
    failures += 1
    print("FAIL - " + message)


for binding in sorted(p for p in (ROOT / "bindings").iterdir() if p.is_dir()):
    for name in licences:
        copy = binding / name
        where = copy.relative_to(ROOT)
        if copy.is_symlink():
            fail(f"{where} is a symbolic link: a copied binding loses it (copy the file)")
        elif not copy.is_file():
            fail(f"{where} is missing")
        elif copy.read_bytes() != (ROOT / name).read_bytes():
            fail(f"{where} differs from the root's {name}")
        else:
            print(f"ok   - {where} is the root's {name}")
    for dirpath, dirnames, filenames in os.walk(binding):
        # Build output is not the binding's source.
        dirnames[:] = [d for d in dirnames if d not in ("target", "build", "__pycache__", ".pytest_cache")]
        for entry in dirnames + filenames:
            path = Path(dirpath) / entry
            if path.is_symlink():
                target = (path.parent / os.readlink(path)).resolve()
                if binding.resolve() not in target.parents:
                    fail(f"{path.relative_to(ROOT)} links out of {binding.relative_to(ROOT)} (to {os.readlink(path)})")
sys.exit(1 if failures else 0)
