# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every descriptor the library, the tools and the tests open is
close-on-exec from the moment it exists: a descriptor that is not leaks
into every program another thread starts meanwhile, and a write
descriptor held by such a program makes exec of that file fail with
ETXTBSY ("Text file busy"). Setting FD_CLOEXEC after the call leaves that
window open, so the flag goes in the call itself.

Reads the Swift, C and C++ of Sources/ and Tests/ and finds each call
that makes a descriptor:

- open/openat with O_ flags: O_CLOEXEC among them;
- socket/socketpair: SOCK_CLOEXEC; accept4: SOCK_CLOEXEC, never accept;
- pipe2: O_CLOEXEC, never pipe; dup: never (fcntl F_DUPFD_CLOEXEC);
- mkostemp: O_CLOEXEC, never mkstemp; creat: never;
- fopen/popen: "e" in the mode;
- inotify_init1, epoll_create1, eventfd, timerfd_create, memfd_create,
  signalfd: their CLOEXEC flag, never inotify_init or epoll_create;
- Foundation's file writers (FileHandle(forWriting:…), Data.write(to:),
  FileManager.createFile), which open without O_CLOEXEC: never.

ALLOWED lists the calls that must stay as they are, each with why.
Exit 1, naming each call that is neither close-on-exec nor allowed."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ["Sources", "Tests"]
SUFFIXES = {".swift", ".c", ".h", ".cpp"}

# (path, text the call contains): why it stays.
ALLOWED = {
    ("Sources/CLinux/clinux.c", "pipe2(fds, flags)"):
        "the wrapper Swift calls pipe2 through: its callers pass the flags, and are checked",
    ("Sources/CLinux/clinux.c", "accept4(fd, address, length, flags)"):
        "the wrapper Swift calls accept4 through: its callers pass the flags, and are checked",
    ("Tests/HandoffAgentTests/Desktop/LauncherTests.swift", "pipe(&leak)"):
        "the test makes a descriptor that is not close-on-exec on purpose: the launcher must not let it reach the app",
}

# name: (flag the arguments must contain, or None: the call is never right; how to tell the call from a method)
RULES = {
    "open": ("O_CLOEXEC", "O_"),
    "openat": ("O_CLOEXEC", "O_"),
    "creat": (None, ","),
    "socket": ("SOCK_CLOEXEC", "AF_"),
    "socketpair": ("SOCK_CLOEXEC", "AF_"),
    "accept": (None, "nil"),
    "accept4": ("SOCK_CLOEXEC", ","),
    "clinux_accept4": ("SOCK_CLOEXEC", ","),
    "pipe": (None, "fd"),
    "pipe2": ("O_CLOEXEC", ","),
    "clinux_pipe2": ("O_CLOEXEC", ","),
    "dup": (None, ""),
    "mkstemp": (None, ""),
    "mkostemp": ("O_CLOEXEC", ","),
    "inotify_init": (None, ""),
    "inotify_init1": ("IN_CLOEXEC", ""),
    "epoll_create": (None, ""),
    "epoll_create1": ("EPOLL_CLOEXEC", ""),
    "eventfd": ("EFD_CLOEXEC", ","),
    "timerfd_create": ("TFD_CLOEXEC", ","),
    "memfd_create": ("MFD_CLOEXEC", ","),
    "signalfd": ("SFD_CLOEXEC", ","),
}
FOUNDATION = re.compile(r"FileHandle\(\s*for(Writing|Updating|Reading)|\.write\(\s*to:\s*URL|createFile\(\s*atPath")
CALL = re.compile(r"(?<![\w.>])(" + "|".join(sorted(RULES, key=len, reverse=True)) + r"|fopen|popen)\s*\(")


def without_comments(source):
    """The source with comments blanked (strings kept: fopen's mode)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in source[i:j]))
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"' and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(source[i:j + 1])
            i = j + 1
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def arguments(source, start):
    """The text between the parenthesis at `start` and its match."""
    depth, i = 0, start
    while i < len(source):
        if source[i] == "(":
            depth += 1
        elif source[i] == ")":
            depth -= 1
            if depth == 0:
                return source[start + 1:i]
        i += 1
    return source[start + 1:]


def blank_strings(source):
    """The same text with each string literal's contents blanked (offsets kept)."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', source)


def calls(path):
    kept = without_comments(path.read_text(errors="replace"))
    source = blank_strings(kept)
    for m in CALL.finditer(source):
        name = m.group(1)
        before = source[max(0, m.start() - 16):m.start()]
        if re.search(r"\b(func|case|static|int|void|long|ssize_t)\s+\**$", before):
            continue  # a declaration, or an enum case of the same name
        args = arguments(kept if name in ("fopen", "popen") else source, m.end() - 1)
        line = source.count("\n", 0, m.start()) + 1
        if name in ("fopen", "popen"):
            mode = re.search(r'"([^"]*)"\s*$', args)
            if mode is None:
                yield line, name, args, f"{name} with a mode that is not a literal"
            elif "e" not in mode.group(1):
                yield line, name, args, f'{name} mode "{mode.group(1)}" without "e"'
            continue
        flag, marker = RULES[name]
        if name in ("pipe", "dup", "mkstemp", "inotify_init", "epoll_create"):
            if ":" in args:
                continue  # a labelled call: a method of the same name
            if name in ("pipe", "dup") and "," in args:
                continue
        elif name == "accept":
            if ":" in args or args.count(",") != 2:
                continue  # not accept(fd, address, length)
        elif marker and marker not in args:
            continue  # not the system call (a method of the same name)
        if flag is None:
            yield line, name, args, f"{name}() makes a descriptor that is not close-on-exec"
        elif flag not in args:
            yield line, name, args, f"{name}() without {flag}"
    for m in FOUNDATION.finditer(source):
        line = source.count("\n", 0, m.start()) + 1
        yield line, "Foundation", m.group(0), f"{m.group(0)}: Foundation opens the file without O_CLOEXEC"


failures, used, files = 0, set(), 0
for folder in FOLDERS:
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        files += 1
        rel = str(path.relative_to(ROOT))
        for line, name, args, problem in calls(path):
            allowed = [k for k in ALLOWED if k[0] == rel and k[1] in f"{name}({args})"]
            if allowed:
                used.update(allowed)
                print(f"allowed - {rel}:{line}: {ALLOWED[allowed[0]]}")
                continue
            failures += 1
            print(f"FAIL - {rel}:{line}: {problem}")
for stale in sorted(set(ALLOWED) - used):
    failures += 1
    print(f"FAIL - ALLOWED names {stale[0]}: {stale[1]!r}, which is no longer there")
print(f"{files} files: {failures} descriptors not close-on-exec")
sys.exit(1 if failures else 0)
