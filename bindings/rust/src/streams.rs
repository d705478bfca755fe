// SPDX-License-Identifier: MIT OR Apache-2.0
//! Continuation streams (Apple: `getContinuationStreams` and the
//! delegate's `didReceiveInputStream:outputStream:`): byte streams between
//! the app that continued an activity and the app it came from, for data
//! beyond the userInfo budget.
//!
//! The library hands each end to its app as a connected, blocking
//! `AF_UNIX` stream socket that the app now owns; this crate wraps it in a
//! [`UnixStream`] at once, so it is closed when dropped, whatever the
//! callback does (a panic included). `read`/`write`, `shutdown(Write)` (a
//! half-close: the other side reads EOF and may go on writing),
//! `set_nonblocking`, `try_clone` and `AsRawFd` for a poll loop all work as
//! on any socket. When the stream is lost (the other device or its app
//! vanishes, or its application is dropped before it half-closed), reads
//! return what arrived and then fail with `ConnectionReset`, and writes
//! fail with `BrokenPipe` (Rust's runtime ignores `SIGPIPE`): a lost
//! stream never reads as a clean EOF.

use std::ffi::{c_char, c_int, c_void};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::thread::{self, ThreadId};

use crate::activity::{with_delegate, ActivityDelegate, ActivityRef};
use crate::callback::{guard, report_misuse};
use crate::error::{check, Error, Result};
use crate::sys;

impl ActivityRef {
    /// Opens a continuation stream to the device this activity was
    /// continued from (Apple: `getContinuationStreams`). Call it on an
    /// activity your [`crate::ApplicationDelegate::continue_user_activity`]
    /// received, then or later, **on that application's main thread**;
    /// each call opens another stream.
    ///
    /// `callback` runs exactly once, on that main thread, inside its
    /// `dispatch`/`run`, with the stream (yours; closed when dropped) or
    /// why there is none: one of Apple's codes,
    /// [`ErrorCode::ConnectionUnavailable`] (the other device cannot be
    /// reached), [`ErrorCode::HandoffFailed`] (it refuses: its activity's
    /// delegate takes no streams) or
    /// [`ErrorCode::RemoteApplicationTimedOut`]. Since it runs on the
    /// thread that asked, it need not be `Send`: it may hold the
    /// [`crate::RestorationHandler`] and the responders, and restore once
    /// the data has arrived.
    ///
    /// Asked from another thread, the callback cannot run where the
    /// library delivers the stream: it is then reported (as a caught panic
    /// is, [`crate::set_callback_panic_hook`]), never called and leaked,
    /// and the stream is closed. It is leaked too, never called, if the
    /// application is dropped first. A panic in it is caught and reported;
    /// the stream it was given is closed.
    ///
    /// Fails at once, without calling `callback` (it is dropped here), with
    /// [`ErrorCode::InvalidState`] when the activity does not support
    /// continuation streams, was invalidated, or was not continued from
    /// another device by an application with continuity started.
    ///
    /// [`ErrorCode::ConnectionUnavailable`]: crate::ErrorCode::ConnectionUnavailable
    /// [`ErrorCode::HandoffFailed`]: crate::ErrorCode::HandoffFailed
    /// [`ErrorCode::RemoteApplicationTimedOut`]: crate::ErrorCode::RemoteApplicationTimedOut
    /// [`ErrorCode::InvalidState`]: crate::ErrorCode::InvalidState
    #[doc(alias = "getContinuationStreams")]
    pub fn get_continuation_streams<F>(&self, callback: F) -> Result<()>
    where
        F: FnOnce(&ActivityRef, Result<UnixStream>) + 'static,
    {
        let request = Box::new(StreamRequest {
            thread: thread::current().id(),
            callback,
        });
        let state = Box::into_raw(request).cast::<c_void>();
        // SAFETY: a live activity; `state` is reclaimed by `stream_arrived`,
        // which the library calls at most once, and only if this succeeds.
        let status = unsafe {
            sys::handoff_activity_get_continuation_streams(
                self.as_ptr(),
                Some(stream_arrived::<F>),
                state,
            )
        };
        if status != sys::HANDOFF_OK as c_int {
            // Refused: the callback is never called, so take it back (on
            // the thread that made it).
            // SAFETY: made by `Box::into_raw` above and not given away.
            drop(unsafe { Box::from_raw(state.cast::<StreamRequest<F>>()) });
        }
        check(status)
    }
}

/// A stream request's callback and the thread that may run or drop it.
struct StreamRequest<F> {
    thread: ThreadId,
    callback: F,
}

/// The stream descriptor the library gives away, owned from here on.
///
/// # Safety
/// `fd` is an open descriptor nobody else owns.
unsafe fn take_stream(fd: c_int) -> UnixStream {
    UnixStream::from(OwnedFd::from_raw_fd(fd))
}

const REQUEST_CALLBACK: &str = "ActivityRef::get_continuation_streams callback";

unsafe extern "C" fn stream_arrived<F>(
    activity: *mut sys::handoff_activity,
    fd: c_int,
    error: c_int,
    message: *const c_char,
    user_data: *mut c_void,
) where
    F: FnOnce(&ActivityRef, Result<UnixStream>) + 'static,
{
    // Own the stream before anything can panic, so it is closed whatever
    // happens. A non-negative `fd` is the callee's.
    let stream = if fd >= 0 {
        Ok(unsafe { take_stream(fd) })
    } else {
        Err(unsafe { Error::reported(error, message) })
    };
    let request = user_data.cast::<StreamRequest<F>>();
    // SAFETY: `user_data` is the live Box made by `get_continuation_streams`
    // for this single call; its thread id is plain data, readable anywhere.
    if unsafe { (*request).thread } != thread::current().id() {
        // `F` need not be `Send`: neither run nor drop it here.
        report_misuse(
            REQUEST_CALLBACK,
            "not called, leaked, the stream closed",
            "get_continuation_streams was called on another thread than the main thread of the \
             application that continued the activity"
                .to_owned(),
        );
        return;
    }
    // SAFETY: as above; taken once, on the thread that made it.
    let request = unsafe { Box::from_raw(request) };
    guard(
        REQUEST_CALLBACK,
        "ignored, the stream closed",
        (),
        move || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            (request.callback)(activity, stream);
        },
    )
}

/// The `user_activity_did_receive_stream` trampoline of an [`ActivityDelegate`] that
/// accepts streams ([`ActivityDelegate::ACCEPTS_CONTINUATION_STREAMS`]).
pub(crate) unsafe extern "C" fn user_activity_did_receive_stream<D: ActivityDelegate>(
    activity: *mut sys::handoff_activity,
    fd: c_int,
    user_data: *mut c_void,
) {
    if fd < 0 {
        return; // not a stream (the header promises one): nothing to own
    }
    // SAFETY: the descriptor is the callee's; owned first so that a panic,
    // or a delegate busy elsewhere, still closes it.
    let stream = unsafe { take_stream(fd) };
    guard(
        "ActivityDelegate::user_activity_did_receive_stream",
        "ignored, the stream closed",
        (),
        move || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_delegate::<D>(user_data, |d| {
                d.user_activity_did_receive_stream(activity, stream)
            });
        },
    )
}
