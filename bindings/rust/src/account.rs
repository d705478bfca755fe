// SPDX-License-Identifier: MIT OR Apache-2.0
//! Accounts: the key a person's devices share, its pairing code and its
//! storage.

use std::ffi::c_void;
use std::fmt;
use std::path::Path;
use std::ptr::NonNull;

use crate::error::{check, Error, Result};
use crate::strings::{borrowed, c_path, c_string, owned, ptr_or_null};
use crate::sys;

/// The account a person's devices share (Apple: the iCloud account's
/// Handoff keys): only devices holding the same account see and continue
/// each other's activities.
pub struct Account {
    raw: NonNull<sys::handoff_account>,
}

// SAFETY: an account never changes after it is made, and handoff.h lets
// any thread call any function; its one borrowed string (the id) lives as
// long as the account.
unsafe impl Send for Account {}
// SAFETY: as for `Send`.
unsafe impl Sync for Account {}

impl Account {
    /// A new account with a fresh random key.
    pub fn new() -> Result<Account> {
        // SAFETY: no arguments; we own the result.
        Account::from_owned(unsafe { sys::handoff_account_new() })
    }

    /// The account of a pairing code ([`Account::pairing_code`] on another
    /// device). Case, dashes and spaces do not matter.
    /// [`crate::ErrorCode::InvalidValue`] with a message saying what is
    /// wrong (typo, length, character).
    pub fn from_pairing_code(code: &str) -> Result<Account> {
        let code = c_string(code, "the pairing code")?;
        // SAFETY: a string valid for the call; we own the result.
        Account::from_owned(unsafe { sys::handoff_account_from_pairing_code(code.as_ptr()) })
    }

    /// The account of a raw 256-bit key, for hosts that keep the key
    /// themselves.
    pub fn from_key(key: &[u8; 32]) -> Result<Account> {
        // SAFETY: 32 bytes valid for the call; we own the result.
        Account::from_owned(unsafe {
            sys::handoff_account_from_key(key.as_ptr().cast::<c_void>(), key.len())
        })
    }

    /// Loads the account stored in `directory` (`None`:
    /// `$XDG_CONFIG_HOME/handoff`, else `~/.config/handoff`).
    /// [`crate::ErrorCode::NotFound`] when there is none yet,
    /// [`crate::ErrorCode::Permission`] when the file is readable by others.
    pub fn load(directory: Option<&Path>) -> Result<Account> {
        let dir = directory.map(|d| c_path(d, "the directory")).transpose()?;
        // SAFETY: NULL or a string valid for the call; we own the result.
        Account::from_owned(unsafe { sys::handoff_account_load(ptr_or_null(&dir)) })
    }

    /// Stores the account in `directory` (`None`: as [`Account::load`]),
    /// in a file of mode 0600, atomically.
    pub fn save(&self, directory: Option<&Path>) -> Result<()> {
        let dir = directory.map(|d| c_path(d, "the directory")).transpose()?;
        // SAFETY: a live account and NULL or a string valid for the call.
        check(unsafe { sys::handoff_account_save(self.as_ptr(), ptr_or_null(&dir)) })
    }

    /// The pairing code to type on another device. It is the secret: show
    /// it only to the person.
    pub fn pairing_code(&self) -> String {
        // SAFETY: a live account; the string is ours, released with
        // handoff_free after the copy.
        unsafe {
            let p = sys::handoff_account_copy_pairing_code(self.as_ptr());
            let code = owned(p).unwrap_or_default();
            sys::handoff_free(p.cast::<c_void>());
            code
        }
    }

    /// A public fingerprint (16 hex digits) telling accounts apart; it
    /// reveals nothing of the key.
    pub fn id(&self) -> &str {
        // SAFETY: borrowed until the account is freed; `&self` keeps it.
        unsafe { borrowed(sys::handoff_account_get_id(self.as_ptr())) }.unwrap_or("")
    }

    fn from_owned(p: *mut sys::handoff_account) -> Result<Account> {
        NonNull::new(p)
            .map(|raw| Account { raw })
            .ok_or_else(Error::last)
    }

    /// The raw handle, for the `sys` functions. Still owned by Rust.
    pub fn as_ptr(&self) -> *const sys::handoff_account {
        self.raw.as_ptr()
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        // SAFETY: owned, released once.
        unsafe { sys::handoff_account_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Account {
    /// The public id only, never the key or the pairing code.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id())
            .finish_non_exhaustive()
    }
}
