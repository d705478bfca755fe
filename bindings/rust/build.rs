//! Finds libhandoff.so and links it, with an rpath so that `cargo test` and
//! `cargo run --example` find it at run time with no LD_LIBRARY_PATH.
//!
//! Where it looks, first match wins:
//!  1. `HANDOFF_LIB_DIR`, a folder holding libhandoff.so;
//!  2. the repository's build folder, `../../build/lib` from this crate
//!     (what `make lib` produces).

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HANDOFF_LIB_DIR");

    let dir = library_dir();
    if !dir.join("libhandoff.so").exists() {
        // Not fatal: `cargo check`, `cargo doc` and clippy need no library.
        // Linking will fail, and this says why.
        println!(
            "cargo:warning=libhandoff.so is not in {}: run `make lib` at the repository root, \
             or set HANDOFF_LIB_DIR to the folder that holds it",
            dir.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=handoff");
    // Binaries, tests and examples of this crate load the library from
    // where it was found.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
    // For crates that depend on this one (links = "handoff"):
    // DEP_HANDOFF_LIB_DIR in their build scripts.
    println!("cargo:lib_dir={}", dir.display());
}

fn library_dir() -> PathBuf {
    if let Some(dir) = env::var_os("HANDOFF_LIB_DIR").filter(|d| !d.is_empty()) {
        return absolute(Path::new(&dir));
    }
    let manifest = env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    absolute(&Path::new(&manifest).join("../../build/lib"))
}

/// The canonical path when it exists (an rpath should not hold `..`).
fn absolute(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
