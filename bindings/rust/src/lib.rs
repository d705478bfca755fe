// SPDX-License-Identifier: MIT OR Apache-2.0
//! Handoff for Linux apps: the Rust binding of libhandoff.
//!
//! A person starts something in an app on one device and continues it in
//! the same app on another of their devices. The app describes what the
//! person is doing as a *user activity* ([`Activity`]): an activity type,
//! a title and a small userInfo dictionary ([`UserInfo`] of [`Value`]s, at
//! most [`USER_INFO_BUDGET`] bytes encoded). The person's other devices,
//! signed in to the same [`Account`], see it offered nearby and continue
//! it; the receiving app's responders restore the state.
//!
//! Two layers, as `libsqlite3-sys` and `rusqlite`:
//!
//! - [`sys`]: the C interface of `include/handoff.h`, written out by hand,
//!   item for item (a test keeps the two in sync);
//! - the safe API here: owned handles released on drop, [`Result`]s
//!   carrying Apple's error codes and the library's message ([`Error`]),
//!   delegates and responders as traits called through trampolines that
//!   catch panics ([`set_callback_panic_hook`]).
//!
//! # Threads
//!
//! An [`Application`] belongs to the thread that created it, its *main
//! thread*: every callback runs there, inside [`Application::dispatch`] or
//! [`Application::run`]. It is therefore neither `Send` nor `Sync`, and
//! neither are [`Responder`]s and [`RestorationHandler`]s, whose callbacks
//! and calls are main-thread ones; delegates and responder states need not
//! be `Send`. A [`Stopper`] ends `run` from any thread. [`Activity`],
//! [`Manifest`] and [`Account`] are `Send + Sync` (the library lets any
//! thread use them); an activity's delegate is dropped by whichever thread
//! releases the activity last, so [`ActivityDelegate`] requires `Send`.
//!
//! # Main loop
//!
//! The library's own threads queue callbacks; [`ApplicationRef::fd`] is
//! readable while some wait. Add it to the app's loop (poll, epoll, GLib,
//! an async reactor) and call [`Application::dispatch`] when it is
//! readable; a due timer makes it readable too, so the loop needs no
//! timeout of its own ([`ApplicationRef::next_timeout`] is there for loops
//! that want to know ahead). Simple programs call [`Application::run`].
//!
//! # Example: offer what the person is doing
//!
//! ```no_run
//! use handoff::{Account, Activity, Application, ContinuityOptions, Manifest, UserInfo, Value};
//!
//! # fn main() -> handoff::Result<()> {
//! let manifest = Manifest::new("com.example.notes", "EXAMPLETEAM")?
//!     .declaring("com.example.notes.edit")?;
//! let app = Application::new(&manifest, ())?;
//! let account = Account::load(None)?; // the person's account, ~/.config/handoff
//! app.start_continuity(&ContinuityOptions::new(&account))?;
//!
//! let activity = Activity::new("com.example.notes.edit")?;
//! activity.set_title(Some("Shopping list"))?;
//! let mut info = UserInfo::new();
//! info.insert("noteID".into(), Value::from("7E1F"));
//! activity.set_user_info(&info)?;
//! app.become_current(&activity)?;
//! app.run(None)?;
//! # Ok(()) }
//! ```
//!
//! The crate's `examples` folder holds a whole sender and receiver
//! (`doc_sender`, `doc_receiver`).
//!
//! # Continuation streams
//!
//! For data beyond the userInfo budget (a document, attachments), the
//! receiver calls [`ActivityRef::get_continuation_streams`] on the activity
//! it continued; the sender's [`ActivityDelegate::user_activity_did_receive_stream`]
//! gets the other end. Each end is a [`std::os::unix::net::UnixStream`]
//! the app owns; the library carries its bytes over the account's
//! encrypted channel.
//!
//! # Linking
//!
//! `build.rs` links `libhandoff.so` from `HANDOFF_LIB_DIR`, else the
//! installed copy `pkg-config handoff` names (`make install`), else the
//! repository's `build/lib` (`make lib`). A program using an installed copy
//! in a folder the dynamic linker searches (`/usr/local/lib`, after the
//! `ldconfig` that `make install` runs) needs nothing more. For any other
//! folder the crate's own tests and examples get an rpath; a dependent
//! program gets one from a build script of its own, since Cargo passes
//! linker arguments to the crate's own targets only:
//!
//! ```no_run
//! // build.rs of a program that depends on handoff; DEP_HANDOFF_RPATH is
//! // empty when the dynamic linker finds the library by itself.
//! if let Some(dir) = std::env::var_os("DEP_HANDOFF_RPATH").filter(|d| !d.is_empty()) {
//!     println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
//! }
//! ```

#![warn(missing_docs)]

pub mod sys;

mod account;
mod activity;
mod application;
mod callback;
mod continuity;
mod document;
mod error;
mod manifest;
mod remote;
mod renamed;
mod responder;
mod streams;
mod strings;
mod value;

pub use account::Account;
pub use activity::{Activity, ActivityDelegate, ActivityFlag, ActivityRef};
pub use application::{Application, ApplicationDelegate, ApplicationRef, RunOutcome, Stopper};
pub use callback::{reset_callback_panic_hook, set_callback_panic_hook, CallbackPanic};
pub use continuity::{ContinuityMode, ContinuityOptions, DeviceRole};
pub use document::{Document, DOCUMENT_ORIGINS_KEY, DOCUMENT_URL_KEY};
pub use error::{Error, ErrorCode, Result};
pub use manifest::Manifest;
pub use remote::{RemoteActivity, RemoteActivityInfo};
pub use responder::{AsResponder, Responder, RestorationHandler, UserActivityResponder};
pub use value::{Date, UserInfo, Value, ValueKind};

use std::ffi::CStr;

/// The README's code blocks, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Encoded userInfo must stay within this many bytes; beyond it a handoff
/// fails with [`ErrorCode::UserInfoTooLarge`] (4611).
pub const USER_INFO_BUDGET: usize = sys::HANDOFF_USER_INFO_BUDGET as usize;

/// The version of the header this crate was written from, "MAJOR.MINOR.PATCH".
pub const HEADER_VERSION: &str = match sys::HANDOFF_VERSION_STRING.to_str() {
    Ok(v) => v,
    Err(_) => panic!("the header's version is ASCII"),
};

/// The version of the library actually loaded, "MAJOR.MINOR.PATCH";
/// compare with [`HEADER_VERSION`] to detect a mismatch.
pub fn library_version() -> &'static str {
    // SAFETY: static storage, never NULL.
    unsafe { CStr::from_ptr(sys::handoff_version_string()) }
        .to_str()
        .unwrap_or("")
}

/// The loaded library's version as MAJOR * 10000 + MINOR * 100 + PATCH.
pub fn library_version_number() -> u32 {
    // SAFETY: no arguments.
    unsafe { sys::handoff_version_number() }
}
