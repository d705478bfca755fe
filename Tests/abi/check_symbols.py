# SPDX-License-Identifier: MIT OR Apache-2.0
"""debian/libhandoff0.symbols names exactly the library's exports, each
with the release that first exported it, so a program that uses a newer
function depends on a libhandoff0 that has it (the package build checks
the set too: dpkg-gensymbols -c4, debian/rules; this catches it without
building packages).

    python3 Tests/abi/check_symbols.py build/lib/libhandoff.so

- the file's symbols are the library's exported handoff_* functions
  (nm -D), no more, no fewer;
- each version is a release RELEASES records, or `VERSION~` (introduced
  in the release being made: `~` so that its pre-release packages
  satisfy it);
- when the releases' commits are in this clone: a symbol tagged with a
  release is declared in that release's header and not in the one before,
  and a symbol tagged `VERSION~` in no release's header. (A shallow
  clone skips this part and says so.)

Exit 1, naming each symbol that does not agree."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
library = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/lib/libhandoff.so")
failures = []


def fail(message):
    failures.append(message)
    print("FAIL - " + message)


def key(version):
    return tuple(int(p) for p in version.split("."))


version = (ROOT / "VERSION").read_text().strip()
releases = []
for line in (ROOT / "RELEASES").read_text().splitlines():
    fields = line.split()
    if fields and not line.startswith("#") and len(fields) == 2:
        releases.append((fields[0], fields[1]))
releases.sort(key=lambda r: key(r[0]))

symbols = {}
for line in (ROOT / "debian/libhandoff0.symbols").read_text().splitlines():
    m = re.fullmatch(r" (\S+)@Base (\S+)", line)
    if m:
        symbols[m.group(1)] = m.group(2)
    elif line.startswith(" "):
        fail(f"debian/libhandoff0.symbols: not `symbol@Base version`: {line!r}")

nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True).stdout
exported = {f[2] for f in (l.split() for l in nm.splitlines())
            if len(f) == 3 and f[1] in "TW" and f[2].startswith("handoff_")}

for name in sorted(exported - symbols.keys()):
    fail(f"{name} is exported but not in debian/libhandoff0.symbols")
for name in sorted(symbols.keys() - exported):
    fail(f"{name} is in debian/libhandoff0.symbols but not exported by {library}")

allowed = {r for r, _ in releases} | {version + "~"}
for name, v in sorted(symbols.items()):
    if v not in allowed:
        fail(f"{name}: version {v} is neither a release (RELEASES) nor {version}~ (the release being made)")


def declared(commit):
    """The handoff_* functions a release's header declares, or None when
    its commit is not in this clone."""
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:include/handoff.h"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    return set(re.findall(r"\b(handoff_\w+)\s*\(", shown.stdout))


headers = {r: declared(c) for r, c in releases}
if any(h is None for h in headers.values()):
    print("skip - a release's commit is not in this clone (shallow?): versions checked against RELEASES only")
else:
    order = [r for r, _ in releases]
    for name, v in sorted(symbols.items()):
        if v == version + "~":
            first = next((r for r in order if name in headers[r]), None)
            if first:
                fail(f"{name}: tagged {v}, but release {first} already declared it")
        elif v in headers:
            before = order[:order.index(v)]
            if name not in headers[v]:
                fail(f"{name}: tagged {v}, but that release's header does not declare it")
            elif before and name in headers[before[-1]]:
                fail(f"{name}: tagged {v}, but release {before[-1]} already declared it")

print(f"{len(symbols)} symbols, {len(exported)} exported: {len(failures)} failed")
sys.exit(1 if failures else 0)
