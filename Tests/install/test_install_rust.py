# SPDX-License-Identifier: MIT OR Apache-2.0
"""A Rust program outside the repository that depends on bindings/rust by
path, built against a copy installed into a temporary prefix: build.rs
finds it through pkg-config (PKG_CONFIG_PATH is all the build is given),
and the program runs with no environment variable at all when it has the
two-line build script the crate's README gives (DEP_HANDOFF_RPATH). Also
the order build.rs searches in: HANDOFF_LIB_DIR, pkg-config, the
repository's build folder.

The system-prefix case (no build script, nothing set: the linker's cache
finds the library) is in test_install_system.py.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from install_support import (BARE_ENV, ROOT, VERSION, cargo_build, cargo_env, export_line, install,
                             readelf_dynamic, run, rust_dependent)


@pytest.fixture(scope="module")
def installed():
    root = Path(tempfile.mkdtemp(prefix="handoff-rust-"))
    try:
        prefix = root / "prefix"
        out = install(f"PREFIX={prefix}")
        yield root, prefix, out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def runpath(binary):
    return readelf_dynamic(binary, "RUNPATH") + readelf_dynamic(binary, "RPATH")


def loaded_from(binary):
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=BARE_ENV).stdout
    return [line.split("=>")[1].split("(")[0].strip() for line in out.splitlines() if "libhandoff.so" in line]


def test_pkg_config_finds_the_installed_copy_and_the_app_runs_with_nothing_set(installed):
    root, prefix, _ = installed
    app = rust_dependent(root / "with-build-script", with_build_script=True)
    binary = cargo_build(app, cargo_env({"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}))
    assert runpath(binary) == [str(prefix / "lib")]
    assert loaded_from(binary) == [str(prefix / "lib" / "libhandoff.so.0")]
    ran = run(binary)  # BARE_ENV: no LD_LIBRARY_PATH
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"libhandoff {VERSION}\n"


def test_without_the_build_script_it_links_and_runs_with_the_line_install_printed(installed):
    # Cargo cannot put an rpath into a dependent's binary on the crate's
    # behalf: without the build script this is the C case.
    root, prefix, out = installed
    app = rust_dependent(root / "no-build-script", with_build_script=False)
    binary = cargo_build(app, cargo_env({"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig")}))
    assert runpath(binary) == []
    alone = run(binary)
    assert alone.returncode == 127 and "libhandoff.so.0" in alone.stderr
    ran = run(binary, setup=export_line(out))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"libhandoff {VERSION}\n"


def test_handoff_lib_dir_comes_before_pkg_config(installed):
    root, prefix, _ = installed
    build_lib = (ROOT / "build" / "lib").resolve()
    app = rust_dependent(root / "lib-dir", with_build_script=True)
    binary = cargo_build(app, cargo_env({"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig"),
                                         "HANDOFF_LIB_DIR": str(build_lib)}))
    assert runpath(binary) == [str(build_lib)]
    assert run(binary).returncode == 0


def test_with_neither_the_repository_build_folder_is_used(installed):
    root, _, _ = installed
    build_lib = (ROOT / "build" / "lib").resolve()
    env = cargo_env({"PKG_CONFIG_PATH": str(root / "no-such-folder")})
    if subprocess.run(["pkg-config", "--exists", "handoff"], env=env).returncode == 0:
        pytest.skip("this machine has handoff.pc on pkg-config's own path")
    binary = cargo_build(rust_dependent(root / "build-folder", with_build_script=True), env)
    assert runpath(binary) == [str(build_lib)]
    assert run(binary).returncode == 0
