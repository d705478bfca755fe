// SPDX-License-Identifier: MIT OR Apache-2.0
//! Errors: the library's status code (Apple's numbers for Handoff
//! failures) and its message saying what went wrong and what to do.

use std::ffi::{c_char, c_int, CStr};
use std::fmt;

use crate::strings::borrowed;
use crate::sys;

/// What `Result` means throughout this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A status code of the library (`handoff_status`).
///
/// Codes 4608–4863 are Apple's user-activity error domain with Apple's
/// numbers: a Handoff failure to present to the person
/// ([`ErrorCode::is_user_activity_error`]); the small codes are programming
/// or environment errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A required argument was missing or out of range.
    InvalidArgument,
    /// A value was refused: not an allowed userInfo type, a malformed
    /// identifier, a NUL byte or invalid UTF-8, a non-http(s) web page URL,
    /// nesting too deep.
    InvalidValue,
    /// A value was read as a kind it is not.
    TypeMismatch,
    /// What was asked for is absent.
    NotFound,
    /// Bytes could not be decoded: truncated, corrupt or hostile.
    MalformedData,
    /// A file could not be read or written.
    Io,
    /// The activity lacks a key named in its required userInfo keys.
    MissingRequiredKey,
    /// The call does not fit the object's state.
    InvalidState,
    /// The call was made on a thread it may not be made on.
    WrongThread,
    /// A wait ran out of time.
    TimedOut,
    /// A file's permissions are unsafe or forbid the access.
    Permission,
    /// Apple: `NSUserActivityHandoffFailedError` (4608).
    HandoffFailed,
    /// Apple: `NSUserActivityConnectionUnavailableError` (4609).
    ConnectionUnavailable,
    /// Apple: `NSUserActivityRemoteApplicationTimedOutError` (4610).
    RemoteApplicationTimedOut,
    /// Apple: `NSUserActivityHandoffUserInfoTooLargeError` (4611).
    UserInfoTooLarge,
    /// A code this version of the binding does not know.
    Other(i32),
}

impl ErrorCode {
    /// The code of a raw status (`handoff_status`); `None` for `HANDOFF_OK`.
    pub fn from_raw(status: i32) -> Option<ErrorCode> {
        let code = match status as sys::handoff_status {
            _ if status < 0 => ErrorCode::Other(status),
            sys::HANDOFF_OK => return None,
            sys::HANDOFF_E_INVALID_ARGUMENT => ErrorCode::InvalidArgument,
            sys::HANDOFF_E_INVALID_VALUE => ErrorCode::InvalidValue,
            sys::HANDOFF_E_TYPE_MISMATCH => ErrorCode::TypeMismatch,
            sys::HANDOFF_E_NOT_FOUND => ErrorCode::NotFound,
            sys::HANDOFF_E_MALFORMED_DATA => ErrorCode::MalformedData,
            sys::HANDOFF_E_IO => ErrorCode::Io,
            sys::HANDOFF_E_MISSING_REQUIRED_KEY => ErrorCode::MissingRequiredKey,
            sys::HANDOFF_E_INVALID_STATE => ErrorCode::InvalidState,
            sys::HANDOFF_E_WRONG_THREAD => ErrorCode::WrongThread,
            sys::HANDOFF_E_TIMED_OUT => ErrorCode::TimedOut,
            sys::HANDOFF_E_PERMISSION => ErrorCode::Permission,
            sys::HANDOFF_E_HANDOFF_FAILED => ErrorCode::HandoffFailed,
            sys::HANDOFF_E_CONNECTION_UNAVAILABLE => ErrorCode::ConnectionUnavailable,
            sys::HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT => ErrorCode::RemoteApplicationTimedOut,
            sys::HANDOFF_E_USER_INFO_TOO_LARGE => ErrorCode::UserInfoTooLarge,
            _ => ErrorCode::Other(status),
        };
        Some(code)
    }

    /// The raw status number, e.g. 4611 for [`ErrorCode::UserInfoTooLarge`].
    pub fn raw(self) -> i32 {
        let status = match self {
            ErrorCode::InvalidArgument => sys::HANDOFF_E_INVALID_ARGUMENT,
            ErrorCode::InvalidValue => sys::HANDOFF_E_INVALID_VALUE,
            ErrorCode::TypeMismatch => sys::HANDOFF_E_TYPE_MISMATCH,
            ErrorCode::NotFound => sys::HANDOFF_E_NOT_FOUND,
            ErrorCode::MalformedData => sys::HANDOFF_E_MALFORMED_DATA,
            ErrorCode::Io => sys::HANDOFF_E_IO,
            ErrorCode::MissingRequiredKey => sys::HANDOFF_E_MISSING_REQUIRED_KEY,
            ErrorCode::InvalidState => sys::HANDOFF_E_INVALID_STATE,
            ErrorCode::WrongThread => sys::HANDOFF_E_WRONG_THREAD,
            ErrorCode::TimedOut => sys::HANDOFF_E_TIMED_OUT,
            ErrorCode::Permission => sys::HANDOFF_E_PERMISSION,
            ErrorCode::HandoffFailed => sys::HANDOFF_E_HANDOFF_FAILED,
            ErrorCode::ConnectionUnavailable => sys::HANDOFF_E_CONNECTION_UNAVAILABLE,
            ErrorCode::RemoteApplicationTimedOut => sys::HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT,
            ErrorCode::UserInfoTooLarge => sys::HANDOFF_E_USER_INFO_TOO_LARGE,
            ErrorCode::Other(raw) => return raw,
        };
        status as i32
    }

    /// Whether this is one of Apple's user-activity errors (4608–4863): a
    /// Handoff failure the app should present, not a programming error.
    pub fn is_user_activity_error(self) -> bool {
        (sys::HANDOFF_USER_ACTIVITY_ERROR_MINIMUM..=sys::HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM)
            .contains(&self.raw())
    }

    /// The library's short static description, e.g. "userInfo too large".
    pub fn description(self) -> &'static str {
        // SAFETY: static storage, never NULL (handoff.h).
        let text = unsafe { CStr::from_ptr(sys::handoff_status_string(self.raw())) };
        text.to_str().unwrap_or("unknown status")
    }
}

/// A failed call: the library's status code and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// An error with this code and message (for callbacks and tests; the
    /// crate makes its own from the library's last error).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The status code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The raw status number (Apple's number for Handoff failures).
    pub fn raw_code(&self) -> i32 {
        self.code.raw()
    }

    /// What went wrong and what to do, as the library says it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether this is one of Apple's user-activity errors (4608–4863).
    pub fn is_user_activity_error(&self) -> bool {
        self.code.is_user_activity_error()
    }

    /// The error a callback reports: its status and the message the
    /// library lends for the call (copied; NULL reads as empty).
    ///
    /// # Safety
    /// `message` is NULL or a valid C string for the call.
    pub(crate) unsafe fn reported(status: c_int, message: *const c_char) -> Error {
        Error {
            code: ErrorCode::from_raw(status).unwrap_or(ErrorCode::Other(status)),
            message: borrowed(message).unwrap_or("").to_owned(),
        }
    }

    /// The error of the failed call that just returned `status` on this
    /// thread: that code with the thread's last error message.
    pub(crate) fn from_status(status: c_int) -> Error {
        let code = ErrorCode::from_raw(status).unwrap_or(ErrorCode::Other(status));
        Error {
            code,
            message: last_error_message(),
        }
    }

    /// The error of a constructor that just returned NULL on this thread.
    pub(crate) fn last() -> Error {
        // SAFETY: no arguments; per-thread state.
        let status = unsafe { sys::handoff_last_error_code() };
        let code = ErrorCode::from_raw(status).unwrap_or(ErrorCode::InvalidArgument);
        Error {
            code,
            message: last_error_message(),
        }
    }
}

fn last_error_message() -> String {
    // SAFETY: never NULL; valid until the next failing call on this thread,
    // and it is copied at once.
    unsafe { CStr::from_ptr(sys::handoff_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (error {}: {})",
            self.message,
            self.code.raw(),
            self.code.description()
        )
    }
}

impl std::error::Error for Error {}

/// `Ok(())` for `HANDOFF_OK`, else the thread's last error with `status`.
pub(crate) fn check(status: c_int) -> Result<()> {
    if status == sys::HANDOFF_OK as c_int {
        Ok(())
    } else {
        Err(Error::from_status(status))
    }
}
