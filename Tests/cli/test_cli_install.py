# SPDX-License-Identifier: MIT OR Apache-2.0
"""`make install` into a temporary prefix, then a C program built against
the installed copy through pkg-config, and run: the MapOff pair hands off
through the installed library. The prefix is removed afterwards.

The installed handoff.pc carries no rpath (distributions strip them):
programs in a prefix the dynamic linker does not search run here with
LD_LIBRARY_PATH=$prefix/lib, as docs/cli.md says.
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cli_support import ROOT, WAIT, free_port

VERSION = (ROOT / "VERSION").read_text().strip()


def make(*args):
    # A clean environment for the inner make: no jobserver of an outer one.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *args], capture_output=True, text=True,
                          env=env, timeout=1800)


def needed(path):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


@pytest.fixture(scope="module")
def prefix():
    folder = Path(tempfile.mkdtemp(prefix="handoff-prefix-"))
    try:
        installed = make("install", f"PREFIX={folder}")
        assert installed.returncode == 0, installed.stdout + installed.stderr
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_install_lays_out_library_header_tool_and_pc(prefix):
    lib = prefix / "lib"
    assert os.readlink(lib / "libhandoff.so") == "libhandoff.so.0"
    assert os.readlink(lib / "libhandoff.so.0") == f"libhandoff.so.{VERSION}"
    assert (lib / f"libhandoff.so.{VERSION}").is_file()
    assert (prefix / "include" / "handoff.h").read_text() == (ROOT / "include" / "handoff.h").read_text()
    assert os.access(prefix / "bin" / "handoff", os.X_OK)
    pc = (lib / "pkgconfig" / "handoff.pc").read_text()
    assert f"prefix={prefix}\n" in pc and f"libdir={prefix}/lib\n" in pc
    assert f"Version: {VERSION}" in pc and "rpath" not in pc.split("Libs:")[1]


def test_install_registers_the_browser_host_for_firefox_and_chromium(prefix):
    """docs/browser.md §1: a launcher naming the installed command, and the
    host manifests naming the launcher (below PREFIX for a prefix that is
    not /usr or /usr/local), and the extension."""
    launcher = prefix / "lib" / "handoff" / "browser-host"
    assert os.access(launcher, os.X_OK)
    assert f"exec '{prefix}/bin/handoff' browser-host" in launcher.read_text()
    firefox = json.loads((prefix / "lib" / "mozilla" / "native-messaging-hosts" / "org.libhandoff.browser.json").read_text())
    chromium = json.loads((prefix / "etc" / "chromium" / "native-messaging-hosts" / "org.libhandoff.browser.json").read_text())
    for manifest in (firefox, chromium):
        assert manifest["name"] == "org.libhandoff.browser" and manifest["path"] == str(launcher), manifest
        assert manifest["type"] == "stdio"
    assert firefox["allowed_extensions"] == ["browser@libhandoff.org"]
    extension_id = (ROOT / "bridges" / "browser" / "extension-id.txt").read_text().strip()
    assert chromium["allowed_origins"] == [f"chrome-extension://{extension_id}/"]
    extension = ROOT / "bridges" / "browser" / "extension"
    if extension.is_dir():
        installed = prefix / "share" / "handoff" / "browser-extension"
        assert sorted(p.name for p in installed.iterdir()) == sorted(p.name for p in extension.iterdir())


def test_pkg_config_gives_the_installed_copy(prefix):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "handoff"], capture_output=True, text=True, env=env)
    assert flags.returncode == 0, flags.stderr
    assert flags.stdout.split() == [f"-I{prefix}/include", f"-L{prefix}/lib", "-lhandoff"]
    version = subprocess.run(["pkg-config", "--modversion", "handoff"], capture_output=True, text=True, env=env)
    assert version.stdout.strip() == VERSION


def build_mapoff(prefix, mode):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "handoff"], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    out = prefix / f"mapoff-{mode}"
    cc = os.environ.get("CC", "cc")
    compiled = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-D_POSIX_C_SOURCE=200809L",
                               f'-DMAPOFF_MODE="{mode}"', str(ROOT / "examples" / "c" / "mapoff.c"), "-o", str(out),
                               *flags], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    return out


def test_mapoff_built_with_pkg_config_hands_off_through_the_installed_library(prefix):
    sender = build_mapoff(prefix, "send")
    receiver = build_mapoff(prefix, "receive")
    # Linked against the SONAME, not the build folder.
    assert "libhandoff.so.0" in needed(receiver)
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"))
    ldd = subprocess.run(["ldd", str(receiver)], capture_output=True, text=True, env=env).stdout
    assert f"{prefix}/lib/libhandoff.so.0" in ldd, ldd

    receive_port, send_port = free_port(), free_port()
    # Two devices on one host: each process its own config directory.
    devices = {}
    for side in ("receiver", "sender"):
        config = prefix / "devices" / side
        config.mkdir(parents=True, mode=0o700, exist_ok=True)
        devices[side] = dict(env, XDG_CONFIG_HOME=str(config))
    procs = []
    try:
        procs.append(subprocess.Popen([str(receiver), "--port", str(receive_port), "--peer", f"127.0.0.1:{send_port}",
                                       "--timeout", str(WAIT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=devices["receiver"]))
        procs.append(subprocess.Popen([str(sender), "--port", str(send_port), "--peer", f"127.0.0.1:{receive_port}",
                                       "--timeout", str(WAIT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, env=devices["sender"]))
        received, receive_err = procs[0].communicate(timeout=WAIT + 20)
        sent, send_err = procs[1].communicate(timeout=WAIT + 20)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    assert procs[0].returncode == 0, receive_err
    assert procs[1].returncode == 0, send_err
    assert "restored map center 37.3349, -122.0090" in received
    assert "was continued on the other device" in sent


def test_the_installed_tool_needs_no_swift_toolchain(prefix):
    tool = prefix / "bin" / "handoff"
    assert not [name for name in needed(tool) if "swift" in name.lower() or "Foundation" in name]
    # Runs with nothing of the build on its paths.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(prefix)}
    result = subprocess.run([str(tool), "--version"], capture_output=True, text=True, env=env)
    assert result.returncode == 0 and result.stdout.startswith(f"handoff {VERSION}")


def test_destdir_stages_under_the_final_prefix():
    stage = Path(tempfile.mkdtemp(prefix="handoff-stage-"))
    try:
        installed = make("install", f"DESTDIR={stage}", "PREFIX=/opt/handoff")
        assert installed.returncode == 0, installed.stderr
        root = stage / "opt" / "handoff"
        assert (root / "lib" / f"libhandoff.so.{VERSION}").is_file() and (root / "bin" / "handoff").is_file()
        assert "prefix=/opt/handoff\n" in (root / "lib" / "pkgconfig" / "handoff.pc").read_text()
        removed = make("uninstall", f"DESTDIR={stage}", "PREFIX=/opt/handoff")
        assert removed.returncode == 0, removed.stderr
        assert not [p for p in root.rglob("*") if p.is_file() or p.is_symlink()]
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def test_a_relative_prefix_is_refused():
    result = make("install", "PREFIX=relative/dir")
    assert result.returncode != 0
    assert "PREFIX must be an absolute path" in result.stderr
    assert not (ROOT / "relative").exists()
