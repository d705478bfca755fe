//! DocEdit sender: a text editor that hands off the document being edited.
//!
//! It opens "Meeting notes" from the document library, puts the cursor in
//! it, and offers what the person is doing as the current activity: the
//! document's identifier and the cursor position travel in userInfo, the
//! document stays in the library. While the activity is offered the person
//! keeps typing; a lazy save (`needs_save`) makes sure the other device gets
//! the cursor where it is when it asks. Run the receiver first:
//!
//!   cargo run --example doc_receiver -- --port 52391 --peer 127.0.0.1:52390
//!   cargo run --example doc_sender   -- --port 52390 --peer 127.0.0.1:52391
//!
//! (`make demo-rust` runs both.) It ends once the activity was continued,
//! or after --timeout seconds.

#[path = "doc_common.rs"]
mod doc_common;

use std::fs;
use std::process::ExitCode;

use doc_common::{document_path, Editor, ACTIVITY_TYPE, CURSOR, DOCUMENT_ID};
use handoff::{
    Activity, ActivityDelegate, ActivityRef, Application, Responder, RunOutcome, Stopper,
};

const DOCUMENT_ID_VALUE: &str = "meeting-notes-7f3a";
const DOCUMENT: &str = "Meeting notes\n\
                        - Launch moves to Friday\n\
                        - Ana drafts the release notes\n\
                        - Next meeting: Tuesday\n";

/// Hears that the other device continued the activity: the job is done.
struct Continued {
    stopper: Stopper,
}

impl ActivityDelegate for Continued {
    fn was_continued(&mut self, activity: &ActivityRef) {
        println!(
            "sender: \"{}\" was continued on the other device",
            activity.title().unwrap_or_default()
        );
        self.stopper.stop();
    }
}

fn main() -> ExitCode {
    let args = doc_common::parse_args("doc_sender");
    match run(&args) {
        Ok(RunOutcome::Stopped) => ExitCode::SUCCESS,
        Ok(RunOutcome::TimedOut) => {
            eprintln!(
                "sender: nobody continued the activity within {:?}",
                args.timeout
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("sender: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &doc_common::Args) -> Result<RunOutcome, Box<dyn std::error::Error>> {
    // The document lives in the library both devices reach.
    fs::create_dir_all(&args.library)?;
    fs::write(document_path(&args.library, DOCUMENT_ID_VALUE), DOCUMENT)?;

    let app = Application::new(&doc_common::manifest()?, ())?;
    doc_common::start_continuity(&app, args, "DocEdit sender")?;

    // The editor view, with the document open and the cursor after "Friday".
    let mut editor = Editor::new(&args.library);
    editor.document_id = Some(DOCUMENT_ID_VALUE.to_owned());
    editor.text = DOCUMENT.to_owned();
    editor.cursor = DOCUMENT
        .find("Friday")
        .map_or(0, |i| DOCUMENT[..i + "Friday".len()].chars().count());
    let editor = Responder::new(&app, editor)?;

    // What the person is doing, as the current activity.
    let activity = Activity::new(ACTIVITY_TYPE)?;
    activity.set_title(Some("Editing “Meeting notes”"))?;
    activity.set_required_user_info_keys(&[DOCUMENT_ID, CURSOR])?;
    activity.set_delegate(Continued {
        stopper: app.stopper(),
    })?;
    editor.set_user_activity(Some(&activity))?;
    activity.set_needs_save(true)?;
    app.become_current(&activity)?;
    println!(
        "sender: editing \"Meeting notes\" at {}; offering it",
        editor.state().describe_cursor()
    );

    // The person keeps typing; the document is saved to the library, and
    // the activity will be saved (lazily) before it is sent.
    editor.state_mut().type_text(" (tentative)")?;
    activity.set_needs_save(true)?;
    println!(
        "sender: typed; the cursor is now at {}",
        editor.state().describe_cursor()
    );

    Ok(app.run(Some(args.timeout))?)
}
