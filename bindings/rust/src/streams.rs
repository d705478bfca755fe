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
//! on any socket. When the other device or its app vanishes, the socket is
//! shut down both ways: reads see EOF and writes fail with `BrokenPipe`
//! (Rust's runtime ignores `SIGPIPE`).

use std::ffi::{c_char, c_int, c_void};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use crate::activity::{with_delegate, ActivityDelegate, ActivityRef};
use crate::callback::guard;
use crate::error::{check, Error, Result};
use crate::sys;

impl ActivityRef {
    /// Opens a continuation stream to the device this activity was
    /// continued from (Apple: `getContinuationStreams`). Call it on an
    /// activity your [`crate::ApplicationDelegate::continue_user_activity`]
    /// received, then or later; each call opens another stream.
    ///
    /// `callback` runs exactly once, on the main thread of the application
    /// that continued the activity, inside its `dispatch`/`run`, with the
    /// stream (yours; closed when dropped) or why there is none: one of
    /// Apple's codes, [`ErrorCode::ConnectionUnavailable`] (the other
    /// device cannot be reached), [`ErrorCode::HandoffFailed`] (it
    /// refuses: its activity's delegate takes no streams) or
    /// [`ErrorCode::RemoteApplicationTimedOut`]. If that application is
    /// dropped first, `callback` is never called and is leaked, not
    /// dropped, since no thread is then known to be the right one.
    ///
    /// The callback must be `Send`: this method may be called from any
    /// thread. A panic in it is caught and reported
    /// ([`crate::set_callback_panic_hook`]); the stream it was given is
    /// closed.
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
        F: FnOnce(&ActivityRef, Result<UnixStream>) + Send + 'static,
    {
        let state = Box::into_raw(Box::new(callback)).cast::<c_void>();
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
            // Refused: the callback is never called, so take it back.
            // SAFETY: made by `Box::into_raw` above and not given away.
            drop(unsafe { Box::from_raw(state.cast::<F>()) });
        }
        check(status)
    }
}

/// The stream descriptor the library gives away, owned from here on.
///
/// # Safety
/// `fd` is an open descriptor nobody else owns.
unsafe fn take_stream(fd: c_int) -> UnixStream {
    UnixStream::from(OwnedFd::from_raw_fd(fd))
}

unsafe extern "C" fn stream_arrived<F>(
    activity: *mut sys::handoff_activity,
    fd: c_int,
    error: c_int,
    message: *const c_char,
    user_data: *mut c_void,
) where
    F: FnOnce(&ActivityRef, Result<UnixStream>) + Send + 'static,
{
    // Own the closure and the stream before anything can panic, so both
    // are released whatever happens.
    // SAFETY: `user_data` is the Box made by `get_continuation_streams`,
    // passed to this single call; a non-negative `fd` is the callee's.
    let callback = unsafe { Box::from_raw(user_data.cast::<F>()) };
    let stream = if fd >= 0 {
        Ok(unsafe { take_stream(fd) })
    } else {
        Err(unsafe { Error::reported(error, message) })
    };
    guard(
        "ActivityRef::get_continuation_streams callback",
        "ignored, the stream closed",
        (),
        move || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            callback(activity, stream);
        },
    )
}

/// The `did_receive_stream` trampoline of an [`ActivityDelegate`] that
/// accepts streams ([`ActivityDelegate::ACCEPTS_CONTINUATION_STREAMS`]).
pub(crate) unsafe extern "C" fn did_receive_stream<D: ActivityDelegate>(
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
        "ActivityDelegate::did_receive_stream",
        "ignored, the stream closed",
        (),
        move || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_delegate::<D>(user_data, |d| d.did_receive_stream(activity, stream));
        },
    )
}
