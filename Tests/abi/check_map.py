# SPDX-License-Identifier: MIT OR Apache-2.0
"""The project's map stays true (docs/ARCHITECTURE.md):

- every path that docs/ARCHITECTURE.md and README.md's "Layout" name in
  backticks exists in the tree (a path is a word whose first part is one
  of the tree's top-level names; `{a,b}` and `*` are expanded), and so
  does every fuzz target they name ("fuzz `bplist`");
- every numbered section a file cites (`PROTOCOL.md §5`, `docs/agent.md
  §3`, `browser.md §2`) is a section of that document;
- nothing in the tree cites a design file outside it: the tree's own
  documents are the reference, so no tracked file names one;
- `make help` lists every target `make test` runs and every .PHONY
  target of the Makefile and mk/*.mk, each with its one line, and every
  `make TARGET` a file names in backticks is a target make knows.

Exit 1, naming each place that does not agree."""

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What does not agree, one line each.
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def tracked_files():
    """The files of the tree: what git tracks or would (not ignored) in a
    checkout, else every file below the root (a release tarball)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".build", ".build-tsan", "build"}
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


FILES = tracked_files()
FILE_SET = set(FILES)
DIRS = {"/".join(f.split("/")[:i]) for f in FILES for i in range(1, f.count("/") + 1)}
TOP = {f.split("/")[0] for f in FILES}


def expand(word):
    """`a/{b,c}.swift` -> a/b.swift, a/c.swift."""
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    return [x for part in m.group(1).split(",")
            for x in expand(word[:m.start()] + part + word[m.end():])]


def exists(path):
    path = path.rstrip("/")
    if any(c in path for c in "*?["):
        return any(fnmatch.fnmatch(f, path) for f in FILES) or any(fnmatch.fnmatch(d, path) for d in DIRS)
    return path in FILE_SET or path in DIRS


def path_words(text):
    """Backticked words that claim to be paths of the tree."""
    for word in re.findall(r"`([^`\s]+)`", text):
        word = word.rstrip(".,;:)")
        if word.split("/")[0].split("{")[0] in TOP or word in TOP:
            yield word


def text_files():
    """(path, text) of every text file of the tree."""
    for path in FILES:
        file = ROOT / path
        if not file.is_file() or file.stat().st_size > 2_000_000:
            continue
        try:
            yield path, file.read_text()
        except UnicodeDecodeError:
            continue


TEXTS = list(text_files())


def layout_section(readme):
    m = re.search(r"^## Layout\n(.*?)(?=^## )", readme, re.S | re.M)
    return m.group(1) if m else ""


# The map's paths.
architecture = ROOT / "docs" / "ARCHITECTURE.md"
check(architecture.is_file(), "docs/ARCHITECTURE.md exists")
sources = {"docs/ARCHITECTURE.md": architecture.read_text() if architecture.is_file() else "",
           "README.md (Layout)": layout_section((ROOT / "README.md").read_text())}
check(sources["README.md (Layout)"] != "", "README.md has a \"## Layout\" section")
named = 0
for where, text in sources.items():
    for word in path_words(text):
        for path in expand(word):
            named += 1
            check(exists(path), f"{where} names `{path}`, which is not in the tree")
# Fuzz targets named as "fuzz `a`, `b`" (a `*` matches several).
for where, text in sources.items():
    for group in re.findall(r"fuzz ((?:`[^`]+`(?:, )?)+)", text):
        for name in re.findall(r"`([^`]+)`", group):
            named += 1
            check(exists(f"Tests/fuzz/targets/{name}.swift"), f"{where} names the fuzz target `{name}`, "
                  f"which is not in Tests/fuzz/targets")
check(named >= 100, f"docs/ARCHITECTURE.md and README's Layout name paths ({named} found)")

# Section citations, and no citation of a file outside the tree.
section_counts = {}
for doc in ("PROTOCOL", "agent", "browser"):
    text = (ROOT / "docs" / f"{doc}.md").read_text()
    section_counts[doc] = {int(n) for n in re.findall(r"^## (\d+)\.", text, re.M)}
cite = re.compile(r"\b(PROTOCOL|agent|browser)(?:\.md)? §(\d+)")
# The outside design file's name, spelled so that this file does not cite it.
outside = re.compile(r"\bDESIGN" + r"(\.md\b| §)")
scanned = cited = 0
for path, text in TEXTS:
    scanned += 1
    for number, line in enumerate(text.splitlines(), 1):
        for m in cite.finditer(line):
            cited += 1
            check(int(m.group(2)) in section_counts[m.group(1)],
                  f"{path}:{number} cites {m.group(0)}: docs/{m.group(1)}.md has no section {m.group(2)}")
        if outside.search(line):
            check(False, f"{path}:{number} cites a design file outside the tree: cite docs/ARCHITECTURE.md "
                         f"or the document of the tree that holds the rule")

# make help.
def make(*args):
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *args],
                          capture_output=True, text=True).stdout


helped = {}
for line in make("-s", "help").splitlines():
    m = re.match(r"^  (\S+)\s+(\S.*)$", line)
    if m:
        helped[m.group(1)] = m.group(2)
database = make("-pRrqn", ":")
m = re.search(r"^test: (.*)$", database, re.M)
check(m is not None, "make's database has the rule for `test`")
for target in (m.group(1).split() if m else []):
    check(target in helped, f"`make help` does not list `{target}`, which `make test` runs")
makefiles = [ROOT / "Makefile"] + sorted((ROOT / "mk").glob("*.mk"))
for makefile in makefiles:
    for line in makefile.read_text().splitlines():
        if line.startswith(".PHONY:"):
            for target in line.split(":", 1)[1].split():
                if "$" not in target:
                    check(target in helped, f"`make help` does not list `{target}` (.PHONY in {makefile.name})")
# `make TARGET` named in backticks anywhere: a target make knows.
known = set(helped) | set(re.findall(r"^([A-Za-z0-9_%./-]+):", database, re.M))
named_make = re.compile(r"`make ([a-z][a-z0-9_-]*)")
for path, text in TEXTS:
    for number, line in enumerate(text.splitlines(), 1):
        for m in named_make.finditer(line):
            target = m.group(1)
            if target not in known and not target.startswith("fuzz-"):
                check(False, f"{path}:{number} names `make {target}`, which is no target of the Makefile or mk/")
check(len(helped) >= 40, f"`make help` lists the targets ({len(helped)} found)")

for what in problems:
    print("FAIL - " + what)
print(f"{'FAIL' if problems else 'ok'}: {named} paths named, {cited} section citations in {scanned} files, "
      f"{len(helped)} targets in make help; {len(problems)} disagree")
sys.exit(1 if problems else 0)
