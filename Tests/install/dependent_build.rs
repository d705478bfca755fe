// SPDX-License-Identifier: MIT OR Apache-2.0
// build.rs of a program that depends on the handoff crate (its README):
// an rpath to the library's folder when the dynamic linker would not find
// it by itself (DEP_HANDOFF_RPATH is empty otherwise).
fn main() {
    if let Some(dir) = std::env::var_os("DEP_HANDOFF_RPATH").filter(|d| !d.is_empty()) {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}
