// SPDX-License-Identifier: MIT OR Apache-2.0
//! Continuation streams between two applications of this process over
//! loopback: the receiver asks for a stream on the activity it continued,
//! the sender's delegate gets the other end, and bytes cross the TLS
//! channel both ways. Also the refusals, and panics that must close the
//! stream they held. (The two-process suite does the same against the C
//! streamer.)

mod apps;

use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use apps::streams::{
    fnv1a64, next, offer, pattern, read_to_end, taker, NoStreams, OnStream, Opener, FNV_OFFSET,
    STOP_WRITES,
};
use apps::{
    account_key, free_port, manifest, options, run_until_stopped, AppThread, PATIENCE, TYPE,
};
use handoff::{
    Account, Activity, ActivityDelegate, ActivityFlag, Application, CallbackPanic, ErrorCode,
};

// Keys distinct from the loopback suite's (1..=6).
const KEY_ECHO: u8 = 21;
const KEY_UNSUPPORTED: u8 = 22;
const KEY_REFUSED: u8 = 23;
const KEY_SENDER_PANIC: u8 = 24;
const KEY_RECEIVER_PANIC: u8 = 25;
const KEY_SEVERAL: u8 = 26;
const KEY_WRONG_THREAD: u8 = 27;
const KEY_WRITE_AND_STOP: u8 = 28;
const KEY_CUT: u8 = 29;

/// A sender on its own thread offering one activity (streams supported
/// when `supports`), with `delegate`.
fn sender<D: ActivityDelegate>(
    key: u8,
    ports: (u16, u16),
    supports: bool,
    delegate: D,
) -> AppThread {
    let (port, peer) = ports;
    AppThread::start(account_key(key), port, peer, "Stream sender", move |app| {
        offer(app, TYPE, supports, delegate)
    })
}

/// A receiving application on this thread, continuity started.
fn receiver(key: u8, ports: (u16, u16), opener: Opener) -> Application<Opener> {
    let (port, peer) = ports;
    let app = Application::new(&manifest(), opener).unwrap();
    app.delegate_mut().stopper = Some(app.stopper());
    let account = Account::from_key(&account_key(key)).unwrap();
    app.start_continuity(&options(&account, port, peer, "Stream receiver"))
        .unwrap();
    app
}

fn ports() -> ((u16, u16), (u16, u16)) {
    let (r, s) = (free_port(), free_port());
    ((r, s), (s, r))
}

static PANICS: Mutex<Vec<CallbackPanic>> = Mutex::new(Vec::new());

fn record_panics() {
    handoff::set_callback_panic_hook(|p| PANICS.lock().unwrap().push(p.clone()));
}

/// The reports of `callback` with `outcome` so far.
fn reports(callback: &str, outcome: &str) -> Vec<CallbackPanic> {
    PANICS
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.callback == callback && p.outcome == outcome)
        .cloned()
        .collect()
}

/// As `reports`, waiting (up to PATIENCE) for a first one: a panic's
/// unwinding closes the stream before the binding reports it.
fn await_reports(callback: &str, outcome: &str) -> Vec<CallbackPanic> {
    for _ in 0..2000 {
        let found = reports(callback, outcome);
        if !found.is_empty() {
            return found;
        }
        thread::sleep(Duration::from_millis(10));
    }
    Vec::new()
}

// ------------------------------------------------------------------ tests

#[test]
fn a_stream_carries_bytes_both_ways_and_half_closes() {
    let (rports, sports) = ports();
    let (delegate, _, received) = taker(OnStream::Echo);
    let _sender = sender(KEY_ECHO, sports, true, delegate);
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_ECHO, rports, opener);
    run_until_stopped(&app);
    assert_eq!(app.delegate().remote_supports_streams, Some(true));
    assert!(matches!(app.delegate().immediate, Some(Ok(()))));
    assert_eq!(app.delegate().arrived.get(), 1);

    let mut stream = next(&results).expect("a stream");
    let data = pattern(0xD0C, 4 << 20);
    let mut writer = stream.try_clone().unwrap();
    let sent = data.clone();
    let writing = thread::spawn(move || {
        writer.write_all(&sent).unwrap();
        // Half-close: the echo sees EOF and ends its side in turn.
        writer.shutdown(Shutdown::Write).unwrap();
    });
    let echoed = read_to_end(&mut stream).expect("the echo ends with EOF");
    writing.join().unwrap();
    assert_eq!(echoed.len(), data.len());
    assert_eq!(fnv1a64(FNV_OFFSET, &echoed), fnv1a64(FNV_OFFSET, &data));
    assert_eq!(received.load(Ordering::SeqCst), 1);
}

#[test]
fn several_streams_of_one_activity_stay_apart() {
    let (rports, sports) = ports();
    let (delegate, _, received) = taker(OnStream::Echo);
    let _sender = sender(KEY_SEVERAL, sports, true, delegate);
    let (opener, results) = Opener::new(4);
    let app = receiver(KEY_SEVERAL, rports, opener);
    run_until_stopped(&app);

    let workers: Vec<_> = (0..4u64)
        .map(|i| {
            let mut stream = next(&results).expect("a stream");
            thread::spawn(move || {
                let data = pattern(i + 1, 256 * 1024 + i as usize);
                let mut writer = stream.try_clone().unwrap();
                let sent = data.clone();
                let w = thread::spawn(move || {
                    writer.write_all(&sent).unwrap();
                    writer.shutdown(Shutdown::Write).unwrap();
                });
                let echoed = read_to_end(&mut stream).unwrap();
                w.join().unwrap();
                echoed == data
            })
        })
        .collect();
    for w in workers {
        assert!(w.join().unwrap(), "a stream echoed another's bytes");
    }
    assert_eq!(received.load(Ordering::SeqCst), 4);
}

#[test]
fn an_activity_without_stream_support_refuses_at_once_and_drops_the_callback() {
    let (rports, sports) = ports();
    let (delegate, _, received) = taker(OnStream::Give);
    let _sender = sender(KEY_UNSUPPORTED, sports, false, delegate);
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_UNSUPPORTED, rports, opener);
    run_until_stopped(&app);
    let d = app.delegate();
    assert_eq!(d.remote_supports_streams, Some(false));
    let error = d.immediate.clone().expect("asked").unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidState, "{error}");
    assert!(!error.message().is_empty());
    assert_eq!(
        Arc::strong_count(&d.probe),
        1,
        "the refused callback is dropped"
    );
    drop(d);
    app.dispatch().unwrap();
    assert!(results.try_recv().is_err(), "the callback is never called");
    assert_eq!(received.load(Ordering::SeqCst), 0);
}

#[test]
fn an_activity_not_continued_from_another_device_has_no_streams() {
    let activity = Activity::new(TYPE).unwrap();
    activity
        .set_flag(ActivityFlag::SupportsContinuationStreams, true)
        .unwrap();
    let probe = Arc::new(());
    let held = probe.clone();
    let error = activity
        .get_continuation_streams(move |_, _| drop(held))
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidState, "{error}");
    assert_eq!(Arc::strong_count(&probe), 1, "the callback was dropped");
}

#[test]
fn a_sender_whose_delegate_takes_no_streams_refuses_with_4608() {
    let (rports, sports) = ports();
    let _sender = sender(KEY_REFUSED, sports, true, NoStreams);
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_REFUSED, rports, opener);
    run_until_stopped(&app);
    let error = next(&results).unwrap_err();
    assert_eq!(error.code(), ErrorCode::HandoffFailed, "{error}");
    assert_eq!(error.raw_code(), 4608);
    assert!(!error.message().is_empty());
    assert_eq!(
        Arc::strong_count(&app.delegate().probe),
        1,
        "the callback ran and was dropped"
    );
}

#[test]
fn a_panic_in_did_receive_stream_closes_the_stream() {
    record_panics();
    let (rports, sports) = ports();
    let (delegate, _, received) = taker(OnStream::Panic);
    let _sender = sender(KEY_SENDER_PANIC, sports, true, delegate);
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_SENDER_PANIC, rports, opener);
    run_until_stopped(&app);
    let mut stream = next(&results).expect("the stream opened");
    assert_eq!(
        read_to_end(&mut stream).expect("EOF, not a timeout"),
        b"",
        "the sender's end was closed"
    );
    assert_eq!(received.load(Ordering::SeqCst), 1);
    let panics = await_reports(
        "ActivityDelegate::user_activity_did_receive_stream",
        "ignored, the stream closed",
    );
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(
        panics[0].message,
        "user_activity_did_receive_stream exploded"
    );
}

#[test]
fn a_panic_in_the_stream_callback_closes_the_stream() {
    record_panics();
    let (rports, sports) = ports();
    let (delegate, given, _) = taker(OnStream::Give);
    let _sender = sender(KEY_RECEIVER_PANIC, sports, true, delegate);
    let (mut opener, results) = Opener::new(1);
    opener.panic_in_callback = true;
    let app = receiver(KEY_RECEIVER_PANIC, rports, opener);
    run_until_stopped(&app);
    // The callback panicked holding the stream: the sender's end reads EOF.
    let mut other_end = next(&given);
    assert_eq!(
        read_to_end(&mut other_end).expect("EOF, not a timeout"),
        b""
    );
    let panics = await_reports(
        "ActivityRef::get_continuation_streams callback",
        "ignored, the stream closed",
    );
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(panics[0].message, "the stream callback exploded");
    assert!(results.try_recv().is_err());
}

#[test]
fn a_request_from_another_thread_is_reported_and_its_stream_closed() {
    record_panics();
    let (rports, sports) = ports();
    let (delegate, given, _) = taker(OnStream::Give);
    let _sender = sender(KEY_WRONG_THREAD, sports, true, delegate);
    let (mut opener, _results) = Opener::new(1);
    opener.from_another_thread = true;
    let app = receiver(KEY_WRONG_THREAD, rports, opener);
    run_until_stopped(&app);
    assert!(matches!(app.delegate().immediate, Some(Ok(()))));

    // The stream arrives on this (the main) thread, not the asking one.
    let mut other_end = next(&given);
    let reported = || {
        reports(
            "ActivityRef::get_continuation_streams callback",
            "not called, leaked, the stream closed",
        )
        .pop()
    };
    for _ in 0..400 {
        if reported().is_some() {
            break;
        }
        app.run(Some(Duration::from_millis(50))).unwrap();
    }
    let report = reported().expect("the misuse was reported");
    assert!(report.message.contains("another thread"), "{report:?}");
    assert_eq!(
        read_to_end(&mut other_end).expect("EOF, not a timeout"),
        b""
    );
    assert_eq!(
        Arc::strong_count(&app.delegate().probe),
        2,
        "the callback was neither called nor dropped off its thread"
    );
}

#[test]
fn what_a_sender_writes_right_before_its_application_ends_arrives() {
    let (rports, sports) = ports();
    let (mut delegate, _, received) = taker(OnStream::WriteAndStop);
    let (port, peer) = sports;
    // The sender's application ends as soon as its callback returns.
    let _sender = AppThread::start(
        account_key(KEY_WRITE_AND_STOP),
        port,
        peer,
        "Stream sender",
        move |app| {
            delegate.stopper = Some(app.stopper());
            offer(app, TYPE, true, delegate)
        },
    );
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_WRITE_AND_STOP, rports, opener);
    run_until_stopped(&app);
    let mut stream = next(&results).expect("a stream");
    let data = read_to_end(&mut stream).expect("EOF, not a timeout");
    assert_eq!(received.load(Ordering::SeqCst), 1);
    assert_eq!(data.len(), STOP_WRITES, "nothing written was lost");
    assert_eq!(data, pattern(7, STOP_WRITES));
}

#[test]
fn a_stream_whose_sender_stops_before_half_closing_reads_as_a_reset() {
    let (rports, sports) = ports();
    let (delegate, given, _) = taker(OnStream::Give);
    let sender = sender(KEY_CUT, sports, true, delegate);
    let (opener, results) = Opener::new(1);
    let app = receiver(KEY_CUT, rports, opener);
    run_until_stopped(&app);
    let mut stream = next(&results).expect("a stream");
    let mut sender_end = next(&given);
    let data = pattern(9, 64 * 1024);
    sender_end.write_all(&data).unwrap();
    // Not half-closed: the sender's application ends (stopped, joined,
    // dropped) with its host still writing, as far as it knows.
    drop(sender);
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut got = Vec::new();
    let error = stream
        .read_to_end(&mut got)
        .expect_err("a cut stream must not read as a clean EOF");
    assert_eq!(error.kind(), ErrorKind::ConnectionReset, "{error}");
    assert_eq!(
        got.len(),
        data.len(),
        "what was written before the stop arrives"
    );
    assert_eq!(got, data);
    drop(sender_end);
}
