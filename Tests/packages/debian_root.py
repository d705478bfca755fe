# SPDX-License-Identifier: MIT OR Apache-2.0
"""A minimal Debian root (mmdebstrap) to install the project's .debs into
and run what they installed.

The root is the host's suite (bookworm here), variant minbase, with the
packages the .debs depend on already in it (and any others a test names,
such as the browsers), so installing them needs no network; built once per
package list and cached as a folder that no run changes: each run gets an
overlay of it (its changes in a folder of its own, dropped at the end), so
a root with the browsers (1.2 GB) costs no copy. The .debs mmdebstrap downloads are
kept in the cache folder's archives/ for the next list (the host's own
apt cache is read too, but this machine's apt empties it after each run).
Every command runs chrooted in a mount and PID namespace of its own
(unshare --kill-child), with /proc and a /dev/shm (the browsers' shared
memory) mounted there: the mounts and every process of the command end
with it, however the test ends."""

import hashlib
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import children

OURS = ("libhandoff0", "libhandoff-dev", "handoff", "python3-handoff", "webext-handoff-firefox",
        "webext-handoff-chromium")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Bound on one command in the root (dpkg, a handoff): generous for a loaded
# machine; reached only when something hangs.
COMMAND_TIMEOUT = 180


def packages_in(deb_dir):
    """{package: .deb path} of our packages found in deb_dir."""
    found = {}
    for deb in sorted(Path(deb_dir).glob("*.deb")):
        name = deb.name.split("_")[0]
        if name in OURS:
            found[name] = deb
    return found


def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], check=True, capture_output=True,
                          text=True).stdout.strip()


def dependencies(debs):
    """The packages our .debs depend on (first of each alternative), not ours."""
    names = set()
    for deb in debs.values():
        for clause in filter(None, (c.strip() for c in field(deb, "Depends").split(","))):
            name = re.split(r"[\s(:]", clause.split("|")[0].strip())[0]
            if name not in OURS:
                names.add(name)
    return sorted(names)


def host_suite():
    release = Path("/etc/os-release").read_text()
    match = re.search(r"^VERSION_CODENAME=\"?(\w+)", release, re.M)
    assert match, "no VERSION_CODENAME in /etc/os-release"
    return match.group(1)


def cached_root(cache_dir, debs, extra=()):
    """The root's folder for these dependencies and the `extra` packages:
    made by mmdebstrap on the first run (a minute or so from Debian's
    mirror; some minutes with the browsers), reused after; a tarball of
    an earlier cache is unpacked instead. Complete once its stamp exists."""
    suite = host_suite()
    include = sorted(set(dependencies(debs)) | set(extra))
    key = hashlib.sha256(" ".join([suite, *include]).encode()).hexdigest()[:12]
    folder = Path(cache_dir).resolve() / f"{suite}-minbase-{key}"
    stamp = folder.with_name(folder.name + ".complete")
    if stamp.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)  # from a run stopped midway
    folder.parent.mkdir(parents=True, exist_ok=True)
    tarball = folder.with_name(folder.name + ".tar")
    if tarball.exists():
        folder.mkdir()
        subprocess.run(["tar", "--numeric-owner", "-xf", str(tarball), "-C", str(folder)], check=True)
        tarball.unlink()
    else:
        archives = folder.parent / "archives"
        archives.mkdir(exist_ok=True)
        inside = "/var/cache/apt/archives/"
        subprocess.run(["nice", "-n", "10", "mmdebstrap", "--quiet", "--variant=minbase", "--format=directory",
                        "--skip=download/empty", "--setup-hook", f'mkdir -p "$1"{inside}',
                        "--setup-hook", f"sync-in {inside} {inside}",
                        "--setup-hook", f"sync-in {archives}/ {inside}",
                        "--customize-hook", f"sync-out {inside} {archives}/",
                        "--customize-hook", f'rm -f "$1"{inside}*.deb',
                        "--include=" + ",".join(include), suite, str(folder)],
                       check=True, timeout=1800)
    stamp.touch()
    return folder


class DebianRoot:
    """A run's root: RUN/root, an overlay of a cached root (the lower
    folder, never written) with RUN/upper holding what the run changed."""

    def __init__(self, run):
        self.run_folder = Path(run).resolve()
        self.path = self.run_folder / "root"

    def start(self, lower):
        """Mounts the overlay of `lower` (in the host's mount namespace, so
        every command sees the same root; remove() unmounts it)."""
        self.remove()
        for name in ("upper", "work", "root"):
            (self.run_folder / name).mkdir(parents=True)
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={lower},upperdir={self.run_folder / 'upper'},workdir={self.run_folder / 'work'}",
                        str(self.path)], check=True)

    def command(self, *argv, env=None, user=None):
        """argv for running argv chrooted into the root, in namespaces of its
        own; as `user` (a name in the root) when given, else as root."""
        environment = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", **(env or {})}
        # As a user: a root shell stays the namespace's first process, since
        # the kernel clears the parent-death signal (unshare --kill-child)
        # of a process whose credentials change: setpriv's exec, if first,
        # would outlive the command's end, and its children with it.
        become = ["sh", "-c", f'setpriv --reuid={user} --regid={user} --init-groups -- "$@"; exit $?',
                  "sh"] if user else []
        mounts = 'mount -t proc proc "$0/proc" && mount -t tmpfs -o mode=1777,nosuid,nodev shm "$0/dev/shm"'
        return ["unshare", "--mount", "--propagation", "private", "--pid", "--kill-child", "--",
                "sh", "-c", f'{mounts} && exec chroot "$0" "$@"', str(self.path),
                "env", "-i", *(f"{k}={v}" for k, v in environment.items()), *become, *argv]

    def run(self, *argv, env=None, user=None, check=True):
        """Runs argv in the root; the CompletedProcess (text)."""
        result = subprocess.run(self.command(*argv, env=env, user=user), capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT)
        if check:
            assert result.returncode == 0, f"{argv}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        return result

    def spawn(self, *argv, env=None, user=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE):
        """Starts argv in the root (stdout and stderr pipes unless given,
        text); tracked in children."""
        return children.track(subprocess.Popen(self.command(*argv, env=env, user=user), stdout=stdout,
                                               stderr=stderr, text=True))

    def install(self, debs):
        """Installs the .debs with dpkg (their dependencies are in the root)."""
        (self.path / "debs").mkdir()
        for deb in debs.values():
            shutil.copy(deb, self.path / "debs")
        self.run("sh", "-c", "dpkg -i /debs/*.deb")
        shutil.rmtree(self.path / "debs")

    def file(self, path):
        """A path inside the root, seen from the host."""
        return self.path / str(path).lstrip("/")

    def mounts(self):
        """Mount points of the host's namespace in the run's folder (the
        overlay, and nothing under it, ever)."""
        with open("/proc/self/mounts") as mounts:
            points = [line.split()[1] for line in mounts]
        top = str(self.run_folder)
        return [p for p in points if p == top or p.startswith(top + "/")]

    def processes(self):
        """Pids of the processes whose root is this root (none once every
        command ended)."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    where = os.readlink(entry / "root")
                except OSError:
                    continue
                if where == str(self.path) or where.startswith(str(self.path) + "/"):
                    found.append(int(entry.name))
        return found

    def remove(self):
        """Removes the root; fails when a process of it is still running
        (killed first, so nothing stays behind). A namespace whose first
        process was killed ends the rest at once; a few seconds allowed."""
        deadline = time.monotonic() + 10
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        left = self.processes()
        for pid in left:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        for point in sorted(self.mounts(), key=len, reverse=True):
            subprocess.run(["umount", "-l", point], check=False)
        assert self.mounts() == [], f"still mounted: {self.mounts()}"
        if self.run_folder.exists():
            shutil.rmtree(self.run_folder)
        assert left == [], f"processes of the root outlived their commands: {left}"
