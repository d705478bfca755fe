// SPDX-License-Identifier: MIT OR Apache-2.0
//! Strings across the boundary: Rust strings to NUL-terminated C strings,
//! and the library's borrowed C strings back to Rust.

use std::ffi::{c_char, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, ErrorCode, Result};

/// A C copy of `s`, or `InvalidValue` when it holds a NUL byte (C strings
/// end at the first one). `what` names the argument in the message.
pub(crate) fn c_string(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|e| {
        Error::new(
            ErrorCode::InvalidValue,
            format!(
                "{what} holds a NUL byte at {}; C strings cannot carry one",
                e.nul_position()
            ),
        )
    })
}

/// As [`c_string`] for an optional argument (`None` stays `None`).
pub(crate) fn c_string_opt(s: Option<&str>, what: &str) -> Result<Option<CString>> {
    s.map(|s| c_string(s, what)).transpose()
}

/// A C copy of a path's bytes (the library refuses non-UTF-8 ones itself).
pub(crate) fn c_path(path: &Path, what: &str) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::new(
            ErrorCode::InvalidValue,
            format!("{what} holds a NUL byte; C strings cannot carry one"),
        )
    })
}

/// The pointer of an optional C string: NULL for `None`.
pub(crate) fn ptr_or_null(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

/// A borrowed C string as `&str`, `None` for NULL. The library hands out
/// UTF-8 only; bytes that are not read as `None` too rather than panic.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn borrowed<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}

/// An owned copy of a borrowed C string, `None` for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for the call.
pub(crate) unsafe fn owned(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// Held while a borrowed string of a shared handle (an activity, which
/// several threads may hold) is fetched and copied.
///
/// The library frees a property's previous C string when the getter is
/// next called after the property changed (handoff.h: "borrowed until the
/// property is set again"). Two threads copying the same property could
/// otherwise race: one frees what the other still reads. Every getter of
/// this crate fetches and copies under this one lock, so none frees a
/// string another is reading.
pub(crate) fn borrow_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    // Poisoning cannot leave `()` inconsistent.
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
