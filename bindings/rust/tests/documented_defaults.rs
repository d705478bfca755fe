// SPDX-License-Identifier: MIT OR Apache-2.0
//! `ContinuityOptions`' documented defaults are the library's: each
//! setter's doc comment in `src/continuity.rs` says what
//! `include/handoff.h` says the zero field of `handoff_continuity_options`
//! means. They had drifted once (all IPv4 and 30 s, against `"[::]:0"` and
//! 10 s). Both files are read from source.

use std::fs;
use std::path::Path;

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Comment text as one line: no comment markers, single spaces.
fn flat(text: &str) -> String {
    text.split_whitespace()
        .filter(|word| !matches!(*word, "*" | "///" | "//"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What follows `lead` in the header, up to the first of `ends`.
fn header_says(header: &str, lead: &str, ends: &[char]) -> String {
    let at = header
        .find(lead)
        .unwrap_or_else(|| panic!("the header no longer says {lead:?}: update this test"));
    let rest = &header[at + lead.len()..];
    rest[..rest.find(ends).unwrap_or(rest.len())].to_owned()
}

/// The doc comment right above `pub fn NAME(` in the Rust source.
fn setter_doc(source: &str, name: &str) -> String {
    let at = source
        .find(&format!("pub fn {name}("))
        .unwrap_or_else(|| panic!("no setter {name}"));
    let doc: Vec<&str> = source[..at]
        .lines()
        .rev()
        .skip(1) // the setter's own line, up to `pub fn`
        .take_while(|line| line.trim_start().starts_with("///"))
        .collect();
    flat(&doc.into_iter().rev().collect::<Vec<_>>().join("\n"))
}

fn seconds(ms: &str) -> String {
    let ms: u64 = ms.trim().parse().expect("milliseconds");
    assert_eq!(ms % 1000, 0, "a default of {ms} ms: state it in ms");
    format!("{} s", ms / 1000)
}

#[test]
fn continuity_options_document_the_headers_defaults() {
    let header = flat(&read("../../include/handoff.h"));
    let source = read("src/continuity.rs");
    let expected = [
        (
            "beacon_port",
            header_says(&header, "UDP port of the discovery beacons; 0: ", &['.']),
        ),
        (
            "channel_address",
            format!(
                "`\"{}\"`",
                header_says(
                    &header,
                    "Address the TLS channel listens on, \"host:port\"; NULL: \"",
                    &['"']
                )
            ),
        ),
        (
            "fetch_timeout",
            seconds(&header_says(
                &header,
                "HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT; 0: ",
                &[' '],
            )),
        ),
        (
            "connect_timeout",
            seconds(&header_says(
                &header,
                "Time to connect to a device (TCP), and as much again to authenticate it (the TLS handshake); 0: ",
                &[' '],
            )),
        ),
        (
            "connection_reuse",
            seconds(&header_says(
                &header,
                "kept for the next handoff (which then skips the handshake); 0: ",
                &[' '],
            )),
        ),
    ];
    let mut wrong = Vec::new();
    for (setter, default) in &expected {
        let doc = setter_doc(&source, setter);
        if !doc.contains(&format!("(default {default}")) {
            wrong.push(format!(
                "{setter}: the header's default is {default}; the doc says: {doc}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n  {}", wrong.join("\n  "));
}
