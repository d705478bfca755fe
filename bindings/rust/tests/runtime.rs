// SPDX-License-Identifier: MIT OR Apache-2.0
//! The runtime's rules through the safe API, in one process: callbacks
//! run only inside dispatch on the main thread, saves are lazy and
//! coalesced, responders update in order, the main loop's descriptor and
//! timeout, run and stop, panics in callbacks, and responders dropped
//! inside their own callbacks.

use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_short, c_ulong};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use handoff::{
    Activity, ActivityDelegate, ActivityRef, Application, ApplicationDelegate, ApplicationRef,
    CallbackPanic, ContinuityMode, ContinuityOptions, ErrorCode, Manifest, Responder, RunOutcome,
    UserActivityResponder, UserInfo, Value,
};

const TYPE: &str = "com.example.runtime.edit";

fn manifest() -> Manifest {
    Manifest::new("com.example.runtime", "RUNTIMETEAM")
        .unwrap()
        .declaring(TYPE)
        .unwrap()
}

// ------------------------------------------------------------ poll(2)

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}

extern "C" {
    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
}

/// Whether the descriptor is readable now (poll with no wait).
fn readable(fd: BorrowedFd<'_>) -> bool {
    let mut p = PollFd {
        fd: fd.as_raw_fd(),
        events: 1, /* POLLIN */
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let n = unsafe { poll(&mut p, 1, 0) };
    assert!(n >= 0, "poll failed");
    n == 1 && p.revents & 1 != 0
}

// --------------------------------------------------------- responders

/// Records what is asked of it in a shared log, as `update:NAME` etc.
struct Recorder {
    name: &'static str,
    log: Rc<RefCell<Vec<String>>>,
}

impl UserActivityResponder for Recorder {
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        self.log.borrow_mut().push(format!("update:{}", self.name));
        let mut entry = UserInfo::new();
        entry.insert(
            self.name.to_owned(),
            Value::from(self.log.borrow().len() as i64),
        );
        activity.add_user_info_entries(&entry).unwrap();
    }

    fn restore_user_activity_state(&mut self, _: &ActivityRef) {
        self.log.borrow_mut().push(format!("restore:{}", self.name));
    }
}

/// An activity delegate logging into a thread-safe log.
struct SaveLog(Arc<Mutex<Vec<String>>>);

impl ActivityDelegate for SaveLog {
    fn user_activity_will_save(&mut self, activity: &ActivityRef) {
        self.0.lock().unwrap().push(format!(
            "user_activity_will_save:{}",
            activity.title().unwrap_or_default()
        ));
    }
}

#[test]
fn callbacks_run_only_inside_dispatch() {
    let app = Application::new(&manifest(), ()).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    let editor = Responder::new(
        &app,
        Recorder {
            name: "editor",
            log: log.clone(),
        },
    )
    .unwrap();
    let saves = Arc::new(Mutex::new(Vec::new()));
    let activity = Activity::new(TYPE).unwrap();
    activity.set_title(Some("doc")).unwrap();
    activity.set_delegate(SaveLog(saves.clone())).unwrap();
    editor.set_user_activity(Some(&activity)).unwrap();
    assert_eq!(editor.user_activity().as_deref(), Some(&*activity));

    assert!(!readable(app.fd()));
    activity.set_needs_save(true).unwrap();
    app.become_current(&activity).unwrap();
    assert!(
        readable(app.as_fd()),
        "a save is queued: the descriptor is readable"
    );
    assert_eq!(app.next_timeout(), Some(Duration::ZERO));
    assert!(log.borrow().is_empty(), "nothing runs before dispatch");

    app.dispatch().unwrap();
    assert_eq!(*log.borrow(), ["update:editor"]);
    assert_eq!(
        *saves.lock().unwrap(),
        ["user_activity_will_save:doc"],
        "the delegate hears it after the responders"
    );
    assert!(activity.user_info().unwrap().contains_key("editor"));
    assert!(!readable(app.fd()), "nothing queued after dispatch");
    assert_eq!(app.next_timeout(), None);
}

#[test]
fn saves_coalesce_and_responders_update_in_creation_order() {
    let app = Application::new(&manifest(), ()).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    let first = Responder::new(
        &app,
        Recorder {
            name: "first",
            log: log.clone(),
        },
    )
    .unwrap();
    let second = Responder::new(
        &app,
        Recorder {
            name: "second",
            log: log.clone(),
        },
    )
    .unwrap();
    let elsewhere = Responder::new(
        &app,
        Recorder {
            name: "elsewhere",
            log: log.clone(),
        },
    )
    .unwrap();
    let activity = Activity::new(TYPE).unwrap();
    let other = Activity::new(TYPE).unwrap();
    second.set_user_activity(Some(&activity)).unwrap();
    first.set_user_activity(Some(&activity)).unwrap();
    elsewhere.set_user_activity(Some(&other)).unwrap();
    app.become_current(&activity).unwrap();
    for _ in 0..3 {
        activity.set_needs_save(true).unwrap();
    }
    app.dispatch().unwrap();
    assert_eq!(*log.borrow(), ["update:first", "update:second"]);
    assert_eq!(first.state().name, "first");
}

#[test]
fn the_lent_activity_is_the_hosts_own() {
    struct Same {
        expected: *mut handoff::sys::handoff_activity,
        seen: Rc<Cell<bool>>,
    }
    impl UserActivityResponder for Same {
        fn update_user_activity_state(&mut self, activity: &ActivityRef) {
            self.seen.set(activity.as_ptr() == self.expected);
        }
    }
    let app = Application::new(&manifest(), ()).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    let seen = Rc::new(Cell::new(false));
    let r = Responder::new(
        &app,
        Same {
            expected: activity.as_ptr(),
            seen: seen.clone(),
        },
    )
    .unwrap();
    r.set_user_activity(Some(&activity)).unwrap();
    activity.set_needs_save(true).unwrap();
    app.become_current(&activity).unwrap();
    app.dispatch().unwrap();
    assert!(seen.get());
}

#[test]
fn the_current_activity_follows_become_and_resign() {
    let app = Application::new(&manifest(), ()).unwrap();
    assert!(app.current_activity().is_none());
    let activity = Activity::new(TYPE).unwrap();
    app.become_current(&activity).unwrap();
    assert_eq!(app.current_activity(), Some(activity.clone()));
    app.resign_current(&activity).unwrap();
    assert!(app.current_activity().is_none());
    activity.invalidate().unwrap();
    assert_eq!(
        app.become_current(&activity).unwrap_err().code(),
        ErrorCode::InvalidState
    );
}

#[test]
fn continuing_needs_a_known_well_formed_id() {
    let app = Application::new(&manifest(), ()).unwrap();
    assert_eq!(
        app.continue_activity("not-an-id").unwrap_err().code(),
        ErrorCode::InvalidValue
    );
    let unknown = app
        .continue_activity("00000000-0000-0000-0000-000000000000")
        .unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::NotFound, "{unknown}");
    assert!(
        unknown
            .message()
            .contains("00000000-0000-0000-0000-000000000000"),
        "{unknown}"
    );
}

#[test]
fn continuity_starts_once_and_refuses_malformed_options() {
    let app = Application::new(&manifest(), ()).unwrap();
    let account = handoff::Account::new().unwrap();
    let bad = ContinuityOptions::new(&account)
        .multicast(false)
        .peer("not an address");
    assert_eq!(
        app.start_continuity(&bad).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    let bad_id = ContinuityOptions::new(&account)
        .multicast(false)
        .device_id("xyz");
    // handoff.h says INVALID_ARGUMENT for a malformed device id; the
    // library answers INVALID_VALUE (reported). Either is a refusal.
    let e = app.start_continuity(&bad_id).unwrap_err();
    assert!(
        matches!(
            e.code(),
            ErrorCode::InvalidArgument | ErrorCode::InvalidValue
        ),
        "{e}"
    );
    // Port 0 would be the default (52370): ask for a free one by hand.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert_eq!(
        app.continuity_mode().unwrap_err().code(),
        ErrorCode::InvalidState
    );
    // The agent owns the device: a device-level option in agent mode is refused.
    let agent_with_port = ContinuityOptions::new(&account)
        .beacon_port(port)
        .mode(ContinuityMode::Agent);
    let e = app.start_continuity(&agent_with_port).unwrap_err();
    assert!(
        e.code() == ErrorCode::InvalidArgument && e.message().contains("beacon_port"),
        "{e}"
    );
    let good = ContinuityOptions::new(&account)
        .multicast(false)
        .beacon_port(port)
        .channel_address("127.0.0.1:0")
        .device_id("0123456789abcdef0123456789abcdef")
        .device_name("runtime test")
        .mode(ContinuityMode::Embedded);
    app.start_continuity(&good).unwrap();
    assert_eq!(app.continuity_mode().unwrap(), ContinuityMode::Embedded);
    assert_eq!(
        app.start_continuity(&good).unwrap_err().code(),
        ErrorCode::InvalidState
    );
}

// -------------------------------------------------------- run and stop

#[test]
fn run_times_out_or_stops() {
    let app = Application::new(&manifest(), ()).unwrap();
    assert_eq!(
        app.run(Some(Duration::from_millis(20))).unwrap(),
        RunOutcome::TimedOut
    );
    app.stop().unwrap();
    assert_eq!(
        app.run(None).unwrap(),
        RunOutcome::Stopped,
        "a stop asked before run ends it at once"
    );
}

#[test]
fn a_stopper_ends_run_from_another_thread_and_outlives_the_app() {
    let app = Application::new(&manifest(), ()).unwrap();
    let stopper = app.stopper();
    let (ready, wait) = std::sync::mpsc::channel();
    let worker = {
        let stopper = stopper.clone();
        thread::spawn(move || {
            wait.recv().unwrap();
            stopper.stop()
        })
    };
    ready.send(()).unwrap();
    // A bound so that a broken stop fails the test instead of hanging it.
    assert_eq!(
        app.run(Some(Duration::from_secs(60))).unwrap(),
        RunOutcome::Stopped
    );
    assert!(worker.join().unwrap());
    drop(app);
    assert!(
        !stopper.stop(),
        "stopping a dropped application does nothing"
    );
}

#[test]
fn dispatch_off_the_main_thread_is_refused_by_the_library() {
    // The safe API cannot even express it (Application is not Send); the
    // raw layer shows what the library does.
    struct Raw(*mut handoff::sys::handoff_application);
    // SAFETY: only used to call dispatch, which the library refuses off
    // the main thread without touching the application.
    unsafe impl Send for Raw {}
    let app = Application::new(&manifest(), ()).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    activity.set_needs_save(true).unwrap();
    app.become_current(&activity).unwrap();
    let raw = Raw(app.as_ptr());
    let status = thread::spawn(move || {
        let raw = raw;
        // SAFETY: a live application (joined before it is dropped).
        unsafe { handoff::sys::handoff_application_dispatch(raw.0) }
    })
    .join()
    .unwrap();
    assert_eq!(status, handoff::sys::HANDOFF_E_WRONG_THREAD as c_int);
    assert!(readable(app.fd()), "nothing ran: the save still waits");
    app.dispatch().unwrap();
    assert!(!readable(app.fd()));
}

// ----------------------------------------------------------- panics

/// Every callback panic reported in this process. Tests run on threads
/// of their own and callbacks on the thread of their application, so a
/// test reads the ones of its thread.
static PANICS: Mutex<Vec<CallbackPanic>> = Mutex::new(Vec::new());

fn install_panic_hook() {
    handoff::set_callback_panic_hook(|p| PANICS.lock().unwrap().push(p.clone()));
}

fn panics_on_this_thread() -> Vec<CallbackPanic> {
    PANICS
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.thread == thread::current().id())
        .cloned()
        .collect()
}

struct Exploding {
    updates: Rc<Cell<usize>>,
}

impl UserActivityResponder for Exploding {
    fn update_user_activity_state(&mut self, _: &ActivityRef) {
        self.updates.set(self.updates.get() + 1);
        if self.updates.get() == 1 {
            panic!("responder exploded");
        }
    }
}

#[test]
fn a_panicking_responder_is_caught_reported_and_called_again_later() {
    install_panic_hook();
    let app = Application::new(&manifest(), ()).unwrap();
    let updates = Rc::new(Cell::new(0));
    let r = Responder::new(
        &app,
        Exploding {
            updates: updates.clone(),
        },
    )
    .unwrap();
    let activity = Activity::new(TYPE).unwrap();
    r.set_user_activity(Some(&activity)).unwrap();
    app.become_current(&activity).unwrap();
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    let reported = panics_on_this_thread();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(
        reported[0].callback,
        "UserActivityResponder::update_user_activity_state"
    );
    assert_eq!(reported[0].message, "responder exploded");
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    assert_eq!(updates.get(), 2, "the responder works after its panic");
}

struct ExplodingDelegate {
    saves: Arc<Mutex<usize>>,
}

impl ActivityDelegate for ExplodingDelegate {
    fn user_activity_will_save(&mut self, _: &ActivityRef) {
        let mut saves = self.saves.lock().unwrap();
        *saves += 1;
        if *saves == 1 {
            drop(saves);
            panic!("delegate exploded");
        }
    }
}

#[test]
fn a_panicking_activity_delegate_is_caught_and_keeps_working() {
    install_panic_hook();
    let app = Application::new(&manifest(), ()).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    let saves = Arc::new(Mutex::new(0));
    activity
        .set_delegate(ExplodingDelegate {
            saves: saves.clone(),
        })
        .unwrap();
    app.become_current(&activity).unwrap();
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    assert_eq!(*saves.lock().unwrap(), 2);
    let reported = panics_on_this_thread();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(
        reported[0].callback,
        "ActivityDelegate::user_activity_will_save"
    );
}

#[test]
fn a_state_borrowed_across_dispatch_is_reported_not_a_crash() {
    install_panic_hook();
    let app = Application::new(&manifest(), ()).unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    let r = Responder::new(
        &app,
        Recorder {
            name: "held",
            log: log.clone(),
        },
    )
    .unwrap();
    let activity = Activity::new(TYPE).unwrap();
    r.set_user_activity(Some(&activity)).unwrap();
    app.become_current(&activity).unwrap();
    activity.set_needs_save(true).unwrap();
    {
        let _held = r.state_mut();
        app.dispatch().unwrap();
    }
    assert!(log.borrow().is_empty());
    let reported = panics_on_this_thread();
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert!(reported[0].message.contains("borrowed"), "{reported:?}");
}

// ------------------------------------- a responder dropped inside itself

type Slot = Rc<RefCell<Option<Responder<SelfDropping>>>>;

struct SelfDropping {
    slot: Slot,
    calls: Rc<Cell<usize>>,
    dropped: Rc<Cell<bool>>,
}

impl UserActivityResponder for SelfDropping {
    fn update_user_activity_state(&mut self, _: &ActivityRef) {
        self.calls.set(self.calls.get() + 1);
        // Drops the responder that is calling us.
        let me = self.slot.borrow_mut().take();
        drop(me);
    }
}

impl Drop for SelfDropping {
    fn drop(&mut self) {
        self.dropped.set(true);
    }
}

#[test]
fn a_responder_dropped_inside_its_own_callback_is_released_after_dispatch() {
    let app = Application::new(&manifest(), ()).unwrap();
    let slot: Slot = Rc::new(RefCell::new(None));
    let calls = Rc::new(Cell::new(0));
    let dropped = Rc::new(Cell::new(false));
    let state = SelfDropping {
        slot: slot.clone(),
        calls: calls.clone(),
        dropped: dropped.clone(),
    };
    let activity = Activity::new(TYPE).unwrap();
    let responder = Responder::new(&app, state).unwrap();
    responder.set_user_activity(Some(&activity)).unwrap();
    *slot.borrow_mut() = Some(responder);
    app.become_current(&activity).unwrap();
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    assert_eq!(calls.get(), 1);
    assert!(dropped.get(), "the state goes once the library let go");
    activity.set_needs_save(true).unwrap();
    app.dispatch().unwrap();
    assert_eq!(calls.get(), 1, "never called again");
}

// ------------------------------------------------- application delegate

#[derive(Default)]
struct Borrowing {
    calls: usize,
}

impl ApplicationDelegate for Borrowing {
    fn did_update_user_activity(&mut self, _: &ApplicationRef, _: &ActivityRef) {
        self.calls += 1;
    }
}

#[test]
fn the_delegate_is_reachable_between_dispatches() {
    let app = Application::new(&manifest(), Borrowing::default()).unwrap();
    app.delegate_mut().calls = 5;
    assert_eq!(app.delegate().calls, 5);
    // Dropping the application drops the delegate; a Rust-owned responder
    // may outlive it.
    let r = Responder::new(
        &app,
        Recorder {
            name: "late",
            log: Rc::default(),
        },
    )
    .unwrap();
    drop(app);
    drop(r);
}

#[test]
fn deleting_saved_activities_without_an_agent_says_so_on_the_main_thread() {
    // The history is the agent's (docs/history.md): without continuity
    // through one, done hears ConnectionUnavailable, once, in dispatch.
    let app = Application::new(&manifest(), ()).unwrap();
    let heard: Rc<RefCell<Vec<(&str, Option<ErrorCode>)>>> = Rc::default();
    let h = heard.clone();
    app.delete_saved_activities(&["doc-1"], move |r| {
        h.borrow_mut().push(("ids", r.err().map(|e| e.code())))
    })
    .unwrap();
    let h = heard.clone();
    app.delete_all_saved_activities(move |r| {
        h.borrow_mut().push(("all", r.err().map(|e| e.code())))
    })
    .unwrap();
    let h = heard.clone();
    app.delete_saved_activities::<&str, _>(&[], move |r| {
        h.borrow_mut().push(("none", r.err().map(|e| e.code())))
    })
    .unwrap();
    assert!(heard.borrow().is_empty());
    app.dispatch().unwrap();
    assert_eq!(
        *heard.borrow(),
        vec![
            ("ids", Some(ErrorCode::ConnectionUnavailable)),
            ("all", Some(ErrorCode::ConnectionUnavailable)),
            ("none", None)
        ]
    );
    let long = "x".repeat(4097);
    let h = heard.clone();
    let refused = app.delete_saved_activities(&[long.as_str()], move |_| {
        h.borrow_mut().push(("bad", None))
    });
    assert_eq!(refused.unwrap_err().code(), ErrorCode::InvalidArgument);
    app.dispatch().unwrap();
    assert_eq!(heard.borrow().len(), 3);
}
