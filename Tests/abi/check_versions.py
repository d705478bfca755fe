# SPDX-License-Identifier: MIT OR Apache-2.0
"""The version, the releases, the changelog, the protocol document and the
wire agree (RELEASES' header says how a tree between releases names itself):

- every place that spells out the version (the header, the library's and
  the tool's Swift, the Python and Rust packages, the Rust sys layer,
  Debian's changelog) says what VERSION says;
- RELEASES lists versions oldest first, each with a commit, and never
  VERSION: the tree is either a release being cut (CHANGELOG.md's newest
  section is `## [VERSION] - date`, nothing above it but an empty
  `## [Unreleased]`) or in development (its top section is
  `## [Unreleased] (becomes VERSION)`), and VERSION is the next version
  after the newest release; CHANGELOG.md has a section for every release
  and a release for every dated section;
- docs/PROTOCOL.md's header names the revision the code speaks
  (ProtocolRevision.current, which the channel's ALPN `handoff/N` and
  HELLO's `revision` are made from) and VERSION; §10's table names, for
  each revision, the release that brought it: VERSION's major.minor for
  the current one, and every recorded release is in it;
- a version whose protocol revision is newer than the newest release's is
  a minor release (a patch release adds nothing to the protocol);
- debian/changelog's entries are dated newest first, each after the one
  below it (lintian fails the package build otherwise).

Exit 1, naming each place that does not agree."""

import email.utils
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    print(("ok   - " if ok else "FAIL - ") + what)
    if not ok:
        failures += 1


def text(path):
    return (ROOT / path).read_text()


def found(path, pattern, group=1):
    file = ROOT / path
    if not file.exists():
        return None
    m = re.search(pattern, file.read_text(), re.M)
    return m.group(group) if m else "(not found)"


def parse(version):
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    return tuple(int(p) for p in m.groups()) if m else None


version = text("VERSION").strip()
vkey = parse(version)
if vkey is None:
    print(f"FAIL - VERSION is not MAJOR.MINOR.PATCH: {version!r}")
    sys.exit(1)

# ---------------------------------------------------------------- copies

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
    "debian/changelog": found("debian/changelog", r"^\S+ \(([^)~-]+)"),
}
for place, v in places.items():
    check(v is None or v == version, f"{place}: {v if v is not None else '(no such file)'}")

# ---------------------------------------------------------------- RELEASES

releases = []
for line in text("RELEASES").splitlines():
    if line.startswith("#") or not line.split():
        continue
    fields = line.split()
    ok = len(fields) == 2 and parse(fields[0]) is not None and re.fullmatch(r"[0-9a-f]{40}", fields[1])
    check(bool(ok), f"RELEASES line {line!r} is a version and a full commit")
    if ok:
        releases.append(fields[0])
keys = [parse(r) for r in releases]
check(keys == sorted(set(keys)), f"RELEASES lists each release once, oldest first: {', '.join(releases)}")
check(version not in releases,
      f"VERSION {version} is not a recorded release (the tree after a release calls itself the next version)")
newest = max(keys) if keys else None
if newest:
    check(vkey > newest, f"VERSION {version} is newer than the newest release {'.'.join(map(str, newest))}")
    next_minor = (newest[0], newest[1] + 1, 0)
    next_patch = (newest[0], newest[1], newest[2] + 1)
    check(vkey in (next_minor, next_patch),
          f"VERSION {version} is the next minor or patch release after {'.'.join(map(str, newest))}")

# ---------------------------------------------------------------- CHANGELOG.md

headings = re.findall(r"^## \[([^\]]+)\](.*)$", text("CHANGELOG.md"), re.M)
sections = [(name, rest.strip()) for name, rest in headings]
dated = [name for name, _ in sections if parse(name)]
top_name, top_rest = sections[0] if sections else ("(none)", "")
if top_name == "Unreleased" and top_rest:
    # In development: the heading names what the tree becomes.
    check(top_rest == f"(becomes {version})",
          f"CHANGELOG.md's top section `## [Unreleased] {top_rest}` says it becomes VERSION {version}")
    check(bool(dated) and dated[0] == (releases[-1] if releases else None),
          f"CHANGELOG.md's newest release section [{dated[0] if dated else '(none)'}] is RELEASES' newest "
          f"({releases[-1] if releases else '(none)'})")
else:
    # A release being cut: an empty [Unreleased] (if any), then [VERSION] - date.
    body = re.search(r"^## \[Unreleased\]\s*\n(.*?)(?=^## \[)", text("CHANGELOG.md"), re.M | re.S)
    check(top_name != "Unreleased" or (body is not None and not body.group(1).strip()),
          "CHANGELOG.md: a release being cut has nothing under [Unreleased] "
          "(in development, the heading is `## [Unreleased] (becomes VERSION)`)")
    check(bool(dated) and dated[0] == version,
          f"CHANGELOG.md's newest release section [{dated[0] if dated else '(none)'}] is VERSION {version}")
    check(len(dated) < 2 or dated[1] == (releases[-1] if releases else None),
          f"CHANGELOG.md's release before it [{dated[1] if len(dated) > 1 else '(none)'}] is RELEASES' newest")
for name, rest in sections:
    if parse(name):
        check(re.fullmatch(r"- \d{4}-\d{2}-\d{2}", rest) is not None, f"CHANGELOG.md [{name}] is dated: {rest!r}")
cut = [v for v in dated if v != version]
check(sorted(cut, key=parse) == sorted(releases, key=parse),
      f"CHANGELOG.md's releases ({', '.join(sorted(cut, key=parse))}) are RELEASES' ({', '.join(releases)})")

# ---------------------------------------------------------------- the protocol

revision_source = text("Sources/HandoffContinuity/Versioning/ProtocolRevision.swift")
m = re.search(r"public static let current = (\d+)", revision_source)
current = int(m.group(1)) if m else None
check(current is not None, f"ProtocolRevision.current found: {current}")
# The wire's revision numbers are all made from that constant.
check('alpnPrefix: [UInt8] = Array("handoff/".utf8)' in revision_source
      and "alpnOffer(_ revisions: ClosedRange<Int> = spoken)" in revision_source,
      "the channel's ALPN ids are made from ProtocolRevision (handoff/N for each spoken revision)")

protocol = text("docs/PROTOCOL.md")
header = re.search(r"Protocol revision (\d+)\s+\(libhandoff (\d+\.\d+\.\d+)\)", protocol)
check(header is not None and int(header.group(1)) == current and header.group(2) == version,
      f"docs/PROTOCOL.md's header names revision {current} and libhandoff {version}: "
      f"{header.group(0) if header else '(no `Protocol revision N (libhandoff X.Y.Z)`)'}")
section10 = re.search(r"^## 10\..*?(?=^## \d|\Z)", protocol, re.M | re.S)
table = {}
for rev, release in re.findall(r"^\| (\d+) \| libhandoff (\d+\.\d+\.\d+) \|", section10.group(0) if section10 else "", re.M):
    table[int(rev)] = release
check(current in table and parse(table[current])[:2] == vkey[:2],
      f"docs/PROTOCOL.md §10 names VERSION's minor {vkey[0]}.{vkey[1]} as revision {current}'s release: {table.get(current)}")
check(sorted(table) == list(range(1, (current or 0) + 1)),
      f"docs/PROTOCOL.md §10's table has revisions 1…{current}, no more: {sorted(table)}")
revision_of = {}
for rev, release in table.items():
    revision_of[parse(release)[:2]] = rev
for release in releases:
    check(parse(release)[:2] in revision_of,
          f"release {release} is in docs/PROTOCOL.md §10's table (revision {revision_of.get(parse(release)[:2])})")
if releases and newest[:2] in revision_of and current is not None:
    raised = current > revision_of[newest[:2]]
    check(not raised or vkey[1] > newest[1] or vkey[0] > newest[0],
          f"revision {current} is newer than release {releases[-1]}'s ({revision_of[newest[:2]]}): VERSION {version} is a minor release")

# ---------------------------------------------------------------- debian/changelog

# Each entry newer than the one below it, in version and in date (lintian's
# latest-changelog-entry-without-new-date fails the package build otherwise).
entries = list(zip(re.findall(r"^\S+ \(([^)]+)\)", text("debian/changelog"), re.M),
                   re.findall(r"^ -- [^<]*<[^>]*>  ([^\n]+)$", text("debian/changelog"), re.M)))
dates = [email.utils.parsedate_to_datetime(d) for _, d in entries]
check(all(a > b for a, b in zip(dates, dates[1:])),
      "debian/changelog: each entry is dated after the one below it: "
      + ", ".join(f"{v} {d:%Y-%m-%d %H:%M}" for (v, _), d in zip(entries, dates)))

print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
