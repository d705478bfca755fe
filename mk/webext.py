#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browser extension as the stores take it (make webext): OUT/handoff-
firefox-VERSION.zip, the folder as `web-ext build` zips it, for
addons.mozilla.org, and OUT/handoff-chromium-VERSION.zip for the Chrome Web
Store, whose upload refuses a manifest with `key` (the store gives the
extension an id of its own). Both reproducible: sorted entries, one fixed
time, no folders. Nothing is uploaded.

Usage: webext.py EXTENSION_FOLDER OUT_FOLDER"""

import json
import sys
import zipfile
from pathlib import Path

# The zip format's earliest time: the same bytes from the same files.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def write_zip(path, files):
    """files: [(name in the zip, bytes)]."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files):
            entry = zipfile.ZipInfo(name, FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)


def main(folder, out):
    folder, out = Path(folder), Path(out)
    manifest = json.loads((folder / "manifest.json").read_text())
    version = manifest["version"]
    files = [(str(p.relative_to(folder)), p.read_bytes()) for p in folder.rglob("*") if p.is_file()]
    out.mkdir(parents=True, exist_ok=True)
    firefox = out / f"handoff-firefox-{version}.zip"
    write_zip(firefox, files)
    store = {k: v for k, v in manifest.items() if k != "key"}
    chromium = out / f"handoff-chromium-{version}.zip"
    write_zip(chromium, [(n, d) if n != "manifest.json" else (n, (json.dumps(store, indent=2) + "\n").encode())
                         for n, d in files])
    for made in (firefox, chromium):
        print(made)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
