// SPDX-License-Identifier: MIT OR Apache-2.0
//! Deleting the app's saved activities from the device's history (Apple:
//! `deleteSavedUserActivities(withPersistentIdentifiers:)` and
//! `deleteAllSavedUserActivities`; docs/history.md, Privacy).

use std::ffi::{c_char, c_int, c_void, CString};
use std::thread::{self, ThreadId};

use crate::application::ApplicationRef;
use crate::callback::{guard, report_misuse};
use crate::error::{check, Error, Result};
use crate::strings::c_string;
use crate::sys;

impl ApplicationRef {
    /// Deletes this app's saved activities with these persistent
    /// identifiers (of its team) from the device's history (C:
    /// `handoff_application_delete_saved_activities`).
    ///
    /// `done` runs exactly once, on this application's main thread inside
    /// its `dispatch`/`run`: `Ok(())` once the history committed the
    /// deletion, else why not ([`ErrorCode::ConnectionUnavailable`] when
    /// continuity is not started, is embedded, or the agent keeps no
    /// history). No ids: `Ok(())` without asking anyone. Call it on the
    /// main thread (`done` need not be `Send`; asked from another thread it
    /// is reported, never called and leaked). It is leaked, never called,
    /// if the application is dropped first.
    ///
    /// Fails at once, `done` dropped uncalled, with
    /// [`ErrorCode::InvalidArgument`] for more than 512 ids or one empty or
    /// longer than 4,096 bytes ([`ErrorCode::InvalidValue`] for a NUL).
    ///
    /// [`ErrorCode::ConnectionUnavailable`]: crate::ErrorCode::ConnectionUnavailable
    /// [`ErrorCode::InvalidArgument`]: crate::ErrorCode::InvalidArgument
    /// [`ErrorCode::InvalidValue`]: crate::ErrorCode::InvalidValue
    #[doc(alias = "deleteSavedUserActivities")]
    pub fn delete_saved_activities<S, F>(&self, ids: &[S], done: F) -> Result<()>
    where
        S: AsRef<str>,
        F: FnOnce(Result<()>) + 'static,
    {
        let owned: Vec<CString> = ids
            .iter()
            .map(|s| c_string(s.as_ref(), "a persistent identifier"))
            .collect::<Result<_>>()?;
        let pointers: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        request(done, |callback, state| {
            // SAFETY: a live application; `pointers` holds `len` strings
            // valid for the call (the library copies them).
            unsafe {
                sys::handoff_application_delete_saved_activities(
                    self.as_ptr(),
                    pointers.as_ptr(),
                    pointers.len(),
                    callback,
                    state,
                )
            }
        })
    }

    /// Deletes every saved activity of this app's bundle from the
    /// device's history (C: `handoff_application_delete_all_saved_activities`);
    /// `done` as for [`ApplicationRef::delete_saved_activities`].
    #[doc(alias = "deleteAllSavedUserActivities")]
    pub fn delete_all_saved_activities<F>(&self, done: F) -> Result<()>
    where
        F: FnOnce(Result<()>) + 'static,
    {
        request(done, |callback, state| {
            // SAFETY: a live application.
            unsafe {
                sys::handoff_application_delete_all_saved_activities(self.as_ptr(), callback, state)
            }
        })
    }
}

type Callback = Option<unsafe extern "C" fn(c_int, *const c_char, *mut c_void)>;

/// A deletion's `done` and the thread that may run or drop it.
struct Request<F> {
    thread: ThreadId,
    done: F,
}

/// Hands `done` to the library through `call`, taking it back if refused.
fn request<F>(done: F, call: impl FnOnce(Callback, *mut c_void) -> c_int) -> Result<()>
where
    F: FnOnce(Result<()>) + 'static,
{
    let state = Box::into_raw(Box::new(Request {
        thread: thread::current().id(),
        done,
    }))
    .cast::<c_void>();
    let status = call(Some(completed::<F>), state);
    if status != sys::HANDOFF_OK as c_int {
        // Refused: never called, so take it back (on the thread that made it).
        // SAFETY: made by `Box::into_raw` above and not given away.
        drop(unsafe { Box::from_raw(state.cast::<Request<F>>()) });
    }
    check(status)
}

const DONE_CALLBACK: &str = "ApplicationRef::delete_saved_activities callback";

unsafe extern "C" fn completed<F>(error: c_int, message: *const c_char, user_data: *mut c_void)
where
    F: FnOnce(Result<()>) + 'static,
{
    let result = if error == 0 {
        Ok(())
    } else {
        Err(unsafe { Error::reported(error, message) })
    };
    let request = user_data.cast::<Request<F>>();
    // SAFETY: `user_data` is the live Box made by `request` for this single
    // call; its thread id is plain data, readable anywhere.
    if unsafe { (*request).thread } != thread::current().id() {
        report_misuse(
            DONE_CALLBACK,
            "not called, leaked",
            "a saved activities deletion was asked on another thread than the application's main \
             thread"
                .to_owned(),
        );
        return;
    }
    // SAFETY: as above; taken once, on the thread that made it.
    let request = unsafe { Box::from_raw(request) };
    guard(DONE_CALLBACK, "ignored", (), move || (request.done)(result))
}
