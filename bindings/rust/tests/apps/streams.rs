// SPDX-License-Identifier: MIT OR Apache-2.0
//! Continuation-stream parts the stream suites share: a sender delegate
//! that takes streams, a receiver delegate that asks for them, and the
//! bytes they carry.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;

use handoff::{
    Activity, ActivityDelegate, ActivityFlag, ActivityRef, Application, ApplicationDelegate,
    ApplicationRef, Error, RemoteActivity, RestorationHandler, Result, Stopper,
};

use super::PATIENCE;

pub fn fnv1a64(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// `n` bytes of a sequence seeded by `seed` (xorshift64), so each stream
/// carries something of its own.
pub fn pattern(seed: u64, n: usize) -> Vec<u8> {
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
pub enum OnStream {
    /// Echo every byte back until EOF, then half-close (on a thread).
    Echo,
    /// Hand the stream to the test.
    Give,
    /// Panic (the stream must be closed by the binding).
    Panic,
    /// Write `STOP_WRITES` bytes, half-close and stop the application at
    /// once, still inside the callback: what was written must arrive.
    WriteAndStop,
}

/// What `OnStream::WriteAndStop` writes: fits the socket buffers, so the
/// write never blocks the main thread.
pub const STOP_WRITES: usize = 200 * 1024;

pub struct StreamTaker {
    pub mode: OnStream,
    /// Stops the sender's application (`OnStream::WriteAndStop`).
    pub stopper: Option<Stopper>,
    pub given: Sender<UnixStream>,
    pub received: Arc<AtomicUsize>,
}

impl ActivityDelegate for StreamTaker {
    const ACCEPTS_CONTINUATION_STREAMS: bool = true;

    fn user_activity_did_receive_stream(&mut self, activity: &ActivityRef, stream: UnixStream) {
        let _ = activity;
        self.received.fetch_add(1, Ordering::SeqCst);
        match self.mode {
            OnStream::Echo => {
                thread::spawn(move || echo(stream));
            }
            OnStream::Give => {
                let _ = self.given.send(stream);
            }
            OnStream::Panic => panic!("user_activity_did_receive_stream exploded"),
            OnStream::WriteAndStop => {
                let mut stream = stream;
                stream.write_all(&pattern(7, STOP_WRITES)).unwrap();
                stream.shutdown(Shutdown::Write).unwrap();
                drop(stream);
                self.stopper.as_ref().expect("a stopper").stop();
            }
        }
    }
}

/// Takes no streams: ACCEPTS_CONTINUATION_STREAMS stays false.
pub struct NoStreams;

impl ActivityDelegate for NoStreams {}

pub fn echo(mut stream: UnixStream) {
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

pub fn taker(mode: OnStream) -> (StreamTaker, Receiver<UnixStream>, Arc<AtomicUsize>) {
    let (given, streams) = mpsc::channel();
    let received = Arc::new(AtomicUsize::new(0));
    let taker = StreamTaker {
        mode,
        stopper: None,
        given,
        received: received.clone(),
    };
    (taker, streams, received)
}

/// Makes `app` offer an activity of `activity_type` (streams supported
/// when `supports`) with `delegate`; keep what it returns.
pub fn offer<D: ActivityDelegate>(
    app: &Application,
    activity_type: &str,
    supports: bool,
    delegate: D,
) -> Activity {
    let activity = Activity::new(activity_type).unwrap();
    activity
        .set_flag(ActivityFlag::SupportsContinuationStreams, supports)
        .unwrap();
    activity.set_delegate(delegate).unwrap();
    app.become_current(&activity).unwrap();
    activity
}

// -------------------------------------------------------------- receiver

/// Continues the first activity offered and asks for `streams` streams on
/// it; each result goes to `results`, and the run stops once all arrived.
pub struct Opener {
    pub streams: usize,
    pub results: Sender<Result<UnixStream>>,
    pub stopper: Option<Stopper>,
    pub panic_in_callback: bool,
    /// What the first request returned at once.
    pub immediate: Option<Result<()>>,
    /// A probe moved into the first callback: its count tells whether
    /// the callback was dropped.
    pub probe: Arc<()>,
    pub remote_supports_streams: Option<bool>,
    /// Callbacks run so far: an `Rc`, so the callbacks are not `Send`
    /// (they need not be: they run on this thread).
    pub arrived: Rc<Cell<usize>>,
    /// Ask from a thread of its own (wrongly) and stop the run at once.
    pub from_another_thread: bool,
}

impl Opener {
    pub fn new(streams: usize) -> (Opener, Receiver<Result<UnixStream>>) {
        let (results, rx) = mpsc::channel();
        let opener = Opener {
            streams,
            results,
            stopper: None,
            panic_in_callback: false,
            immediate: None,
            probe: Arc::new(()),
            remote_supports_streams: None,
            arrived: Rc::new(Cell::new(0)),
            from_another_thread: false,
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
        if self.from_another_thread {
            let (activity, probe) = (activity.to_owned(), self.probe.clone());
            let outcome =
                thread::spawn(move || activity.get_continuation_streams(move |_, _| drop(probe)))
                    .join()
                    .unwrap();
            self.immediate = Some(outcome);
            app.stop().unwrap();
            return true;
        }
        let remaining = Arc::new(AtomicUsize::new(self.streams));
        for i in 0..self.streams {
            let results = self.results.clone();
            let stopper = self.stopper.clone().expect("the stopper is set");
            let remaining = remaining.clone();
            let panics = self.panic_in_callback;
            let probe = self.probe.clone();
            let arrived = self.arrived.clone();
            let outcome = activity.get_continuation_streams(move |activity, stream| {
                let _probe = probe;
                arrived.set(arrived.get() + 1);
                assert!(activity.flag(ActivityFlag::SupportsContinuationStreams));
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

    fn did_fail_to_continue_user_activity(&mut self, _: &ApplicationRef, _: &str, error: Error) {
        panic!("the handoff failed: {error}");
    }
}

pub fn next<T>(rx: &Receiver<T>) -> T {
    rx.recv_timeout(PATIENCE).expect("within PATIENCE")
}

/// Reads until EOF (bounded by PATIENCE).
pub fn read_to_end(stream: &mut UnixStream) -> io::Result<Vec<u8>> {
    stream.set_read_timeout(Some(PATIENCE))?;
    let mut all = Vec::new();
    stream.read_to_end(&mut all)?;
    Ok(all)
}
