// SPDX-License-Identifier: MIT OR Apache-2.0
//! DocEdit sender: a text editor that hands off the document being edited.
//!
//! It opens "Meeting notes" from the document library, puts the cursor in
//! it, and offers what the person is doing as the current activity: the
//! document's identifier and the cursor position travel in userInfo, the
//! document stays in the library. While the activity is offered the person
//! keeps typing; a lazy save (`needs_save`) makes sure the other device gets
//! the cursor where it is when it asks. A receiver whose library lacks the
//! document fetches it over a continuation stream, which the sender serves
//! from its library. Run the receiver first:
//!
//!   cargo run --example doc_receiver -- --port 52391 --peer 127.0.0.1:52390
//!   cargo run --example doc_sender   -- --port 52390 --peer 127.0.0.1:52391
//!
//! (`make demo-rust` runs both.) It ends once the activity was continued
//! (after serving the document, if asked for it), or after --timeout
//! seconds.

#[path = "doc_common.rs"]
mod doc_common;

use std::fs;
use std::io::Write;
use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use doc_common::{document_path, Editor, ACTIVITY_TYPE, CURSOR, DOCUMENT_ID};
use handoff::{
    Activity, ActivityDelegate, ActivityFlag, ActivityRef, Application, Responder, RunOutcome,
    Stopper,
};

const DOCUMENT_ID_VALUE: &str = "meeting-notes-7f3a";
const DOCUMENT: &str = "Meeting notes\n\
                        - Launch moves to Friday\n\
                        - Ana drafts the release notes\n\
                        - Next meeting: Tuesday\n";

/// How long the sender stays after the handoff for a request for the
/// document (which travels on a connection of its own, so it may arrive
/// just after the news that the activity was continued).
const LINGER: Duration = Duration::from_secs(2);

/// Hears that the other device continued the activity, and serves the
/// document to a receiver that asks for it: then the job is done.
struct Continued {
    stopper: Stopper,
    /// The document being edited, in this device's library.
    document: PathBuf,
    serving: Arc<AtomicBool>,
}

impl ActivityDelegate for Continued {
    const ACCEPTS_CONTINUATION_STREAMS: bool = true;

    fn user_activity_was_continued(&mut self, activity: &ActivityRef) {
        println!(
            "sender: \"{}\" was continued on the other device",
            activity.title().unwrap_or_default()
        );
        let (stopper, serving) = (self.stopper.clone(), self.serving.clone());
        thread::spawn(move || {
            thread::sleep(LINGER);
            if !serving.load(Ordering::SeqCst) {
                stopper.stop();
            }
        });
    }

    /// The receiver asks for the document: write it on a thread of its
    /// own (the main thread must not block), half-close, and end. (The
    /// library still sends what was written when the app ends right
    /// after.)
    fn user_activity_did_receive_stream(&mut self, _: &ActivityRef, stream: UnixStream) {
        self.serving.store(true, Ordering::SeqCst);
        let (document, stopper) = (self.document.clone(), self.stopper.clone());
        thread::spawn(move || {
            match serve(stream, &document) {
                Ok(n) => {
                    println!("sender: sent the document ({n} bytes) over a continuation stream")
                }
                Err(e) => eprintln!("sender: could not send the document: {e}"),
            }
            stopper.stop();
        });
    }
}

fn serve(mut stream: UnixStream, document: &Path) -> std::io::Result<usize> {
    let text = fs::read(document)?;
    stream.write_all(&text)?;
    stream.shutdown(Shutdown::Write)?;
    Ok(text.len())
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
    activity.set_flag(ActivityFlag::SupportsContinuationStreams, true)?;
    activity.set_delegate(Continued {
        stopper: app.stopper(),
        document: document_path(&args.library, DOCUMENT_ID_VALUE),
        serving: Arc::new(AtomicBool::new(false)),
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
