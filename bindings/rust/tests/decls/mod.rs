// SPDX-License-Identifier: MIT OR Apache-2.0
//! The header's declarations and `src/sys.rs`'s, read from source and
//! compared.

#![allow(dead_code)] // each test crate uses part of it

pub mod c;
pub mod model;
pub mod rust;

use std::collections::BTreeSet;
use std::path::PathBuf;

use model::{Constant, Decls};

/// `include/handoff.h` of this repository.
pub fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../include/handoff.h")
}

/// This crate's raw layer.
pub fn sys_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/sys.rs")
}

pub fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn header() -> Decls {
    c::parse(&read(&header_path())).unwrap_or_else(|e| panic!("parsing handoff.h: {e}"))
}

pub fn sys() -> Decls {
    rust::parse(&read(&sys_path())).unwrap_or_else(|e| panic!("parsing src/sys.rs: {e}"))
}

/// Every difference between the header and the Rust declarations, one
/// line each; empty when they agree.
pub fn differences(h: &Decls, r: &Decls) -> Vec<String> {
    let mut out = Vec::new();

    for (name, f) in &h.functions {
        match r.functions.get(name) {
            None => out.push(format!(
                "function {name} is in the header but not in src/sys.rs"
            )),
            Some(g) if g.params.len() != f.params.len() => out.push(format!(
                "function {name}: {} parameters in the header, {} in src/sys.rs",
                f.params.len(),
                g.params.len()
            )),
            Some(g) if g != f => out.push(format!(
                "function {name}: header ({}) -> {}, src/sys.rs ({}) -> {}",
                f.params.join(", "),
                f.ret,
                g.params.join(", "),
                g.ret
            )),
            Some(_) => {}
        }
    }
    for name in r.functions.keys().filter(|n| !h.functions.contains_key(*n)) {
        out.push(format!(
            "function {name} is in src/sys.rs but not in the header"
        ));
    }

    for (name, v) in &h.constants {
        match r.constants.get(name) {
            None => out.push(format!(
                "constant {name} is in the header but not in src/sys.rs"
            )),
            Some(w) if w != v => {
                out.push(format!("constant {name}: header {v:?}, src/sys.rs {w:?}"))
            }
            Some(_) => {}
        }
    }
    for name in r.constants.keys().filter(|n| !h.constants.contains_key(*n)) {
        out.push(format!(
            "constant {name} is in src/sys.rs but not in the header"
        ));
    }

    for (name, fields) in &h.structs {
        match r.structs.get(name) {
            None => out.push(format!(
                "struct {name} is in the header but not in src/sys.rs"
            )),
            Some(g) if g != fields => out.push(format!(
                "struct {name}: header fields {fields:?}, src/sys.rs {g:?}"
            )),
            Some(_) => {}
        }
    }
    for name in r.structs.keys().filter(|n| !h.structs.contains_key(*n)) {
        out.push(format!(
            "struct {name} is in src/sys.rs but not in the header"
        ));
    }

    let set = |v: &Vec<String>| v.iter().cloned().collect::<BTreeSet<_>>();
    if set(&h.opaque) != set(&r.opaque) {
        out.push(format!(
            "opaque types: header {:?}, src/sys.rs {:?}",
            set(&h.opaque),
            set(&r.opaque)
        ));
    }
    if set(&h.enums) != set(&r.enums) {
        out.push(format!(
            "enum types: header {:?}, src/sys.rs {:?}",
            set(&h.enums),
            set(&r.enums)
        ));
    }

    // Each _INIT initializer fills its struct's fields, in order.
    for (name, v) in &h.constants {
        if let (Some(stem), Constant::Init(elements)) = (name.strip_suffix("_INIT"), v) {
            let struct_name = stem.to_lowercase();
            match h.structs.get(&struct_name) {
                Some(fields) if fields.len() != elements.len() => out.push(format!(
                    "{name} has {} elements for the {} fields of {struct_name}",
                    elements.len(),
                    fields.len()
                )),
                None => out.push(format!("{name} initializes no struct named {struct_name}")),
                _ => {}
            }
        }
    }
    out
}
