// SPDX-License-Identifier: MIT OR Apache-2.0
//! `src/sys.rs` declares exactly what `include/handoff.h` declares: every
//! function with the same parameter and return types, every constant and
//! enum value, every struct's fields and every `_INIT` macro. Both files
//! are read from source, so a function added to the header and forgotten
//! in Rust fails here.

mod decls;

use decls::model::{Constant, Function};

#[test]
fn sys_declares_what_the_header_declares() {
    let problems = decls::differences(&decls::header(), &decls::sys());
    assert!(
        problems.is_empty(),
        "src/sys.rs and include/handoff.h differ:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_header_reading_is_not_vacuous() {
    let h = decls::header();
    assert!(
        h.functions.len() >= 115,
        "only {} functions read from the header",
        h.functions.len()
    );
    assert_eq!(
        h.functions["handoff_application_new"],
        Function {
            ret: "*m handoff_application".into(),
            params: vec![
                "*c handoff_manifest".into(),
                "*c handoff_application_delegate".into(),
                "*m void".into(),
                "fn(*m void) -> void".into(),
            ],
        }
    );
    assert_eq!(
        h.functions["handoff_restoration_handler_restore"].params,
        [
            "*m handoff_restoration_handler",
            "*c *m handoff_responder",
            "usize"
        ]
    );
    assert_eq!(
        h.functions["handoff_version_number"],
        Function {
            ret: "uint".into(),
            params: vec![]
        }
    );
    assert_eq!(
        h.constants["HANDOFF_E_USER_INFO_TOO_LARGE"],
        Constant::Int(4611)
    );
    // The project's one version (VERSION), as the header spells it.
    let version = include_str!("../../../VERSION").trim();
    let number: i64 = version
        .split('.')
        .fold(0, |n, part| n * 100 + part.parse::<i64>().unwrap());
    assert_eq!(h.constants["HANDOFF_VERSION_NUMBER"], Constant::Int(number));
    assert_eq!(
        h.constants["HANDOFF_VERSION_STRING"],
        Constant::Str(version.into())
    );
    assert_eq!(
        h.constants["HANDOFF_RESPONDER_CALLBACKS_INIT"],
        Constant::Init(vec![
            "sizeof(handoff_responder_callbacks)".into(),
            "null".into(),
            "null".into(),
        ])
    );
    assert!(h.structs.len() >= 4, "structs: {:?}", h.structs.keys());
    assert_eq!(
        h.structs["handoff_application_delegate"][1],
        (
            "will_continue_user_activity".to_owned(),
            "fn(*m handoff_application, *c char, *m void) -> int".to_owned()
        )
    );
    assert!(h.opaque.contains(&"handoff_remote_activity".to_owned()));
    assert!(h.enums.contains(&"handoff_activity_flag".to_owned()));
}

/// The header with `from` replaced by `to` (which must occur).
fn header_with(from: &str, to: &str) -> String {
    let text = decls::read(&decls::header_path());
    assert!(
        text.contains(from),
        "the header no longer holds {from:?}: update this test"
    );
    text.replacen(from, to, 1)
}

fn differences_with_header(header: &str) -> Vec<String> {
    let h = decls::c::parse(header).expect("the edited header parses");
    decls::differences(&h, &decls::sys())
}

#[test]
fn a_function_added_to_the_header_only_is_reported() {
    let header = header_with(
        "HANDOFF_API void handoff_free(void *pointer);",
        "HANDOFF_API void handoff_free(void *pointer);\nHANDOFF_API int handoff_new_thing(int a, const char *b);",
    );
    let problems = differences_with_header(&header);
    assert_eq!(
        problems,
        ["function handoff_new_thing is in the header but not in src/sys.rs"]
    );
}

#[test]
fn a_parameter_added_in_the_header_is_reported() {
    let header = header_with(
        "handoff_application_run(handoff_application *app, int timeout_ms);",
        "handoff_application_run(handoff_application *app, int timeout_ms, int flags);",
    );
    let problems = differences_with_header(&header);
    assert_eq!(
        problems,
        ["function handoff_application_run: 3 parameters in the header, 2 in src/sys.rs"]
    );
}

#[test]
fn a_changed_parameter_type_is_reported() {
    let header = header_with(
        "handoff_value_new_integer(int64_t value)",
        "handoff_value_new_integer(int value)",
    );
    let problems = differences_with_header(&header);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("function handoff_value_new_integer: header (int)"),
        "{problems:?}"
    );
}

#[test]
fn a_changed_enum_value_is_reported() {
    let header = header_with(
        "HANDOFF_E_USER_INFO_TOO_LARGE = 4611",
        "HANDOFF_E_USER_INFO_TOO_LARGE = 4612",
    );
    let problems = differences_with_header(&header);
    assert_eq!(
        problems,
        ["constant HANDOFF_E_USER_INFO_TOO_LARGE: header Int(4612), src/sys.rs Int(4611)"]
    );
}

#[test]
fn a_struct_field_added_in_the_header_is_reported() {
    let header = header_with(
        "    handoff_continuity_mode mode;\n} handoff_continuity_options;",
        "    handoff_continuity_mode mode;\n    int new_option;\n} handoff_continuity_options;",
    );
    let problems = differences_with_header(&header);
    // The struct differs, and its _INIT macro is now one element short.
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("struct handoff_continuity_options:"),
        "{problems:?}"
    );
    assert!(
        problems[1]
            .starts_with("HANDOFF_CONTINUITY_OPTIONS_INIT has 14 elements for the 15 fields"),
        "{problems:?}"
    );
}

#[test]
fn a_function_only_in_rust_is_reported() {
    let mut sys = decls::read(&decls::sys_path());
    sys.push_str("\nextern \"C\" {\n    pub fn handoff_imaginary(x: c_int) -> c_int;\n}\n");
    let r = decls::rust::parse(&sys).expect("the edited sys.rs parses");
    let problems = decls::differences(&decls::header(), &r);
    assert_eq!(
        problems,
        ["function handoff_imaginary is in src/sys.rs but not in the header"]
    );
}
