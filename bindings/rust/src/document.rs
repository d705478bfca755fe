// SPDX-License-Identifier: MIT OR Apache-2.0
//! An open document and its activity (Apple: `NSDocument`'s
//! `userActivity`), and the keys of documents in userInfo.

use std::ffi::{c_char, CStr};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};

use crate::activity::ActivityRef;
use crate::application::ApplicationRef;
use crate::error::{check, Error, Result};
use crate::strings::{c_path, c_string};
use crate::sys;

/// The userInfo key of a document's file URL (Apple's
/// `NSUserActivityDocumentURLKey`).
pub const DOCUMENT_URL_KEY: &str = "NSUserActivityDocumentURLKey";
/// In a continued activity: a dictionary from each local file URL's text to
/// `"same"`, `"synced"` or `"brought"`, as the receiving side found the
/// document.
pub const DOCUMENT_ORIGINS_KEY: &str = "HandoffDocumentOrigins";

/// The activity of the document at a path: its file URL under
/// [`DOCUMENT_URL_KEY`], titled with the file's name, made current.
///
/// It follows the file: renamed, saved by replacement (a temporary file
/// renamed over it, as editors save) or deleted, the URL and title follow
/// inside [`Application::dispatch`](crate::Application::dispatch) on the
/// main thread, woken by the application's fd (no thread, no polling).
/// Dropping it invalidates the activity.
pub struct Document {
    raw: NonNull<sys::handoff_document>,
}

impl Document {
    /// Opens the document at `path` for `app` with a new activity of
    /// `activity_type`. [`ErrorCode::NotFound`](crate::ErrorCode::NotFound)
    /// when nothing is there,
    /// [`ErrorCode::InvalidValue`](crate::ErrorCode::InvalidValue) when it
    /// is not a regular file.
    pub fn new(
        app: &ApplicationRef,
        activity_type: &str,
        path: impl AsRef<Path>,
    ) -> Result<Document> {
        let activity_type = c_string(activity_type, "the activity type")?;
        let path = c_path(path.as_ref(), "the path")?;
        // SAFETY: a live application and strings valid for the call.
        let raw = unsafe {
            sys::handoff_document_new(app.as_ptr(), activity_type.as_ptr(), path.as_ptr())
        };
        NonNull::new(raw)
            .map(|raw| Document { raw })
            .ok_or_else(Error::last)
    }

    /// The person changed the document: the activity needs a save (its
    /// save callbacks run before it is next sent).
    pub fn edited(&self) -> Result<()> {
        // SAFETY: a live document.
        check(unsafe { sys::handoff_document_edited(self.raw.as_ptr()) })
    }

    /// The app saved it: no save pending, and the file looked at again (a
    /// save by replacement is followed before this returns on the main
    /// thread).
    pub fn saved(&self) -> Result<()> {
        // SAFETY: a live document.
        check(unsafe { sys::handoff_document_saved(self.raw.as_ptr()) })
    }

    /// The document's activity, borrowed for the document's life: set its
    /// delegate or add userInfo entries (leave the URL key and the title to
    /// the document).
    pub fn activity(&self) -> &ActivityRef {
        // SAFETY: a live document; its activity lives as long as it does.
        unsafe { ActivityRef::from_ptr(sys::handoff_document_activity(self.raw.as_ptr())) }
    }
}

impl Drop for Document {
    fn drop(&mut self) {
        // SAFETY: ours, released once.
        unsafe { sys::handoff_document_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("title", &self.activity().title())
            .finish()
    }
}

impl ApplicationRef {
    /// The path to open for a file URL received (Apple:
    /// `startAccessingSecurityScopedResource`): outside a Flatpak sandbox
    /// the URL's own path; inside one the path the document portal gives
    /// this app, which the agent asks for (blocking until it answers), for
    /// a document it delivered to this app only
    /// ([`ErrorCode::Permission`](crate::ErrorCode::Permission) otherwise;
    /// [`ErrorCode::InvalidState`](crate::ErrorCode::InvalidState) without
    /// an agent). [`ErrorCode::InvalidArgument`](crate::ErrorCode::InvalidArgument)
    /// for anything but a file URL. Balance it with
    /// [`stop_accessing`](Self::stop_accessing).
    pub fn start_accessing(&self, url: &str) -> Result<PathBuf> {
        let url = c_string(url, "the URL")?;
        let mut out: *mut c_char = ptr::null_mut();
        // SAFETY: a live application, a string valid for the call, an out pointer.
        check(unsafe { sys::handoff_url_start_accessing(self.as_ptr(), url.as_ptr(), &mut out) })?;
        // SAFETY: on success an owned NUL-terminated string, released here.
        let path =
            unsafe { PathBuf::from(std::ffi::OsStr::from_bytes(CStr::from_ptr(out).to_bytes())) };
        unsafe { sys::handoff_free(out.cast()) };
        Ok(path)
    }

    /// Ends what [`start_accessing`](Self::start_accessing) began: nothing
    /// outside a sandbox; inside one the last stop of a URL takes the app's
    /// access back ([`ErrorCode::InvalidState`](crate::ErrorCode::InvalidState)
    /// for a URL not being accessed).
    pub fn stop_accessing(&self, url: &str) -> Result<()> {
        let url = c_string(url, "the URL")?;
        // SAFETY: a live application and a string valid for the call.
        check(unsafe { sys::handoff_url_stop_accessing(self.as_ptr(), url.as_ptr()) })
    }
}
