// SPDX-License-Identifier: MIT OR Apache-2.0
//! Finds libhandoff.so and links it.
//!
//! Where it looks, first match wins:
//!  1. `HANDOFF_LIB_DIR`, a folder holding libhandoff.so;
//!  2. `pkg-config handoff` (the `pkg-config` program, honouring
//!     `PKG_CONFIG_PATH`): an installed copy, `make install`;
//!  3. the repository's build folder, `../../build/lib` from this crate
//!     (what `make lib` produces).
//!
//! Run-time search path (rpath), only where it is right:
//!  - none when the dynamic linker already resolves `libhandoff.so.0` to
//!    the folder found (a system prefix after `ldconfig`): an rpath there
//!    would override the system's choice, and distributions forbid it;
//!  - otherwise (`HANDOFF_LIB_DIR`, a prefix outside the linker's path, the
//!    build folder) this crate's own tests and examples get an rpath to the
//!    folder, so `cargo test` runs with no `LD_LIBRARY_PATH`.
//!
//! Cargo gives a build script no way to add linker arguments to another
//! package's binaries (`rustc-link-arg` reaches this package's targets only;
//! rustc's `-l link-arg=` is unstable), so for dependents the folder is
//! exported as `DEP_HANDOFF_RPATH` (empty when none is needed), which a
//! dependent's two-line build.rs turns into its own rpath (README).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const SONAME: &str = "libhandoff.so.0";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // ldconfig rewrites its cache when a copy is installed into (or removed
    // from) a system folder: where the library is found may have changed.
    if Path::new("/etc/ld.so.cache").exists() {
        println!("cargo:rerun-if-changed=/etc/ld.so.cache");
    }
    for var in [
        "HANDOFF_LIB_DIR",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
        "PKG_CONFIG",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let Some((dir, origin)) = library_dir() else {
        // Not fatal: `cargo check`, `cargo doc` (docs.rs) and clippy need no
        // library. Linking will fail, and this says why.
        if env::var_os("DOCS_RS").is_none() {
            println!(
                "cargo:warning=libhandoff.so not found: install it (`make install` at the repository root, \
                 then pkg-config finds handoff.pc), run `make lib` there, or set HANDOFF_LIB_DIR to the \
                 folder that holds it"
            );
        }
        println!("cargo:rustc-link-lib=dylib=handoff");
        println!("cargo:rpath=");
        return;
    };
    if !dir.join("libhandoff.so").exists() {
        println!(
            "cargo:warning=libhandoff.so is not in {} ({origin})",
            dir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=handoff");

    let rpath = if linker_resolves(&dir) {
        None
    } else {
        Some(&dir)
    };
    if let Some(dir) = rpath {
        // This package's binaries, tests and examples only.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    // For crates that depend on this one (links = "handoff"): DEP_HANDOFF_*.
    println!("cargo:lib_dir={}", dir.display());
    println!("cargo:origin={origin}");
    println!(
        "cargo:rpath={}",
        rpath.map(|d| d.display().to_string()).unwrap_or_default()
    );
}

/// The folder holding libhandoff.so, and which source named it.
fn library_dir() -> Option<(PathBuf, &'static str)> {
    if let Some(dir) = env::var_os("HANDOFF_LIB_DIR").filter(|d| !d.is_empty()) {
        // Named explicitly: used even if the library is not there yet.
        return Some((absolute(Path::new(&dir)), "HANDOFF_LIB_DIR"));
    }
    if let Some(dir) = pkg_config_libdir().filter(|d| d.join("libhandoff.so").exists()) {
        return Some((absolute(&dir), "pkg-config"));
    }
    let manifest = env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let build = Path::new(&manifest).join("../../build/lib");
    build
        .join("libhandoff.so")
        .exists()
        .then(|| (absolute(&build), "build folder"))
}

/// `pkg-config --variable=libdir handoff`, when pkg-config and handoff.pc
/// are there. (`--libs-only-L` would drop a system folder such as
/// /usr/lib: libdir always names the folder.)
fn pkg_config_libdir() -> Option<PathBuf> {
    let program = env::var_os("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into());
    let out = Command::new(program)
        .args(["--variable=libdir", "handoff"])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let dir = text.trim();
    (out.status.success() && !dir.is_empty()).then(|| PathBuf::from(dir))
}

/// Does the dynamic linker find libhandoff.so.0 in `dir` by itself, through
/// its cache (`ldconfig -p`), as it does in /usr/local/lib after ldconfig?
fn linker_resolves(dir: &Path) -> bool {
    let ldconfig = ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]
        .into_iter()
        .find_map(|program| {
            Command::new(program)
                .arg("-p")
                .output()
                .ok()
                .filter(|o| o.status.success())
        });
    let Some(out) = ldconfig else { return false };
    // Lines "\tlibhandoff.so.0 (libc6,x86-64) => /usr/local/lib/libhandoff.so.0";
    // the first is the one programs get.
    let text = String::from_utf8_lossy(&out.stdout);
    let found = text
        .lines()
        .filter(|line| line.trim_start().starts_with(&format!("{SONAME} (")))
        .find_map(|line| line.split(" => ").nth(1));
    match found.and_then(|path| Path::new(path.trim()).parent().map(absolute)) {
        Some(parent) => parent == absolute(dir),
        None => false,
    }
}

/// The canonical path when it exists (an rpath should not hold `..`).
fn absolute(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
