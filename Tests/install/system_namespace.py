# SPDX-License-Identifier: MIT OR Apache-2.0
"""Run by test_install_system.py inside a private mount namespace
(`unshare --mount --propagation private`): installs into /usr/local for
real, as root, with the machine's own ldconfig, and reports what happened
as JSON on its last line of output.

Nothing reaches the machine: /etc (where ldconfig writes its cache) and
/usr/local are overlays whose writes land in a tmpfs mounted on WORKDIR,
all of which the kernel drops when this process, the namespace's only
one, exits.

    system_namespace.py WORKDIR
"""

import json
import subprocess
import sys
from pathlib import Path

from install_support import (BARE_ENV, build_c, cargo_build, cargo_env, install, readelf_dynamic, run,
                             rust_dependent, snapshot, uninstall)


def mount(*args):
    subprocess.run(["mount", *args], check=True, capture_output=True, text=True)


def overlay(work, target):
    name = target.strip("/").replace("/", "-")
    upper, scratch = work / f"{name}-upper", work / f"{name}-work"
    upper.mkdir()
    scratch.mkdir()
    mount("-t", "overlay", "overlay", "-o", f"lowerdir={target},upperdir={upper},workdir={scratch}", target)


def cache_has_handoff():
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if "libhandoff.so" in line]


def main():
    work = Path(sys.argv[1])
    mount("-t", "tmpfs", "-o", "size=1g,mode=0755", "tmpfs", str(work))
    overlay(work, "/etc")
    overlay(work, "/usr/local")
    report = {"before": snapshot("/usr/local"), "cache_before": cache_has_handoff()}

    report["install"] = install("PREFIX=/usr/local")
    report["cache_installed"] = cache_has_handoff()
    program = build_c(work / "uses_handoff")  # pkg-config's own search path: no PKG_CONFIG_PATH
    ran = run(program)
    report["c_run"] = [ran.returncode, ran.stdout, ran.stderr]

    # A Rust app outside the repository, as its author writes it: no build
    # script, no environment variables.
    binary = cargo_build(rust_dependent(work / "rust-app", with_build_script=False), cargo_env())
    ran = run(binary)
    report["rust_run"] = [ran.returncode, ran.stdout, ran.stderr]
    report["rust_runpath"] = readelf_dynamic(binary, "RUNPATH") + readelf_dynamic(binary, "RPATH")

    report["uninstall"] = uninstall("PREFIX=/usr/local")
    report["after"] = snapshot("/usr/local")
    report["cache_uninstalled"] = cache_has_handoff()
    ran = run(program, env=BARE_ENV)
    report["c_run_uninstalled"] = [ran.returncode, ran.stdout, ran.stderr]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
