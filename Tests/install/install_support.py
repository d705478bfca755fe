# SPDX-License-Identifier: MIT OR Apache-2.0
"""Helpers of the installation tests: `make install`/`make uninstall` run
as a packager or a person would, snapshots of a folder tree to compare
before and after, and programs built against the installed copy the way
their authors would (pkg-config for C, a path dependency for Rust).
"""

import os
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
VERSION = (ROOT / "VERSION").read_text().strip()  # the project's one version

# What a program run "with no environment variables" gets: no
# LD_LIBRARY_PATH, nothing of the build.
BARE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent"}


def make(*args, env=None):
    """`make -C ROOT args` with no jobserver of an outer make."""
    base = {k: v for k, v in (env or os.environ).items()
            if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "DESTDIR", "PREFIX")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *args], capture_output=True, text=True,
                          env=base, timeout=1800)


def install(*args):
    done = make("install", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def uninstall(*args):
    done = make("uninstall", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def snapshot(folder):
    """Every path under folder (folder itself included) with its kind, mode
    and link target: equal snapshots mean the same tree."""
    folder = Path(folder)
    tree = {}
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            tree[str(path.relative_to(folder))] = ("link", os.readlink(path))
        else:
            kind = "dir" if stat.S_ISDIR(info.st_mode) else "file"
            tree[str(path.relative_to(folder))] = (kind, stat.S_IMODE(info.st_mode))
    return tree


def export_line(output):
    """The `export LD_LIBRARY_PATH=...` line install printed, or None."""
    lines = [line.strip() for line in output.splitlines() if line.strip().startswith("export LD_LIBRARY_PATH=")]
    assert len(lines) <= 1, output
    return lines[0] if lines else None


def pkg_config(*args, pc_path=None):
    env = dict(os.environ)
    env.pop("PKG_CONFIG_PATH", None)
    if pc_path:
        env["PKG_CONFIG_PATH"] = str(pc_path)
    done = subprocess.run(["pkg-config", *args, "handoff"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def build_c(out, pc_path=None):
    """uses_handoff.c built as its author would: flags from pkg-config only."""
    flags = pkg_config("--cflags", "--libs", pc_path=pc_path)
    cc = os.environ.get("CC", "cc")
    done = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", str(HERE / "uses_handoff.c"),
                           "-o", str(out), *flags], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def run(program, env=None, setup=None):
    """Runs program with env (BARE_ENV by default), after the shell line
    setup (what install printed) when given."""
    env = dict(env or BARE_ENV)
    if setup:
        return subprocess.run(["sh", "-c", f"{setup} && exec {shlex.quote(str(program))}"], capture_output=True,
                              text=True, env=env, timeout=120)
    return subprocess.run([str(program)], capture_output=True, text=True, env=env, timeout=120)


def readelf_dynamic(path, tag):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if f"({tag})" in line]


def cargo_env(extra=None):
    """cargo and rustup found as this user finds them; nothing else that
    would point the build at the library."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN")}
    env["CARGO_NET_OFFLINE"] = "true"
    env.update(extra or {})
    return env


def rust_dependent(folder, with_build_script):
    """A cargo project outside the repository depending on bindings/rust by
    path, as an app author would write it."""
    folder = Path(folder)
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text(
        '[package]\nname = "uses-handoff"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f'[dependencies]\nhandoff = {{ path = "{ROOT / "bindings" / "rust"}" }}\n')
    (folder / "src" / "main.rs").write_text((HERE / "uses_handoff.rs").read_text())
    if with_build_script:
        shutil.copy(HERE / "dependent_build.rs", folder / "build.rs")
    return folder


def cargo_build(folder, env):
    done = subprocess.run(["cargo", "build", "--offline", "--quiet"], cwd=folder, capture_output=True, text=True,
                          env=env, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    return Path(folder) / "target" / "debug" / "uses-handoff"
