//! DocEdit receiver: waits for another device of the account to offer a
//! document being edited, continues it, and restores its editor: it opens
//! the document named in the userInfo from its own document library and
//! puts the cursor where the sender had it. See doc_sender.rs for how to
//! run the pair (`make demo-rust` runs both).
//!
//! Exit status 0 once the document is open at the sender's cursor; 1 when
//! continuing failed, the document could not be opened, or nothing was
//! offered within --timeout seconds.

#[path = "doc_common.rs"]
mod doc_common;

use std::process::ExitCode;

use doc_common::{Editor, ACTIVITY_TYPE};
use handoff::{
    ActivityRef, Application, ApplicationDelegate, ApplicationRef, Error, RemoteActivity,
    Responder, RestorationHandler, RunOutcome,
};

/// The receiving app's delegate: it owns the editor view, so it can hand
/// it to the restoration handler.
struct Receiver {
    editor: Option<Responder<Editor>>,
    /// `Some` once the handoff ended: whether the editor was restored.
    outcome: Option<Result<String, String>>,
}

impl ApplicationDelegate for Receiver {
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        if remote.activity_type() != ACTIVITY_TYPE || self.outcome.is_some() {
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

    fn will_continue(&mut self, _: &ApplicationRef, activity_type: &str) -> bool {
        println!("receiver: fetching {activity_type}");
        true
    }

    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        _: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        let editor = self
            .editor
            .as_ref()
            .expect("the editor is set up before continuity starts");
        // Hand the activity to the responders that restore it.
        if let Err(e) = handler.restore(&[editor]) {
            self.finish(app, Err(format!("cannot restore: {e}")));
            return false;
        }
        let outcome = {
            let view = editor.state();
            match &view.restore_error {
                None => Ok(format!(
                    "opened \"{}\" from the library at {}",
                    view.document_id.as_deref().unwrap_or(""),
                    view.describe_cursor()
                )),
                Some(why) => Err(why.clone()),
            }
        };
        let handled = outcome.is_ok();
        self.finish(app, outcome);
        handled
    }

    fn did_fail_to_continue(&mut self, app: &ApplicationRef, activity_type: &str, error: Error) {
        self.finish(
            app,
            Err(format!("could not continue {activity_type}: {error}")),
        );
    }
}

impl Receiver {
    fn finish(&mut self, app: &ApplicationRef, outcome: Result<String, String>) {
        self.outcome = Some(outcome);
        let _ = app.stop();
    }
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
    let app = Application::new(
        &doc_common::manifest()?,
        Receiver {
            editor: None,
            outcome: None,
        },
    )?;
    let editor = Responder::new(&app, Editor::new(&args.library))?;
    app.delegate_mut().editor = Some(editor);
    doc_common::start_continuity(&app, args, "DocEdit receiver")?;
    println!("receiver: waiting for a document to continue");

    let outcome = app.run(Some(args.timeout))?;
    let result = app.delegate_mut().outcome.take();
    Ok(match (outcome, result) {
        (_, Some(result)) => result,
        (RunOutcome::TimedOut, None) => {
            Err(format!("nothing was offered within {:?}", args.timeout))
        }
        (RunOutcome::Stopped, None) => Err("stopped before any handoff".to_owned()),
    })
}
