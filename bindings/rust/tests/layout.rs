// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the C compiler says about the header equals what Rust compiled:
//! struct sizes, alignments and field offsets, enum sizes, the `size` the
//! `_INIT` macros store, and every integer constant's value. A C probe is
//! generated from the header's declarations, compiled with `$CC` (default
//! `cc`) and run; its output is compared with tables of the compiled Rust
//! items. The tables must name every struct, field and constant the header
//! has, so they cannot silently fall behind.

mod decls;

use std::collections::BTreeMap;
use std::mem::{align_of, offset_of, size_of};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use decls::model::Constant;
use handoff::sys;

type StructLayout = (&'static str, usize, usize, Vec<(&'static str, usize)>);

/// (struct, size, alignment, [(field, offset)]) of the Rust structs.
macro_rules! struct_layouts {
    ($($s:ident { $($f:ident),* $(,)? })*) => {
        vec![$(
            (stringify!($s), size_of::<sys::$s>(), align_of::<sys::$s>(),
             vec![$((stringify!($f), offset_of!(sys::$s, $f))),*]),
        )*]
    };
}

fn rust_structs() -> Vec<StructLayout> {
    struct_layouts! {
        handoff_activity_delegate { size, user_activity_will_save, user_activity_was_continued, user_activity_did_receive_stream, user_activity_did_fail_to_hand_off }
        handoff_application_delegate {
            size, will_continue_user_activity, continue_user_activity, did_fail_to_continue_user_activity, did_update_user_activity,
            activity_available, activity_updated, activity_withdrawn, open_webpage,
        }
        handoff_continuity_options {
            size, account, device_id, device_name, role, beacon_port, disable_multicast,
            peers, peer_count, channel_address, fetch_timeout_ms, connect_timeout_ms,
            connection_reuse_ms, mode,
        }
        handoff_responder_callbacks { size, update_user_activity_state, restore_user_activity_state }
    }
}

fn rust_enum_sizes() -> Vec<(&'static str, usize)> {
    vec![
        ("handoff_status", size_of::<sys::handoff_status>()),
        ("handoff_value_kind", size_of::<sys::handoff_value_kind>()),
        (
            "handoff_activity_flag",
            size_of::<sys::handoff_activity_flag>(),
        ),
        ("handoff_device_role", size_of::<sys::handoff_device_role>()),
        (
            "handoff_continuity_mode",
            size_of::<sys::handoff_continuity_mode>(),
        ),
    ]
}

/// The `size` each Rust `_INIT` constant stores.
fn rust_init_sizes() -> Vec<(&'static str, usize)> {
    vec![
        (
            "HANDOFF_ACTIVITY_DELEGATE_INIT",
            sys::HANDOFF_ACTIVITY_DELEGATE_INIT.size,
        ),
        (
            "HANDOFF_APPLICATION_DELEGATE_INIT",
            sys::HANDOFF_APPLICATION_DELEGATE_INIT.size,
        ),
        (
            "HANDOFF_CONTINUITY_OPTIONS_INIT",
            sys::HANDOFF_CONTINUITY_OPTIONS_INIT.size,
        ),
        (
            "HANDOFF_RESPONDER_CALLBACKS_INIT",
            sys::HANDOFF_RESPONDER_CALLBACKS_INIT.size,
        ),
    ]
}

macro_rules! constants {
    ($($c:ident),* $(,)?) => { vec![$((stringify!($c), sys::$c as i64)),*] };
}

fn rust_constants() -> Vec<(&'static str, i64)> {
    constants![
        HANDOFF_VERSION_MAJOR,
        HANDOFF_VERSION_MINOR,
        HANDOFF_VERSION_PATCH,
        HANDOFF_VERSION_NUMBER,
        HANDOFF_OK,
        HANDOFF_E_INVALID_ARGUMENT,
        HANDOFF_E_INVALID_VALUE,
        HANDOFF_E_TYPE_MISMATCH,
        HANDOFF_E_NOT_FOUND,
        HANDOFF_E_MALFORMED_DATA,
        HANDOFF_E_IO,
        HANDOFF_E_MISSING_REQUIRED_KEY,
        HANDOFF_E_INVALID_STATE,
        HANDOFF_E_WRONG_THREAD,
        HANDOFF_E_TIMED_OUT,
        HANDOFF_E_PERMISSION,
        HANDOFF_E_HANDOFF_FAILED,
        HANDOFF_E_CONNECTION_UNAVAILABLE,
        HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT,
        HANDOFF_E_USER_INFO_TOO_LARGE,
        HANDOFF_USER_ACTIVITY_ERROR_MINIMUM,
        HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM,
        HANDOFF_USER_INFO_BUDGET,
        HANDOFF_VALUE_NULL,
        HANDOFF_VALUE_BOOLEAN,
        HANDOFF_VALUE_INTEGER,
        HANDOFF_VALUE_REAL,
        HANDOFF_VALUE_STRING,
        HANDOFF_VALUE_DATA,
        HANDOFF_VALUE_DATE,
        HANDOFF_VALUE_URL,
        HANDOFF_VALUE_ARRAY,
        HANDOFF_VALUE_DICTIONARY,
        HANDOFF_VALUE_SET,
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF,
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH,
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING,
        HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION,
        HANDOFF_ACTIVITY_NEEDS_SAVE,
        HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS,
        HANDOFF_DEVICE_ROLE_FULL,
        HANDOFF_DEVICE_ROLE_SEND_ONLY,
        HANDOFF_CONTINUITY_MODE_AUTO,
        HANDOFF_CONTINUITY_MODE_AGENT,
        HANDOFF_CONTINUITY_MODE_EMBEDDED,
    ]
}

/// C that prints, one per line: `size S n`, `align S n`, `offset S f n`,
/// `enum E n`, `init NAME n`, `const NAME n`.
fn probe_source(h: &decls::model::Decls) -> String {
    let mut c = String::from(
        "#include <handoff.h>\n#include <stddef.h>\n#include <stdio.h>\nint main(void)\n{\n",
    );
    for (s, fields) in &h.structs {
        c += &format!("    printf(\"size {s} %zu\\n\", sizeof({s}));\n");
        c += &format!("    printf(\"align {s} %zu\\n\", _Alignof({s}));\n");
        for (f, _) in fields {
            c += &format!("    printf(\"offset {s} {f} %zu\\n\", offsetof({s}, {f}));\n");
        }
    }
    for e in &h.enums {
        c += &format!("    printf(\"enum {e} %zu\\n\", sizeof({e}));\n");
    }
    for (name, value) in &h.constants {
        match value {
            Constant::Int(_) => {
                c += &format!("    printf(\"const {name} %lld\\n\", (long long)({name}));\n")
            }
            Constant::Init(_) => {
                let s = name.trim_end_matches("_INIT").to_lowercase();
                c +=
                    &format!("    {{ {s} x = {name}; printf(\"init {name} %zu\\n\", x.size); }}\n");
            }
            Constant::Str(_) => {}
        }
    }
    c + "    return 0;\n}\n"
}

/// The probe's lines split in words; compiled and run once per process.
fn run_probe() -> &'static [Vec<String>] {
    static LINES: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    LINES.get_or_init(compile_and_run_probe)
}

fn compile_and_run_probe() -> Vec<Vec<String>> {
    let h = decls::header();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let source = dir.join(format!("layout_probe_{}.c", std::process::id()));
    let binary = dir.join(format!("layout_probe_{}", std::process::id()));
    std::fs::write(&source, probe_source(&h)).expect("write the probe");
    // $CC may carry words of its own ("ccache cc").
    let cc = std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".into());
    let mut words = cc.split_whitespace();
    let include = decls::header_path().parent().unwrap().to_path_buf();
    let compiled = Command::new(words.next().unwrap())
        .args(words)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&include)
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?} (set CC): {e}"));
    assert!(
        compiled.status.success(),
        "the probe did not compile:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let out = Command::new(&binary).output().expect("run the probe");
    let _ = std::fs::remove_file(&binary);
    let _ = std::fs::remove_file(&source);
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

fn c_says(lines: &[Vec<String>], kind: &str) -> BTreeMap<String, i64> {
    lines
        .iter()
        .filter(|l| l[0] == kind)
        .map(|l| (l[1..l.len() - 1].join(" "), l[l.len() - 1].parse().unwrap()))
        .collect()
}

#[test]
fn structs_have_the_c_layout() {
    let lines = run_probe();
    let (sizes, aligns, offsets) = (
        c_says(lines, "size"),
        c_says(lines, "align"),
        c_says(lines, "offset"),
    );
    let rust = rust_structs();
    let rust_names: Vec<&str> = rust.iter().map(|s| s.0).collect();
    assert_eq!(
        rust_names,
        sizes.keys().collect::<Vec<_>>(),
        "the Rust table must list every struct of the header"
    );
    for (name, size, align, fields) in rust {
        assert_eq!(size as i64, sizes[name], "sizeof({name})");
        assert_eq!(align as i64, aligns[name], "alignof({name})");
        let c_fields: Vec<&String> = offsets
            .keys()
            .filter(|k| k.starts_with(&format!("{name} ")))
            .collect();
        assert_eq!(
            fields.len(),
            c_fields.len(),
            "{name}: the Rust table must list every field"
        );
        for (field, offset) in fields {
            assert_eq!(
                Some(&(offset as i64)),
                offsets.get(&format!("{name} {field}")),
                "offsetof({name}, {field})"
            );
        }
    }
}

#[test]
fn enums_have_the_c_size() {
    let enums = c_says(run_probe(), "enum");
    let rust: BTreeMap<String, i64> = rust_enum_sizes()
        .into_iter()
        .map(|(n, s)| (n.to_owned(), s as i64))
        .collect();
    assert_eq!(rust, enums);
}

#[test]
fn init_constants_store_the_c_size() {
    let inits = c_says(run_probe(), "init");
    let rust: BTreeMap<String, i64> = rust_init_sizes()
        .into_iter()
        .map(|(n, s)| (n.to_owned(), s as i64))
        .collect();
    assert_eq!(rust, inits);
}

#[test]
fn constants_have_the_c_values() {
    let consts = c_says(run_probe(), "const");
    let rust: BTreeMap<String, i64> = rust_constants()
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v))
        .collect();
    assert!(
        consts.len() >= 40,
        "only {} constants from the probe",
        consts.len()
    );
    assert_eq!(rust, consts);
}

#[test]
fn the_version_string_is_the_headers() {
    let h = decls::header();
    assert_eq!(
        h.constants["HANDOFF_VERSION_STRING"],
        Constant::Str(handoff::HEADER_VERSION.to_owned())
    );
}
