// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the DocEdit sender and receiver share: who the app is, how it
//! reaches the other device, and its editor view (a responder).
//!
//! The document itself never travels in the activity: Apple advises
//! keeping userInfo small and passing references to what both devices can
//! reach. Here a *document library* folder stands in for the person's
//! synced documents; the userInfo carries only the document's identifier
//! and the cursor position, and the receiver opens the document from its
//! own library. When the document is not there (not synced yet), the
//! receiver fetches it from the sender over a continuation stream, the
//! channel Apple offers for data beyond userInfo's budget.

#![allow(dead_code)] // each example uses part of it

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use handoff::{
    Account, ActivityRef, ApplicationRef, ContinuityOptions, Manifest, UserActivityResponder,
    UserInfo, Value,
};

pub const BUNDLE: &str = "com.example.docedit";
pub const TEAM: &str = "DOCEDITDEMO";
pub const ACTIVITY_TYPE: &str = "com.example.docedit.edit-document";

/// userInfo keys: all the activity needs to be restored.
pub const DOCUMENT_ID: &str = "documentID";
pub const CURSOR: &str = "cursor";

/// DEMO ONLY: the published key of examples/c/mapoff.c, so anyone running
/// the demo shares this "account" and nothing needs setting up. A real app
/// loads the person's account: `Account::load(None)`.
const DEMO_ACCOUNT_KEY: [u8; 32] = *b"libhandoff demo account key v1\x00\x01";

pub fn manifest() -> handoff::Result<Manifest> {
    Manifest::new(BUNDLE, TEAM)?.declaring(ACTIVITY_TYPE)
}

/// Command-line options of both programs.
pub struct Args {
    pub port: u16,
    pub peers: Vec<String>,
    pub multicast: bool,
    pub timeout: Duration,
    pub library: PathBuf,
}

pub fn parse_args(program: &str) -> Args {
    let usage = || -> ! {
        eprintln!(
            "usage: {program} [--port UDP-PORT] [--peer HOST:PORT]... [--multicast] [--timeout SECONDS] [--library DIR]"
        );
        std::process::exit(2)
    };
    let mut args = Args {
        port: 0,
        peers: Vec::new(),
        multicast: false,
        timeout: Duration::from_secs(20),
        library: std::env::temp_dir().join("handoff-docedit-library"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--port" => args.port = value().parse().unwrap_or_else(|_| usage()),
            "--peer" => args.peers.push(value()),
            "--multicast" => args.multicast = true,
            "--timeout" => {
                args.timeout = Duration::from_secs_f64(value().parse().unwrap_or_else(|_| usage()))
            }
            "--library" => args.library = PathBuf::from(value()),
            _ => usage(),
        }
    }
    args
}

/// Reaches the other devices of the (demo) account.
pub fn start_continuity(
    app: &ApplicationRef,
    args: &Args,
    device_name: &str,
) -> handoff::Result<()> {
    let account = Account::from_key(&DEMO_ACCOUNT_KEY)?;
    let mut options = ContinuityOptions::new(&account)
        .device_name(device_name)
        .beacon_port(args.port)
        .multicast(args.multicast);
    for peer in &args.peers {
        options = options.peer(peer.clone());
    }
    app.start_continuity(&options)
}

/// Where a document lives in the library.
pub fn document_path(library: &Path, id: &str) -> PathBuf {
    library.join(format!("{id}.txt"))
}

/// The largest document the receiver takes over a continuation stream:
/// the other device is trusted (same account), but not without bound.
pub const MAX_DOCUMENT_BYTES: u64 = 16 << 20;

/// The editor view: the open document and the cursor (a character
/// offset). As a responder it writes its state into the activity when the
/// activity is saved, and restores it from a continued one.
pub struct Editor {
    pub library: PathBuf,
    pub document_id: Option<String>,
    pub text: String,
    pub cursor: usize,
    /// Why the last restore failed, if it did.
    pub restore_error: Option<String>,
}

impl Editor {
    pub fn new(library: &Path) -> Editor {
        Editor {
            library: library.to_owned(),
            document_id: None,
            text: String::new(),
            cursor: 0,
            restore_error: None,
        }
    }

    /// Types `s` at the cursor and saves the document to the library.
    pub fn type_text(&mut self, s: &str) -> std::io::Result<()> {
        let at = self
            .text
            .char_indices()
            .nth(self.cursor)
            .map_or(self.text.len(), |(i, _)| i);
        self.text.insert_str(at, s);
        self.cursor += s.chars().count();
        let id = self.document_id.as_deref().expect("a document is open");
        fs::write(document_path(&self.library, id), &self.text)
    }

    /// "line L, column C: …before|after…" for the cursor.
    pub fn describe_cursor(&self) -> String {
        let before: String = self.text.chars().take(self.cursor).collect();
        let line = before.matches('\n').count() + 1;
        let column = before.chars().rev().take_while(|c| *c != '\n').count() + 1;
        let left: String = before
            .chars()
            .rev()
            .take_while(|c| *c != '\n')
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let right: String = self
            .text
            .chars()
            .skip(self.cursor)
            .take_while(|c| *c != '\n')
            .take(40)
            .collect();
        format!("line {line}, column {column}: …{left}|{right}…")
    }
}

impl UserActivityResponder for Editor {
    /// Saving: the document's identifier and the cursor, nothing more.
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        let Some(id) = &self.document_id else { return };
        let mut state = UserInfo::new();
        state.insert(DOCUMENT_ID.into(), Value::from(id.as_str()));
        state.insert(CURSOR.into(), Value::Integer(self.cursor as i64));
        if let Err(e) = activity.add_user_info_entries(&state) {
            eprintln!("docedit: cannot save the editor state: {e}");
        }
    }

    /// Restoring: open the document named in the userInfo from this
    /// device's library and put the cursor where it was.
    fn restore_user_activity_state(&mut self, activity: &ActivityRef) {
        self.restore_error = None;
        let info = match activity.user_info() {
            Ok(info) => info,
            Err(e) => return self.restore_error = Some(e.to_string()),
        };
        let (Some(id), Some(cursor)) = (
            info.get(DOCUMENT_ID).and_then(Value::as_str),
            info.get(CURSOR).and_then(Value::as_i64),
        ) else {
            return self.restore_error = Some(format!(
                "the userInfo lacks {DOCUMENT_ID} or {CURSOR}: {info:?}"
            ));
        };
        match fs::read_to_string(document_path(&self.library, id)) {
            Ok(text) => {
                self.cursor = usize::try_from(cursor)
                    .unwrap_or(0)
                    .min(text.chars().count());
                self.text = text;
                self.document_id = Some(id.to_owned());
            }
            Err(e) => {
                self.restore_error = Some(format!(
                    "document {id} is not in {}: {e}",
                    self.library.display()
                ))
            }
        }
    }
}
