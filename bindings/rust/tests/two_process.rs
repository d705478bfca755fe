// SPDX-License-Identifier: MIT OR Apache-2.0
//! Real handoffs between two processes on loopback, one side Rust (this
//! crate's safe API), the other the C peer of Tests/integration/peer.c.
//!
//! The C peer is `$HANDOFF_C_PEER` (`make test-rust` builds it and sets
//! it), else the repository's `build/bin/peer`; missing, the tests fail and
//! say how to build it. The Rust peer is this very test binary, started
//! again with `HANDOFF_TEST_RUST_PEER=1` (so this file has its own `main`:
//! `harness = false` in Cargo.toml). Every peer is killed and reaped when
//! its test ends, pass or fail.

mod peers;

use std::env;
use std::net::UdpSocket;
use std::panic;
use std::path::PathBuf;
use std::process;

use peers::process::{Peer, SIGTERM, SIGUSR1};
use peers::rust_peer::{blob, fnv1a, TYPE};

const RUST_PEER_ENV: &str = "HANDOFF_TEST_RUST_PEER";

fn main() {
    if env::var_os(RUST_PEER_ENV).is_some() {
        let args: Vec<String> = env::args().skip(1).collect();
        process::exit(peers::rust_peer::main(&args));
    }
    let tests: [(&str, fn()); 4] = [
        ("rust_sender_to_c_receiver", rust_sender_to_c_receiver),
        ("c_sender_to_rust_receiver", c_sender_to_rust_receiver),
        (
            "a_hung_c_sender_gives_the_rust_receiver_4610",
            a_hung_c_sender_gives_the_rust_receiver_4610,
        ),
        (
            "an_oversize_c_user_info_gives_the_rust_receiver_4611",
            an_oversize_c_user_info_gives_the_rust_receiver_4611,
        ),
    ];
    process::exit(run_tests(&tests));
}

/// A small libtest: runs the tests whose name contains any filter given
/// on the command line (all without filters), `--list` lists them.
fn run_tests(tests: &[(&str, fn())]) -> i32 {
    let args: Vec<String> = env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for (name, _) in tests {
            println!("{name}: test");
        }
        return 0;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let chosen: Vec<_> = tests
        .iter()
        .filter(|(n, _)| filters.is_empty() || filters.iter().any(|f| n.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for (name, test) in &chosen {
        let ok = panic::catch_unwind(test).is_ok();
        println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push(*name);
        }
    }
    let passed = chosen.len() - failed.len();
    if failed.is_empty() {
        println!("\ntest result: ok. {passed} passed; 0 failed\n");
        0
    } else {
        println!(
            "\nfailures:\n    {}\n\ntest result: FAILED. {passed} passed; {} failed\n",
            failed.join("\n    "),
            failed.len()
        );
        101
    }
}

// ---------------------------------------------------------------- peers

fn c_peer_path() -> PathBuf {
    let path = match env::var_os("HANDOFF_C_PEER") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/bin/peer"),
    };
    assert!(
        path.is_file(),
        "the C peer {} is missing: run `make test-rust` at the repository root (it builds build/bin/peer \
         from Tests/integration/peer.c), or build it and set HANDOFF_C_PEER to its path",
        path.display()
    );
    path
}

fn c_peer(name: &str, args: &[String]) -> Peer {
    let mut peer = Peer::spawn(name, &c_peer_path(), args, &[]);
    peer.wait_for("ready", &[]);
    peer
}

fn rust_peer(name: &str, args: &[String]) -> Peer {
    let me = env::current_exe().expect("the test binary's path");
    let mut peer = Peer::spawn(name, &me, args, &[(RUST_PEER_ENV, "1")]);
    peer.wait_for("ready", &[]);
    peer
}

/// A UDP port free right now (the kernel's choice), for a peer's beacons.
fn free_port() -> String {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn loopback(port: &str) -> String {
    format!("127.0.0.1:{port}")
}

// ---------------------------------------------------------------- tests

fn rust_sender_to_c_receiver() {
    let (rport, sport) = (free_port(), free_port());
    let mut receiver = c_peer(
        "C receiver",
        &args(&[
            "--receive",
            "--port",
            &rport,
            "--peer",
            &loopback(&sport),
            "--auto-continue",
            "--device-name",
            "C receiver",
        ]),
    );
    let mut sender = rust_peer(
        "Rust sender",
        &args(&[
            "--send",
            "--port",
            &sport,
            "--peer",
            &loopback(&rport),
            "--title",
            "From Rust",
            "--userinfo-bytes",
            "1000",
            "--device-name",
            "Rust sender",
        ]),
    );
    let id = sender
        .wait_for("offering", &[("type", TYPE)])
        .get("id")
        .to_owned();

    let available = receiver.wait_for("available", &[("id", &id)]);
    assert_eq!(available.get("type"), TYPE);
    assert_eq!(available.get("title"), "From Rust");
    assert_eq!(available.get("web"), "0");
    assert_eq!(available.get("device"), "Rust sender");
    assert_eq!(available.get("url"), "");
    receiver.wait_for("will-continue", &[("type", TYPE)]);
    let sum = fnv1a(&blob(1000));
    let continued = receiver.wait_for("continued", &[("id", &id)]);
    assert_eq!(continued.get("title"), "From Rust");
    assert_eq!(
        (
            continued.get("info-bytes"),
            continued.get("info-sum"),
            continued.get("count")
        ),
        ("1000", sum.as_str(), "1000")
    );
    receiver.wait_for("restored", &[("info-bytes", "1000")]);
    sender.wait_for("saving", &[("bytes", "1000")]);
    sender.wait_for("was-continued", &[("id", &id)]);
    assert!(
        receiver.matches("failed", &[]).is_empty(),
        "{}",
        receiver.transcript()
    );

    // Invalidated (from the Rust peer's stdin thread), it is withdrawn.
    sender.send_line("invalidate");
    sender.wait_for("invalidated", &[("id", &id)]);
    receiver.wait_for("withdrawn", &[("id", &id)]);
    sender.close_stdin();
    sender.wait_for("exit", &[("reason", "stdin")]);
    assert_eq!(sender.exit_code(), Some(0), "{}", sender.transcript());
}

fn c_sender_to_rust_receiver() {
    let (rport, sport) = (free_port(), free_port());
    let mut receiver = rust_peer(
        "Rust receiver",
        &args(&[
            "--receive",
            "--port",
            &rport,
            "--peer",
            &loopback(&sport),
            "--auto-continue",
            "--device-name",
            "Rust receiver",
        ]),
    );
    let mut sender = c_peer(
        "C sender",
        &args(&[
            "--send",
            "--port",
            &sport,
            "--peer",
            &loopback(&rport),
            "--title",
            "From C",
            "--userinfo-bytes",
            "2000",
            "--device-name",
            "C sender",
        ]),
    );
    let id = sender.wait_for("offering", &[]).get("id").to_owned();

    let available = receiver.wait_for("available", &[("id", &id)]);
    assert_eq!(
        (
            available.get("type"),
            available.get("title"),
            available.get("web"),
            available.get("device")
        ),
        (TYPE, "From C", "0", "C sender")
    );
    receiver.wait_for("will-continue", &[("type", TYPE)]);
    let sum = fnv1a(&blob(2000));
    let continued = receiver.wait_for("continued", &[("id", &id)]);
    assert_eq!(
        (
            continued.get("info-bytes"),
            continued.get("info-sum"),
            continued.get("count")
        ),
        ("2000", sum.as_str(), "2000")
    );
    assert_eq!(continued.get("title"), "From C");
    receiver.wait_for("restored", &[("info-bytes", "2000")]);
    sender.wait_for("was-continued", &[("id", &id)]);

    // A fresh activity made current withdraws the old one.
    sender.signal(SIGUSR1);
    let fresh = sender
        .wait_for_where("offering", "with a new id", |e| e.get("id") != id)
        .get("id")
        .to_owned();
    receiver.wait_for("withdrawn", &[("id", &id)]);
    receiver.wait_for("available", &[("id", &fresh)]);
    assert!(
        receiver.matches("failed", &[]).is_empty(),
        "{}",
        receiver.transcript()
    );
    sender.signal(SIGTERM);
    assert_eq!(sender.exit_code(), Some(0), "{}", sender.transcript());
    receiver.close_stdin();
    assert_eq!(receiver.exit_code(), Some(0), "{}", receiver.transcript());
}

fn a_hung_c_sender_gives_the_rust_receiver_4610() {
    let (rport, sport) = (free_port(), free_port());
    let mut receiver = rust_peer(
        "Rust receiver",
        &args(&[
            "--receive",
            "--port",
            &rport,
            "--peer",
            &loopback(&sport),
            "--auto-continue",
        ]),
    );
    let mut sender = c_peer(
        "hung C sender",
        &args(&[
            "--send",
            "--port",
            &sport,
            "--peer",
            &loopback(&rport),
            "--never-dispatch",
            "--fetch-timeout-ms",
            "300",
        ]),
    );
    let id = sender.wait_for("offering", &[]).get("id").to_owned();
    receiver.wait_for("available", &[("id", &id)]);
    let failed = receiver.wait_for("failed", &[("type", TYPE)]);
    assert_eq!(failed.get("code"), "4610", "{}", receiver.transcript());
    assert!(!failed.get("message").is_empty());
    assert!(receiver.matches("continued", &[]).is_empty());
}

fn an_oversize_c_user_info_gives_the_rust_receiver_4611() {
    let (rport, sport) = (free_port(), free_port());
    let mut receiver = rust_peer(
        "Rust receiver",
        &args(&[
            "--receive",
            "--port",
            &rport,
            "--peer",
            &loopback(&sport),
            "--auto-continue",
        ]),
    );
    let mut sender = c_peer(
        "oversize C sender",
        &args(&[
            "--send",
            "--port",
            &sport,
            "--peer",
            &loopback(&rport),
            "--userinfo-bytes",
            "4000",
        ]),
    );
    let id = sender.wait_for("offering", &[]).get("id").to_owned();
    receiver.wait_for("available", &[("id", &id)]);
    let failed = receiver.wait_for("failed", &[("type", TYPE)]);
    assert_eq!(failed.get("code"), "4611", "{}", receiver.transcript());
    assert!(receiver.matches("continued", &[]).is_empty());
    assert!(sender.matches("was-continued", &[]).is_empty());
}
