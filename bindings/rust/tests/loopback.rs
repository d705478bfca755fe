// SPDX-License-Identifier: MIT OR Apache-2.0
//! Real handoffs between two applications of this process, each on its
//! own thread (its main thread), over loopback sockets: encrypted beacons
//! to unicast peers, the TLS channel, the fetch. Exercises the safe API's
//! delegates, responders and restoration handler end to end; the
//! two-process test does the same against the C peer.

mod apps;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::thread;

use apps::{
    account_key, free_port, manifest, options, run_until_stopped, AppThread, PATIENCE, TYPE,
};

use handoff::{
    Account, Activity, ActivityDelegate, ActivityRef, Application, ApplicationDelegate,
    ApplicationRef, CallbackPanic, Error, ErrorCode, RemoteActivity, Responder, RestorationHandler,
    Stopper, UserActivityResponder, UserInfo, Value,
};

// ---------------------------------------------------------------- sender

#[derive(Debug, PartialEq)]
enum SenderEvent {
    Offering(String),
    WasContinued(String),
    /// user_activity_did_fail_to_hand_off: the raw code and the message.
    FailedHere(i32, String),
}

/// The sender's responder: writes the document state when saved.
struct Editor {
    info: UserInfo,
}

impl UserActivityResponder for Editor {
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        activity.add_user_info_entries(&self.info).unwrap();
    }
}

/// Hears the continuation (on the sender's main thread) and reports it.
struct Announcer {
    events: Sender<SenderEvent>,
    stopper: Stopper,
}

impl ActivityDelegate for Announcer {
    fn user_activity_was_continued(&mut self, activity: &ActivityRef) {
        let _ = self
            .events
            .send(SenderEvent::WasContinued(activity.id().to_owned()));
        self.stopper.stop();
    }

    fn user_activity_did_fail_to_hand_off(&mut self, _: &ActivityRef, error: &Error) {
        let _ = self.events.send(SenderEvent::FailedHere(
            error.raw_code(),
            error.message().to_owned(),
        ));
    }
}

/// A sender application on a thread of its own, offering one activity
/// whose saves write `info`; stopped and joined on drop.
struct SenderThread {
    _app: AppThread,
    events: Receiver<SenderEvent>,
}

impl SenderThread {
    fn start(
        key: [u8; 32],
        port: u16,
        peer: u16,
        title: &'static str,
        info: UserInfo,
    ) -> SenderThread {
        let (events_tx, events) = mpsc::channel();
        let app = AppThread::start(key, port, peer, "Loopback sender", move |app| {
            let editor = Responder::new(app, Editor { info }).unwrap();
            let activity = Activity::new(TYPE).unwrap();
            activity.set_title(Some(title)).unwrap();
            activity
                .set_delegate(Announcer {
                    events: events_tx.clone(),
                    stopper: app.stopper(),
                })
                .unwrap();
            editor.set_user_activity(Some(&activity)).unwrap();
            activity.set_needs_save(true).unwrap();
            app.become_current(&activity).unwrap();
            events_tx
                .send(SenderEvent::Offering(activity.id().to_owned()))
                .unwrap();
            (editor, activity)
        });
        SenderThread { _app: app, events }
    }

    fn next_event(&self) -> SenderEvent {
        self.events.recv_timeout(PATIENCE).expect("a sender event")
    }
}

// -------------------------------------------------------------- receiver

/// The receiver's view: what restoring put in it.
#[derive(Default)]
struct DocumentView {
    restored: Option<UserInfo>,
    activity_id: Option<String>,
}

impl UserActivityResponder for DocumentView {
    fn restore_user_activity_state(&mut self, activity: &ActivityRef) {
        self.restored = Some(activity.user_info().unwrap());
        self.activity_id = Some(activity.id().to_owned());
    }
}

#[derive(Default)]
struct Receiving {
    log: Vec<String>,
    view: Option<Rc<Responder<DocumentView>>>,
    keep_handler: bool,
    kept: Option<RestorationHandler>,
    failure: Option<Error>,
    panic_in: Option<&'static str>,
}

impl ApplicationDelegate for Receiving {
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        let info = remote.info();
        assert!(!info.web_only);
        self.log.push(format!(
            "available {} {}",
            info.title.as_deref().unwrap_or(""),
            info.device_name
        ));
        app.continue_activity(remote.id()).unwrap();
    }

    fn will_continue_user_activity(&mut self, _: &ApplicationRef, activity_type: &str) -> bool {
        self.log
            .push(format!("will_continue_user_activity {activity_type}"));
        if self.panic_in == Some("will_continue_user_activity") {
            panic!("will_continue_user_activity exploded");
        }
        true
    }

    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        self.log
            .push(format!("continue {}", activity.title().unwrap_or_default()));
        app.stop().unwrap();
        if self.panic_in == Some("continue_user_activity") {
            panic!("continue exploded");
        }
        if self.keep_handler {
            self.kept = Some(handler);
        } else {
            let view = self.view.as_ref().expect("the view is set").clone();
            handler.restore(&[&*view]).unwrap();
        }
        true
    }

    fn did_fail_to_continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity_type: &str,
        error: Error,
    ) {
        self.log
            .push(format!("failed {activity_type} {}", error.raw_code()));
        self.failure = Some(error);
        app.stop().unwrap();
    }
}

/// A receiver application on this thread, continuing the first activity
/// offered; returns once it continued or failed (or after PATIENCE).
fn receive(key: [u8; 32], port: u16, peer: u16, delegate: Receiving) -> Application<Receiving> {
    let app = Application::new(&manifest(), delegate).unwrap();
    let view = Rc::new(Responder::new(&app, DocumentView::default()).unwrap());
    app.delegate_mut().view = Some(view);
    let account = Account::from_key(&key).unwrap();
    app.start_continuity(&options(&account, port, peer, "Loopback receiver"))
        .unwrap();
    app
}

fn doc_info(cursor: i64) -> UserInfo {
    let mut info = UserInfo::new();
    info.insert("documentID".into(), Value::from("D-7"));
    info.insert("cursor".into(), Value::from(cursor));
    info
}

static PANICS: Mutex<Vec<CallbackPanic>> = Mutex::new(Vec::new());

fn panics_on_this_thread() -> Vec<CallbackPanic> {
    PANICS
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.thread == thread::current().id())
        .cloned()
        .collect()
}

// ------------------------------------------------------------------ tests

#[test]
fn a_handoff_between_two_applications_restores_the_state() {
    let (key, rport, sport) = (account_key(1), free_port(), free_port());
    let app = receive(key, rport, sport, Receiving::default());
    let sender = SenderThread::start(key, sport, rport, "Chapter 3", doc_info(42));
    let SenderEvent::Offering(id) = sender.next_event() else {
        panic!("no offer")
    };

    run_until_stopped(&app);
    let delegate = app.delegate();
    assert_eq!(
        delegate.log,
        [
            "available Chapter 3 Loopback sender",
            &format!("will_continue_user_activity {TYPE}"),
            "continue Chapter 3"
        ]
    );
    let view = delegate.view.as_ref().unwrap().state();
    assert_eq!(view.restored.as_ref(), Some(&doc_info(42)));
    assert_eq!(
        view.activity_id.as_deref(),
        Some(id.as_str()),
        "the sender's activity id travels"
    );
    assert_eq!(sender.next_event(), SenderEvent::WasContinued(id));
}

#[test]
fn a_kept_restoration_handler_restores_later_outside_dispatch() {
    let (key, rport, sport) = (account_key(2), free_port(), free_port());
    let app = receive(
        key,
        rport,
        sport,
        Receiving {
            keep_handler: true,
            ..Receiving::default()
        },
    );
    let sender = SenderThread::start(key, sport, rport, "Kept", doc_info(7));
    run_until_stopped(&app);
    let (handler, view) = {
        let mut d = app.delegate_mut();
        (
            d.kept.take().expect("the handler was kept"),
            d.view.clone().unwrap(),
        )
    };
    assert!(
        view.state().restored.is_none(),
        "nothing restored before the handler is used"
    );
    handler.restore(&[&*view]).unwrap();
    assert_eq!(view.state().restored.as_ref(), Some(&doc_info(7)));
    assert!(matches!(sender.next_event(), SenderEvent::Offering(_)));
    assert!(matches!(sender.next_event(), SenderEvent::WasContinued(_)));
}

#[test]
fn a_panic_in_will_continue_is_reported_and_the_handoff_goes_on() {
    handoff::set_callback_panic_hook(|p| PANICS.lock().unwrap().push(p.clone()));
    let (key, rport, sport) = (account_key(3), free_port(), free_port());
    let app = receive(
        key,
        rport,
        sport,
        Receiving {
            panic_in: Some("will_continue_user_activity"),
            ..Receiving::default()
        },
    );
    let _sender = SenderThread::start(key, sport, rport, "Panicky", doc_info(1));
    run_until_stopped(&app);
    let panics = panics_on_this_thread();
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(
        panics[0].callback,
        "ApplicationDelegate::will_continue_user_activity"
    );
    assert_eq!(panics[0].outcome, "returned false");
    let d = app.delegate();
    assert_eq!(d.log.last().map(String::as_str), Some("continue Panicky"));
    assert_eq!(
        d.view.as_ref().unwrap().state().restored.as_ref(),
        Some(&doc_info(1))
    );
}

#[test]
fn a_panic_in_continue_releases_the_handler_and_is_reported() {
    handoff::set_callback_panic_hook(|p| PANICS.lock().unwrap().push(p.clone()));
    let (key, rport, sport) = (account_key(4), free_port(), free_port());
    let app = receive(
        key,
        rport,
        sport,
        Receiving {
            panic_in: Some("continue_user_activity"),
            ..Receiving::default()
        },
    );
    let _sender = SenderThread::start(key, sport, rport, "Dropped", doc_info(1));
    run_until_stopped(&app);
    let panics = panics_on_this_thread();
    assert_eq!(panics.len(), 1, "{panics:?}");
    assert_eq!(
        panics[0].callback,
        "ApplicationDelegate::continue_user_activity"
    );
    assert_eq!(panics[0].message, "continue exploded");
    assert!(app
        .delegate()
        .view
        .as_ref()
        .unwrap()
        .state()
        .restored
        .is_none());
    // The application still works: the queue is drained.
    app.dispatch().unwrap();
}

#[test]
fn a_user_info_over_budget_fails_with_apples_code() {
    let (key, rport, sport) = (account_key(5), free_port(), free_port());
    let app = receive(key, rport, sport, Receiving::default());
    let mut big = doc_info(0);
    big.insert(
        "blob".into(),
        Value::Data(vec![1; handoff::USER_INFO_BUDGET + 100]),
    );
    let sender = SenderThread::start(key, sport, rport, "Too big", big);
    run_until_stopped(&app);
    let d = app.delegate();
    let failure = d
        .failure
        .as_ref()
        .expect("did_fail_to_continue_user_activity was called");
    assert_eq!(failure.code(), ErrorCode::UserInfoTooLarge, "{failure}");
    assert!(failure.is_user_activity_error());
    assert!(!failure.message().is_empty());
    assert_eq!(
        d.log.last().map(String::as_str),
        Some(format!("failed {TYPE} 4611").as_str())
    );
    // The sender heard it too, where the activity was made.
    assert!(matches!(sender.next_event(), SenderEvent::Offering(_)));
    match sender.next_event() {
        SenderEvent::FailedHere(4611, message) => assert!(message.contains("3072"), "{message}"),
        other => panic!("the sender heard {other:?}, not 4611"),
    }
}

/// The sender's main thread does not dispatch while the fetch waits: the
/// receiver gets 4610 after the fetch timeout, and the sender's delegate
/// hears 4610 once its main thread dispatches again.
#[test]
fn a_sender_that_answers_too_late_hears_4610() {
    let (key, rport, sport) = (account_key(7), free_port(), free_port());
    let app = receive(key, rport, sport, Receiving::default());
    let (events_tx, events) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let sender = thread::spawn(move || {
        let app = Application::new(&manifest(), ()).unwrap();
        let account = Account::from_key(&key).unwrap();
        let slow = options(&account, sport, rport, "Slow sender")
            .fetch_timeout(std::time::Duration::from_millis(1000));
        app.start_continuity(&slow).unwrap();
        let activity = Activity::new(TYPE).unwrap();
        activity
            .set_delegate(Announcer {
                events: events_tx,
                stopper: app.stopper(),
            })
            .unwrap();
        app.become_current(&activity).unwrap();
        // A hung main thread: no dispatch until the test says so.
        go_rx.recv_timeout(PATIENCE).unwrap();
        for _ in 0..200 {
            app.dispatch().unwrap();
            thread::sleep(std::time::Duration::from_millis(10));
        }
        drop(activity);
    });
    run_until_stopped(&app);
    let failure = app.delegate().failure.clone().expect("the receiver failed");
    assert_eq!(
        failure.code(),
        ErrorCode::RemoteApplicationTimedOut,
        "{failure}"
    );
    assert!(
        events.try_recv().is_err(),
        "nothing is told before the sender dispatches"
    );
    go_tx.send(()).unwrap();
    match events.recv_timeout(PATIENCE) {
        Ok(SenderEvent::FailedHere(4610, message)) => {
            assert!(message.contains("4610"), "{message}")
        }
        other => panic!("the sender heard {other:?}, not 4610"),
    }
    sender.join().unwrap();
}

#[test]
fn remote_activity_details_reach_the_delegate() {
    struct Watching {
        seen: Rc<RefCell<Option<handoff::RemoteActivityInfo>>>,
    }
    impl ApplicationDelegate for Watching {
        fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
            *self.seen.borrow_mut() = Some(remote.info());
            app.stop().unwrap();
        }
    }
    let (key, rport, sport) = (account_key(6), free_port(), free_port());
    let seen = Rc::new(RefCell::new(None));
    let app = Application::new(&manifest(), Watching { seen: seen.clone() }).unwrap();
    let account = Account::from_key(&key).unwrap();
    app.start_continuity(&options(&account, rport, sport, "Watcher"))
        .unwrap();
    let sender = SenderThread::start(key, sport, rport, "Visible", doc_info(3));
    let SenderEvent::Offering(id) = sender.next_event() else {
        panic!("no offer")
    };
    run_until_stopped(&app);
    let info = seen
        .borrow()
        .clone()
        .expect("activity_available was called");
    assert_eq!(info.id, id);
    assert_eq!(info.activity_type, TYPE);
    assert_eq!(info.title.as_deref(), Some("Visible"));
    assert_eq!(info.device_name, "Loopback sender");
    assert_eq!(info.device_id.len(), 32);
    assert_eq!(info.webpage_url, None);
    assert!(!info.web_only);
    assert!(!info.supports_continuation_streams);
}
