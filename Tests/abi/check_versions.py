# SPDX-License-Identifier: MIT OR Apache-2.0
"""The project has one version, in VERSION; every place that must spell it
out (the header, the library's and the tool's Swift, the Python and Rust
packages, the Rust sys layer, Debian's changelog, CHANGELOG.md's newest
release) says the same. Exit 1, naming each place that does not."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
version = (ROOT / "VERSION").read_text().strip()
major, minor, patch = version.split(".")


def found(path, pattern, group=1):
    file = ROOT / path
    if not file.exists():
        return None
    m = re.search(pattern, file.read_text(), re.M)
    return m.group(group) if m else "(not found)"


places = {
    "include/handoff.h HANDOFF_VERSION_STRING": found("include/handoff.h", r'#define HANDOFF_VERSION_STRING "([^"]+)"'),
    "include/handoff.h MAJOR.MINOR.PATCH": ".".join(found("include/handoff.h", rf"#define HANDOFF_VERSION_{p} (\d+)") for p in ("MAJOR", "MINOR", "PATCH")),
    "Sources/HandoffCABI/Library.swift string": found("Sources/HandoffCABI/Library.swift", r'static let string: StaticString = "([^"]+)"'),
    "Sources/HandoffCABI/Library.swift numbers": ".".join(found("Sources/HandoffCABI/Library.swift", rf"static let {p}: UInt32 = (\d+)") for p in ("major", "minor", "patch")),
    "Sources/HandoffTool/CLI/Tool.swift": found("Sources/HandoffTool/CLI/Tool.swift", r'static let version = "([^"]+)"'),
    "bindings/python/pyproject.toml": found("bindings/python/pyproject.toml", r'^version = "([^"]+)"'),
    "bindings/python/handoff/__init__.py": found("bindings/python/handoff/__init__.py", r'^__version__ = "([^"]+)"'),
    "bindings/rust/Cargo.toml": found("bindings/rust/Cargo.toml", r'^version = "([^"]+)"'),
    "bindings/rust/Cargo.lock": found("bindings/rust/Cargo.lock", r'name = "handoff"\nversion = "([^"]+)"'),
    "bindings/rust/src/sys.rs HANDOFF_VERSION_STRING": found("bindings/rust/src/sys.rs", r'HANDOFF_VERSION_STRING: &CStr = c"([^"]+)"'),
    "bindings/rust/src/sys.rs MAJOR.MINOR.PATCH": ".".join(found("bindings/rust/src/sys.rs", rf"HANDOFF_VERSION_{p}: c_int = (\d+);") for p in ("MAJOR", "MINOR", "PATCH")),
    "CHANGELOG.md newest release": found("CHANGELOG.md", r"^## \[(\d+\.\d+\.\d+)\]"),
    "debian/changelog": found("debian/changelog", r"^\S+ \(([^)~-]+)"),
}
wrong = {place: v for place, v in places.items() if v is not None and v != version}
for place, v in places.items():
    print(("ok   - " if place not in wrong else "FAIL - ") + f"{place}: {v if v is not None else '(no such file)'}")
print(f"{len(places) - len(wrong)} passed, {len(wrong)} failed")
sys.exit(1 if wrong else 0)
