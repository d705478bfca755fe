// SPDX-License-Identifier: MIT OR Apache-2.0
//! Continuation streams between two processes on loopback: a Rust
//! application of this test process at one end, the C streamer
//! (Tests/integration/streamer.c) at the other, in both roles. Each side
//! writes its bytes and half-closes, then reads to EOF; FNV-1a 64 sums
//! of what each wrote and read must agree across the languages.
//!
//! The streamer is `$HANDOFF_C_STREAMER` (`make test-rust` builds it and
//! sets it), else the repository's `build/bin/streamer`; missing, the
//! tests fail and say how to build it. It is killed and reaped when its
//! test ends, pass or fail.

mod apps;
#[allow(dead_code)] // the two-process suite uses the rest
#[path = "peers/process.rs"]
mod process;

use std::env;
use std::io::Write;
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::thread;

use apps::streams::{
    fnv1a64, next, offer, pattern, read_to_end, taker, OnStream, Opener, FNV_OFFSET,
};
use apps::{free_port, options, run_until_stopped, AppThread};
use handoff::{Account, Application, Manifest};
use process::Peer;

// The streamer's app, activity type and account (docs/PROTOCOL.md's test key).
const BUNDLE: &str = "com.example.streamer";
const TEAM: &str = "STREAMTEAM";
const TYPE: &str = "com.example.streamer.transfer";

fn key() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

fn manifest() -> Manifest {
    Manifest::new(BUNDLE, TEAM)
        .unwrap()
        .declaring(TYPE)
        .unwrap()
}

fn streamer(name: &str, role: &str, port: u16, peer: u16, bytes: usize) -> Peer {
    let path = match env::var_os("HANDOFF_C_STREAMER") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../build/bin/streamer"),
    };
    assert!(
        path.is_file(),
        "the C streamer {} is missing: run `make test-rust` at the repository root (it builds \
         build/bin/streamer from Tests/integration/streamer.c), or build it and set \
         HANDOFF_C_STREAMER to its path",
        path.display()
    );
    let args: Vec<String> = [
        role,
        "--port",
        &port.to_string(),
        "--peer",
        &format!("127.0.0.1:{peer}"),
        "--bytes",
        &bytes.to_string(),
        "--timeout",
        "30",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut peer = Peer::spawn(name, &path, &args, &[]);
    peer.wait_for("ready", &[]);
    peer
}

/// Writes `data` and half-closes while reading the other side to EOF;
/// returns what was read.
fn exchange(mut stream: UnixStream, data: Vec<u8>) -> Vec<u8> {
    let mut writer = stream.try_clone().unwrap();
    let writing = thread::spawn(move || {
        writer.write_all(&data).unwrap();
        writer.shutdown(Shutdown::Write).unwrap();
    });
    let read = read_to_end(&mut stream).expect("the other side ends with EOF");
    writing.join().unwrap();
    read
}

/// The streamer's report on its one stream agrees with ours.
fn assert_agree(peer: &mut Peer, sent: &[u8], received: &[u8]) {
    let done = peer.wait_for("stream-done", &[]);
    let hex = |b: &[u8]| format!("{:016x}", fnv1a64(FNV_OFFSET, b));
    assert_eq!(done.get("end"), "ok", "{}", peer.transcript());
    assert_eq!(done.get("received"), sent.len().to_string());
    assert_eq!(
        done.get("received-sum"),
        hex(sent),
        "what C read is what Rust wrote"
    );
    assert_eq!(done.get("sent"), received.len().to_string());
    assert_eq!(
        done.get("sent-sum"),
        hex(received),
        "what Rust read is what C wrote"
    );
    peer.wait_for("all-done", &[("streams", "1")]);
    assert_eq!(peer.exit_code(), Some(0), "{}", peer.transcript());
}

const BYTES: usize = 3 << 20;

#[test]
fn a_rust_receiver_streams_with_a_c_sender() {
    let (rport, sport) = (free_port(), free_port());
    let (opener, results) = Opener::new(1);
    let app = Application::new(&manifest(), opener).unwrap();
    app.delegate_mut().stopper = Some(app.stopper());
    let account = Account::from_key(&key()).unwrap();
    app.start_continuity(&options(&account, rport, sport, "Rust receiver"))
        .unwrap();
    let mut sender = streamer("C sender", "--send", sport, rport, BYTES);
    sender.wait_for("offering", &[]);

    run_until_stopped(&app);
    assert_eq!(app.delegate().remote_supports_streams, Some(true));
    let stream = next(&results).expect("a stream to the C sender");
    let data = pattern(0xC0FFEE, BYTES);
    let received = exchange(stream, data.clone());
    assert_agree(&mut sender, &data, &received);
}

#[test]
fn a_c_receiver_streams_with_a_rust_sender() {
    let (rport, sport) = (free_port(), free_port());
    let mut receiver = streamer("C receiver", "--receive", rport, sport, BYTES);
    let (delegate, streams, received_count) = taker(OnStream::Give);
    let _sender = AppThread::start_with(manifest(), key(), sport, rport, "Rust sender", |app| {
        offer(app, TYPE, true, delegate)
    });
    receiver.wait_for("continued", &[]);
    let stream = next(&streams);
    let data = pattern(0xBEEF, BYTES);
    let received = exchange(stream, data.clone());
    assert_agree(&mut receiver, &data, &received);
    assert_eq!(received_count.load(std::sync::atomic::Ordering::SeqCst), 1);
}
