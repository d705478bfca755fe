//! Continuation streams between two applications of this process over
//! loopback: the receiver asks for a stream on the activity it continued,
//! the sender's delegate gets the other end, and bytes cross the TLS
//! channel both ways. Also the refusals, and panics that must close the
//! stream they held. (The two-process suite does the same against the C
//! streamer.)

mod apps;

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use apps::{
    account_key, free_port, manifest, options, run_until_stopped, AppThread, PATIENCE, TYPE,
};
use handoff::{
    Account, Activity, ActivityDelegate, ActivityFlag, ActivityRef, Application,
    ApplicationDelegate, ApplicationRef, CallbackPanic, Error, ErrorCode, RemoteActivity,
    RestorationHandler, Result, Stopper,
};

// Keys distinct from the loopback suite's (1..=6).
const KEY_ECHO: u8 = 21;
const KEY_UNSUPPORTED: u8 = 22;
const KEY_REFUSED: u8 = 23;
const KEY_SENDER_PANIC: u8 = 24;
const KEY_RECEIVER_PANIC: u8 = 25;
const KEY_SEVERAL: u8 = 26;

fn fnv1a64(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// `n` bytes of a sequence seeded by `seed` (xorshift64), so each stream
/// carries something of its own.
fn pattern(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

// ---------------------------------------------------------------- sender

/// What the sender's stream delegate does with each stream.
#[derive(Clone, Copy)]
enum OnStream {
    /// Echo every byte back until EOF, then half-close (on a thread).
    Echo,
    /// Hand the stream to the test.
    Give,
    /// Panic (the stream must be closed by the binding).
    Panic,
}

struct StreamTaker {
    mode: OnStream,
    given: Sender<UnixStream>,
    received: Arc<AtomicUsize>,
}

impl ActivityDelegate for StreamTaker {
    const ACCEPTS_CONTINUATION_STREAMS: bool = true;

    fn did_receive_stream(&mut self, activity: &ActivityRef, stream: UnixStream) {
        assert_eq!(activity.activity_type(), TYPE);
        self.received.fetch_add(1, Ordering::SeqCst);
        match self.mode {
            OnStream::Echo => {
                thread::spawn(move || echo(stream));
            }
            OnStream::Give => {
                let _ = self.given.send(stream);
            }
            OnStream::Panic => panic!("did_receive_stream exploded"),
        }
    }
}

/// Takes no streams: ACCEPTS_CONTINUATION_STREAMS stays false.
struct NoStreams;

impl ActivityDelegate for NoStreams {}

fn echo(mut stream: UnixStream) {
    let mut buffer = [0u8; 65536];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if stream.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
        }
    }
    let _ = stream.shutdown(Shutdown::Write);
}

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
        let activity = Activity::new(TYPE).unwrap();
        activity.set_title(Some("Big document")).unwrap();
        activity
            .set_flag(ActivityFlag::SupportsContinuationStreams, supports)
            .unwrap();
        activity.set_delegate(delegate).unwrap();
        app.become_current(&activity).unwrap();
        activity
    })
}

fn taker(mode: OnStream) -> (StreamTaker, Receiver<UnixStream>, Arc<AtomicUsize>) {
    let (given, streams) = mpsc::channel();
    let received = Arc::new(AtomicUsize::new(0));
    let taker = StreamTaker {
        mode,
        given,
        received: received.clone(),
    };
    (taker, streams, received)
}

// -------------------------------------------------------------- receiver

/// Continues the first activity offered and asks for `streams` streams on
/// it; each result goes to `results`, and the run stops once all arrived.
struct Opener {
    streams: usize,
    results: Sender<Result<UnixStream>>,
    stopper: Option<Stopper>,
    panic_in_callback: bool,
    /// What the first request returned at once.
    immediate: Option<Result<()>>,
    /// A probe moved into the first callback: its count tells whether
    /// the callback was dropped.
    probe: Arc<()>,
    remote_supports_streams: Option<bool>,
}

impl Opener {
    fn new(streams: usize) -> (Opener, Receiver<Result<UnixStream>>) {
        let (results, rx) = mpsc::channel();
        let opener = Opener {
            streams,
            results,
            stopper: None,
            panic_in_callback: false,
            immediate: None,
            probe: Arc::new(()),
            remote_supports_streams: None,
        };
        (opener, rx)
    }
}

impl ApplicationDelegate for Opener {
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        self.remote_supports_streams = Some(remote.supports_continuation_streams());
        app.continue_activity(remote.id()).unwrap();
    }

    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        drop(handler);
        let remaining = Arc::new(AtomicUsize::new(self.streams));
        for i in 0..self.streams {
            let results = self.results.clone();
            let stopper = self.stopper.clone().expect("the stopper is set");
            let remaining = remaining.clone();
            let panics = self.panic_in_callback;
            let probe = self.probe.clone();
            let outcome = activity.get_continuation_streams(move |activity, stream| {
                let _probe = probe;
                assert_eq!(activity.activity_type(), TYPE);
                if remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
                    stopper.stop();
                }
                if panics {
                    let _held = stream;
                    panic!("the stream callback exploded");
                }
                let _ = results.send(stream);
            });
            if i == 0 {
                self.immediate = Some(outcome.clone());
            }
            if outcome.is_err() {
                app.stop().unwrap();
                break;
            }
        }
        true
    }

    fn did_fail_to_continue(&mut self, _: &ApplicationRef, _: &str, error: Error) {
        panic!("the handoff failed: {error}");
    }
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

fn next<T>(rx: &Receiver<T>) -> T {
    rx.recv_timeout(PATIENCE).expect("within PATIENCE")
}

/// Reads until EOF (bounded by PATIENCE).
fn read_to_end(stream: &mut UnixStream) -> io::Result<Vec<u8>> {
    stream.set_read_timeout(Some(PATIENCE))?;
    let mut all = Vec::new();
    stream.read_to_end(&mut all)?;
    Ok(all)
}

static PANICS: Mutex<Vec<CallbackPanic>> = Mutex::new(Vec::new());

fn record_panics() {
    handoff::set_callback_panic_hook(|p| PANICS.lock().unwrap().push(p.clone()));
}

fn panics_in(callback: &str) -> Vec<CallbackPanic> {
    PANICS
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.callback == callback)
        .cloned()
        .collect()
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
    let panics = panics_in("ActivityDelegate::did_receive_stream");
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(panics[0].message, "did_receive_stream exploded");
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
    let panics = panics_in("ActivityRef::get_continuation_streams callback");
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(panics[0].outcome, "ignored, the stream closed");
    assert!(results.try_recv().is_err());
}
