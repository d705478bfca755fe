// SPDX-License-Identifier: MIT OR Apache-2.0
//! In-process handoffs between applications of this test process, each on
//! a thread of its own (its main thread), over loopback sockets: what the
//! loopback and streams suites share.

#![allow(dead_code)] // each suite uses its own part

pub mod streams;

use std::net::UdpSocket;
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use handoff::{Account, Application, ContinuityOptions, Manifest, RunOutcome, Stopper};

pub const TYPE: &str = "com.example.loopback.edit";
/// Bounds every wait, so a broken handoff fails instead of hanging.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// How many PATIENCE spans an [`AppThread`] runs at most before it ends by
/// itself: it must outlive the test's slowest stream (valgrind on a loaded
/// machine), since ending its application cuts the streams it carries.
const APP_THREAD_SPANS: u32 = 30;

pub fn manifest() -> Manifest {
    Manifest::new("com.example.loopback", "LOOPTEAM")
        .unwrap()
        .declaring(TYPE)
        .unwrap()
}

/// Each test its own account (`test` differs per test, across suites
/// too), so concurrent tests never see each other.
pub fn account_key(test: u8) -> [u8; 32] {
    std::array::from_fn(|i| (i as u8).wrapping_mul(7) ^ test ^ 0x5a)
}

/// A UDP port free right now (the kernel's choice).
pub fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A device id of its own: the applications of one test process are
/// different devices (without an id each would be the person's device of
/// the device file, and they would ignore each other).
pub fn new_device_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:08x}{:08x}{:016x}", std::process::id(), n as u32, nanos)
}

pub fn options<'a>(
    account: &'a Account,
    port: u16,
    peer: u16,
    name: &str,
) -> ContinuityOptions<'a> {
    ContinuityOptions::new(account)
        .device_id(new_device_id())
        .device_name(name)
        .beacon_port(port)
        .multicast(false)
        .peer(format!("127.0.0.1:{peer}"))
        .channel_address("127.0.0.1:0")
}

/// Runs `app` until something stops it; fails after PATIENCE.
pub fn run_until_stopped<D: handoff::ApplicationDelegate>(app: &Application<D>) {
    assert_eq!(
        app.run(Some(PATIENCE)).unwrap(),
        RunOutcome::Stopped,
        "nothing happened within {PATIENCE:?}"
    );
}

/// An application (no delegate) running on a thread of its own, with
/// continuity started on `key`; `setup` runs first on that thread, and
/// what it returns (an activity, responders) lives until the run ends.
/// Stopped and joined on drop, whatever the test did.
pub struct AppThread {
    pub stopper: Stopper,
    thread: Option<JoinHandle<()>>,
}

impl AppThread {
    /// With this suite's [`manifest`].
    pub fn start<T>(
        key: [u8; 32],
        port: u16,
        peer: u16,
        name: &'static str,
        setup: impl FnOnce(&Application) -> T + Send + 'static,
    ) -> AppThread {
        AppThread::start_with(manifest(), key, port, peer, name, setup)
    }

    pub fn start_with<T>(
        manifest: Manifest,
        key: [u8; 32],
        port: u16,
        peer: u16,
        name: &'static str,
        setup: impl FnOnce(&Application) -> T + Send + 'static,
    ) -> AppThread {
        let (stopper_tx, stopper_rx) = mpsc::channel();
        let thread = thread::spawn(move || {
            let app = Application::new(&manifest, ()).unwrap();
            stopper_tx.send(app.stopper()).unwrap();
            let account = Account::from_key(&key).unwrap();
            app.start_continuity(&options(&account, port, peer, name))
                .unwrap();
            let kept = setup(&app);
            for _ in 0..APP_THREAD_SPANS {
                if app.run(Some(PATIENCE)).unwrap() == RunOutcome::Stopped {
                    break;
                }
            }
            drop(kept);
        });
        let stopper = stopper_rx
            .recv_timeout(PATIENCE)
            .expect("the application thread starts");
        AppThread {
            stopper,
            thread: Some(thread),
        }
    }
}

impl Drop for AppThread {
    fn drop(&mut self) {
        self.stopper.stop();
        if let Some(t) = self.thread.take() {
            let outcome = t.join();
            if !thread::panicking() {
                outcome.expect("the application thread failed");
            }
        }
    }
}
