// SPDX-License-Identifier: MIT OR Apache-2.0
//! DocEdit receiver: waits for another device of the account to offer a
//! document being edited, continues it, and restores its editor: it opens
//! the document named in the userInfo from its own document library and
//! puts the cursor where the sender had it. A document missing from the
//! library is first fetched from the sender over a continuation stream
//! and saved there. See doc_sender.rs for how to run the pair
//! (`make demo-rust` runs both).
//!
//! Exit status 0 once the document is open at the sender's cursor; 1 when
//! continuing failed, the document could not be opened or fetched, or
//! nothing was offered within --timeout seconds.

#[path = "doc_common.rs"]
mod doc_common;

use std::cell::RefCell;
use std::fs;
use std::io::Read;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use doc_common::{document_path, Editor, ACTIVITY_TYPE, DOCUMENT_ID, MAX_DOCUMENT_BYTES};
use handoff::{
    ActivityRef, Application, ApplicationDelegate, ApplicationRef, Error, RemoteActivity,
    Responder, RestorationHandler, RunOutcome, Stopper, Value,
};

/// How the handoff ended: `Ok` with what the editor shows, or why not.
type Outcome = Rc<RefCell<Option<Result<String, String>>>>;

/// The receiving app's delegate: it shares the editor view, so it can hand
/// it to the restoration handler now or once the document has arrived.
struct Receiver {
    editor: Option<Rc<Responder<Editor>>>,
    outcome: Outcome,
    stopper: Option<Stopper>,
}

impl ApplicationDelegate for Receiver {
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        if remote.activity_type() != ACTIVITY_TYPE || self.outcome.borrow().is_some() {
            return;
        }
        println!(
            "receiver: \"{}\" is offered by {}; continuing it",
            remote.title().unwrap_or("(untitled)"),
            remote.device_name()
        );
        if let Err(e) = app.continue_activity(remote.id()) {
            self.finish(app, Err(format!("cannot continue: {e}")));
        }
    }

    fn will_continue_user_activity(&mut self, _: &ApplicationRef, activity_type: &str) -> bool {
        println!("receiver: fetching {activity_type}");
        true
    }

    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        let editor = self
            .editor
            .clone()
            .expect("the editor is set up before continuity starts");
        let library = editor.state().library.clone();
        let missing = match activity.user_info() {
            Ok(info) => match info.get(DOCUMENT_ID).and_then(Value::as_str) {
                Some(id) if !document_path(&library, id).exists() => Some(id.to_owned()),
                _ => None,
            },
            Err(_) => None, // restoring reports it
        };
        let Some(id) = missing else {
            // The library has it: restore now.
            let outcome = restore(handler, &editor);
            let handled = outcome.is_ok();
            self.finish(app, outcome);
            return handled;
        };

        // Not synced here yet: fetch it from the sender first. The callback
        // runs on this (the main) thread, so it may keep the handler and
        // the editor, and restore once the document is in the library.
        println!("receiver: {id} is not in this device's library; fetching it over a continuation stream");
        let (outcome, stopper) = (self.outcome.clone(), self.stopper.clone());
        let requested = activity.get_continuation_streams(move |_, stream| {
            let fetched = stream
                .map_err(|e| format!("no continuation stream: {e}"))
                .and_then(|stream| fetch_document(stream, &document_path(&library, &id)));
            let result = fetched.and_then(|bytes| {
                println!("receiver: fetched {bytes} bytes over a continuation stream");
                restore(handler, &editor)
            });
            *outcome.borrow_mut() = Some(result);
            if let Some(stopper) = stopper {
                stopper.stop();
            }
        });
        match requested {
            Ok(()) => true,
            Err(e) => {
                self.finish(app, Err(format!("cannot ask for the document: {e}")));
                false
            }
        }
    }

    fn did_fail_to_continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity_type: &str,
        error: Error,
    ) {
        self.finish(
            app,
            Err(format!("could not continue {activity_type}: {error}")),
        );
    }
}

impl Receiver {
    fn finish(&mut self, app: &ApplicationRef, outcome: Result<String, String>) {
        *self.outcome.borrow_mut() = Some(outcome);
        let _ = app.stop();
    }
}

/// Hands the activity to the editor and says what it shows.
fn restore(handler: RestorationHandler, editor: &Responder<Editor>) -> Result<String, String> {
    handler
        .restore(&[editor])
        .map_err(|e| format!("cannot restore: {e}"))?;
    let view = editor.state();
    match &view.restore_error {
        None => Ok(format!(
            "opened \"{}\" from the library at {}",
            view.document_id.as_deref().unwrap_or(""),
            view.describe_cursor()
        )),
        Some(why) => Err(why.clone()),
    }
}

/// Reads the document the sender writes (until it half-closes) into
/// `path`; the number of bytes. A short demo document is read here on the
/// main thread; an app expecting large ones reads on a thread of its own.
fn fetch_document(stream: UnixStream, path: &Path) -> Result<usize, String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let mut text = Vec::new();
    stream
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("the document did not arrive whole: {e}"))?;
    if text.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(format!("the document is over {MAX_DOCUMENT_BYTES} bytes"));
    }
    let text = String::from_utf8(text).map_err(|_| "the document is not UTF-8 text".to_owned())?;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    fs::write(path, &text).map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    Ok(text.len())
}

fn main() -> ExitCode {
    let args = doc_common::parse_args("doc_receiver");
    match run(&args) {
        Ok(Ok(done)) => {
            println!("receiver: {done}");
            ExitCode::SUCCESS
        }
        Ok(Err(why)) => {
            eprintln!("receiver: {why}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("receiver: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &doc_common::Args) -> handoff::Result<Result<String, String>> {
    let outcome = Outcome::default();
    let app = Application::new(
        &doc_common::manifest()?,
        Receiver {
            editor: None,
            outcome: outcome.clone(),
            stopper: None,
        },
    )?;
    let editor = Rc::new(Responder::new(&app, Editor::new(&args.library))?);
    app.delegate_mut().editor = Some(editor);
    app.delegate_mut().stopper = Some(app.stopper());
    doc_common::start_continuity(&app, args, "DocEdit receiver")?;
    println!("receiver: waiting for a document to continue");

    let ran = app.run(Some(args.timeout))?;
    let result = outcome.borrow_mut().take();
    Ok(match (ran, result) {
        (_, Some(result)) => result,
        (RunOutcome::TimedOut, None) => {
            Err(format!("nothing was offered within {:?}", args.timeout))
        }
        (RunOutcome::Stopped, None) => Err("stopped before any handoff".to_owned()),
    })
}
