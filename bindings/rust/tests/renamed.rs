// SPDX-License-Identifier: MIT OR Apache-2.0
//! The delegate methods' 0.1.0 names (deprecated in 0.2.0, Apple's names
//! replace them: docs/MIGRATION.md) still receive the callbacks: an app
//! written against 0.1.0 that implements only the old names hears every
//! callback, through the library's dispatch and over a real handoff on
//! loopback; an app implementing both names hears only the new one.

// This suite implements and calls the old names on purpose.
#![allow(deprecated)]

mod apps;

use std::os::unix::net::UnixStream;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use apps::{
    account_key, free_port, manifest, options, run_until_stopped, AppThread, PATIENCE, TYPE,
};

use handoff::{
    Account, Activity, ActivityDelegate, ActivityRef, Application, ApplicationDelegate,
    ApplicationRef, Error, ErrorCode, RemoteActivity, Responder, RestorationHandler,
    UserActivityResponder, UserInfo, Value,
};

type Log = Arc<Mutex<Vec<String>>>;

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// An application delegate of 0.1.0: only the old names (and
/// `continue_user_activity`, which kept its name).
struct OldApp(Log);

impl ApplicationDelegate for OldApp {
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        app.continue_activity(remote.id()).unwrap();
    }

    fn will_continue(&mut self, _: &ApplicationRef, activity_type: &str) -> bool {
        self.0
            .lock()
            .unwrap()
            .push(format!("will_continue {activity_type}"));
        true
    }

    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        _: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        self.0.lock().unwrap().push("continue_user_activity".into());
        drop(handler);
        app.stop().unwrap();
        true
    }

    fn did_fail_to_continue(&mut self, app: &ApplicationRef, activity_type: &str, error: Error) {
        self.0.lock().unwrap().push(format!(
            "did_fail_to_continue {activity_type} {}",
            error.raw_code()
        ));
        app.stop().unwrap();
    }

    fn did_update(&mut self, _: &ApplicationRef, activity: &ActivityRef) {
        self.0.lock().unwrap().push(format!(
            "did_update {}",
            activity.title().unwrap_or_default()
        ));
    }
}

/// An activity delegate of 0.1.0: only the old names.
struct OldActivity(Log);

impl ActivityDelegate for OldActivity {
    const ACCEPTS_CONTINUATION_STREAMS: bool = true;

    fn will_save(&mut self, activity: &ActivityRef) {
        self.0.lock().unwrap().push(format!(
            "will_save {}",
            activity.title().unwrap_or_default()
        ));
    }

    fn was_continued(&mut self, _: &ActivityRef) {
        self.0.lock().unwrap().push("was_continued".into());
    }

    fn did_fail_to_hand_off(&mut self, _: &ActivityRef, error: &Error) {
        self.0
            .lock()
            .unwrap()
            .push(format!("did_fail_to_hand_off {}", error.raw_code()));
    }

    fn did_receive_stream(&mut self, _: &ActivityRef, stream: UnixStream) {
        drop(stream);
        self.0.lock().unwrap().push("did_receive_stream".into());
    }
}

/// Implements both names of each renamed method: the new one wins.
struct BothNames(Log);

impl BothNames {
    fn note(&self, what: &str) {
        self.0.lock().unwrap().push(what.into());
    }
}

impl ApplicationDelegate for BothNames {
    fn will_continue(&mut self, _: &ApplicationRef, _: &str) -> bool {
        self.note("old will_continue");
        false
    }
    fn will_continue_user_activity(&mut self, _: &ApplicationRef, _: &str) -> bool {
        self.note("will_continue_user_activity");
        true
    }
    fn did_fail_to_continue(&mut self, _: &ApplicationRef, _: &str, _: Error) {
        self.note("old did_fail_to_continue");
    }
    fn did_fail_to_continue_user_activity(&mut self, _: &ApplicationRef, _: &str, _: Error) {
        self.note("did_fail_to_continue_user_activity");
    }
    fn did_update(&mut self, _: &ApplicationRef, _: &ActivityRef) {
        self.note("old did_update");
    }
    fn did_update_user_activity(&mut self, _: &ApplicationRef, _: &ActivityRef) {
        self.note("did_update_user_activity");
    }
}

impl ActivityDelegate for BothNames {
    fn will_save(&mut self, _: &ActivityRef) {
        self.note("old will_save");
    }
    fn user_activity_will_save(&mut self, _: &ActivityRef) {
        self.note("user_activity_will_save");
    }
    fn was_continued(&mut self, _: &ActivityRef) {
        self.note("old was_continued");
    }
    fn user_activity_was_continued(&mut self, _: &ActivityRef) {
        self.note("user_activity_was_continued");
    }
    fn did_fail_to_hand_off(&mut self, _: &ActivityRef, _: &Error) {
        self.note("old did_fail_to_hand_off");
    }
    fn user_activity_did_fail_to_hand_off(&mut self, _: &ActivityRef, _: &Error) {
        self.note("user_activity_did_fail_to_hand_off");
    }
    fn did_receive_stream(&mut self, _: &ActivityRef, _: UnixStream) {
        self.note("old did_receive_stream");
    }
    fn user_activity_did_receive_stream(&mut self, _: &ActivityRef, _: UnixStream) {
        self.note("user_activity_did_receive_stream");
    }
}

/// Writes `info` into the activity it holds when saved.
struct Editor(UserInfo);

impl UserActivityResponder for Editor {
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        activity.add_user_info_entries(&self.0).unwrap();
    }
}

fn failure() -> Error {
    Error::new(ErrorCode::UserInfoTooLarge, "too large")
}

/// What each renamed method's trampoline calls is the new name; an
/// implementation of the old name alone gets each call.
#[test]
fn the_new_names_reach_old_implementations() {
    let log = Log::default();
    let app = Application::new(&manifest(), OldApp(log.clone())).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    activity.set_title(Some("doc")).unwrap();
    let mut old_app = OldApp(log.clone());
    let mut old_activity = OldActivity(log.clone());

    assert!(old_app.will_continue_user_activity(&app, TYPE));
    old_app.did_fail_to_continue_user_activity(&app, TYPE, failure());
    old_app.did_update_user_activity(&app, &activity);
    old_activity.user_activity_will_save(&activity);
    old_activity.user_activity_was_continued(&activity);
    old_activity.user_activity_did_fail_to_hand_off(&activity, &failure());
    let (stream, _other_end) = UnixStream::pair().unwrap();
    old_activity.user_activity_did_receive_stream(&activity, stream);

    assert_eq!(
        entries(&log),
        [
            format!("will_continue {TYPE}"),
            format!("did_fail_to_continue {TYPE} 4611"),
            "did_update doc".into(),
            "will_save doc".into(),
            "was_continued".into(),
            "did_fail_to_hand_off 4611".into(),
            "did_receive_stream".into(),
        ]
    );
}

#[test]
fn an_implemented_new_name_wins_over_the_old_one() {
    let log = Log::default();
    let app = Application::new(&manifest(), ()).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    let mut both = BothNames(log.clone());

    assert!(ApplicationDelegate::will_continue_user_activity(
        &mut both, &app, TYPE
    ));
    both.did_fail_to_continue_user_activity(&app, TYPE, failure());
    both.did_update_user_activity(&app, &activity);
    both.user_activity_will_save(&activity);
    both.user_activity_was_continued(&activity);
    both.user_activity_did_fail_to_hand_off(&activity, &failure());
    let (stream, _other_end) = UnixStream::pair().unwrap();
    both.user_activity_did_receive_stream(&activity, stream);

    assert_eq!(
        entries(&log),
        [
            "will_continue_user_activity",
            "did_fail_to_continue_user_activity",
            "did_update_user_activity",
            "user_activity_will_save",
            "user_activity_was_continued",
            "user_activity_did_fail_to_hand_off",
            "user_activity_did_receive_stream",
        ]
    );
}

/// The library's own dispatch: a save of an activity a responder holds
/// calls the activity delegate's will_save and the application's
/// did_update, both implemented under their old names only.
#[test]
fn a_save_reaches_the_old_names_through_dispatch() {
    let log = Log::default();
    let app = Application::new(&manifest(), OldApp(log.clone())).unwrap();
    let editor = Responder::new(&app, Editor(UserInfo::new())).unwrap();
    let activity = Activity::new(TYPE).unwrap();
    activity.set_title(Some("doc")).unwrap();
    activity.set_delegate(OldActivity(log.clone())).unwrap();
    editor.set_user_activity(Some(&activity)).unwrap();
    activity.set_needs_save(true).unwrap();
    assert!(entries(&log).is_empty(), "nothing runs before dispatch");
    app.dispatch().unwrap();
    assert_eq!(entries(&log), ["will_save doc", "did_update doc"]);
}

/// A sender on a thread of its own whose activity delegate has only the
/// old names; what it hears arrives on the returned channel.
fn old_sender(
    key: [u8; 32],
    port: u16,
    peer: u16,
    info: UserInfo,
) -> (AppThread, Receiver<String>) {
    let (tx, rx): (Sender<String>, _) = mpsc::channel();
    let app = AppThread::start(key, port, peer, "Old sender", move |app| {
        let editor = Responder::new(app, Editor(info)).unwrap();
        let activity = Activity::new(TYPE).unwrap();
        activity.set_title(Some("Old names")).unwrap();
        activity.set_delegate(Forwarding(tx)).unwrap();
        editor.set_user_activity(Some(&activity)).unwrap();
        activity.set_needs_save(true).unwrap();
        app.become_current(&activity).unwrap();
        (editor, activity)
    });
    (app, rx)
}

/// The sender's old names, each sending what it heard to the test's thread.
struct Forwarding(Sender<String>);

impl ActivityDelegate for Forwarding {
    fn was_continued(&mut self, _: &ActivityRef) {
        let _ = self.0.send("was_continued".into());
    }

    fn did_fail_to_hand_off(&mut self, _: &ActivityRef, error: &Error) {
        let _ = self
            .0
            .send(format!("did_fail_to_hand_off {}", error.raw_code()));
    }
}

fn receive(key: [u8; 32], port: u16, peer: u16, log: Log) -> Application<OldApp> {
    let app = Application::new(&manifest(), OldApp(log)).unwrap();
    let account = Account::from_key(&key).unwrap();
    app.start_continuity(&options(&account, port, peer, "Old receiver"))
        .unwrap();
    app
}

#[test]
fn a_handoff_reaches_the_old_names_on_both_sides() {
    let (key, rport, sport) = (account_key(41), free_port(), free_port());
    let log = Log::default();
    let app = receive(key, rport, sport, log.clone());
    let (_sender, heard) = old_sender(key, sport, rport, UserInfo::new());
    run_until_stopped(&app);
    assert_eq!(
        entries(&log),
        [
            format!("will_continue {TYPE}"),
            "continue_user_activity".into()
        ]
    );
    assert_eq!(heard.recv_timeout(PATIENCE).unwrap(), "was_continued");
}

#[test]
fn a_failed_handoff_reaches_the_old_names_on_both_sides() {
    let (key, rport, sport) = (account_key(42), free_port(), free_port());
    let log = Log::default();
    let app = receive(key, rport, sport, log.clone());
    let mut big = UserInfo::new();
    big.insert(
        "blob".into(),
        Value::Data(vec![1; handoff::USER_INFO_BUDGET + 100]),
    );
    let (_sender, heard) = old_sender(key, sport, rport, big);
    run_until_stopped(&app);
    assert_eq!(
        entries(&log),
        [
            format!("will_continue {TYPE}"),
            format!("did_fail_to_continue {TYPE} 4611")
        ]
    );
    assert_eq!(
        heard.recv_timeout(PATIENCE).unwrap(),
        "did_fail_to_hand_off 4611"
    );
}
