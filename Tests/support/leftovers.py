# SPDX-License-Identifier: MIT OR Apache-2.0
"""What a test run leaves behind, found and ended. A process is
the run's when its environment holds the run's tag (RUN_TAG=token, put in
os.environ by `tag_run`, so every child, the buses the tests start and
what those buses activate inherit it: a D-Bus daemon passes its own
environment to the services it starts). A mount is the run's when it lies
under one of the run's folders (xdg-document-portal's FUSE mount at
HOME/.cache/doc was one). Reading /proc only: standard library."""

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

RUN_TAG = "HANDOFF_TEST_RUN"


def tag_run():
    """Tags this process's environment (for its children) with a token of
    this run, unless a parent run already did; returns the token."""
    token = os.environ.get(RUN_TAG)
    if not token:
        token = uuid.uuid4().hex
        os.environ[RUN_TAG] = token
    return token


def tagged(name, value):
    """Pids of the processes (not this one) whose environment holds
    NAME=VALUE."""
    needle = f"{name}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue  # gone, or not ours to read
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def describe(pid):
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return str(pid)
    return f"{pid} {argv.decode(errors='replace').strip()}"


def end(pids, wait=5.0):
    """SIGKILLs `pids`, reaps those that are this process's children, and
    waits (bounded) for the rest to be gone."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + wait
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    break
            except ChildProcessError:
                pass  # not our child: someone else reaps it
            if not _alive(pid):
                break
            time.sleep(0.02)


def _alive(pid):
    """Running (a zombie is not: it holds nothing but its pid)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _unescape(field):
    """/proc/self/mountinfo writes space, tab, newline and backslash as \\ooo."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts_under(folder):
    """Mount points at or under `folder`, deepest first."""
    base = os.path.realpath(folder)
    points = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        point = _unescape(line.split()[4])
        if point == base or point.startswith(base.rstrip("/") + "/"):
            points.append(point)
    return sorted(set(points), key=len, reverse=True)


def unmount_under(folder):
    """Undoes every mount under `folder` (lazily: a FUSE server already
    killed leaves its mount busy or dead). Returns what was mounted."""
    points = mounts_under(folder)
    for point in points:
        for command in (["fusermount3", "-u", "-z", point], ["fusermount", "-u", "-z", point], ["umount", "-l", point]):
            try:
                if subprocess.run(command, capture_output=True, timeout=20).returncode == 0:
                    break
            except (OSError, subprocess.TimeoutExpired):
                continue
    return points


def clean(name, value, folders=()):
    """Ends every process tagged NAME=VALUE and undoes every mount under
    `folders`. Returns (processes, mounts) that were left, described."""
    pids = tagged(name, value)
    described = [describe(pid) for pid in pids]
    end(pids)
    mounts = [point for folder in folders if os.path.isdir(folder) for point in unmount_under(folder)]
    return described, mounts
