// SPDX-License-Identifier: MIT OR Apache-2.0
//! The delegate methods renamed in 0.2.0 to Apple's names (docs/MIGRATION.md)
//! keep their 0.1.0 names for one release, as deprecated provided methods
//! of the same traits: the library calls the new name, whose default calls
//! the old one, so an app that implements only the old name still hears
//! the callback, and one that implements the new name wins.
//!
//! rustc warns where code *calls* a deprecated method, not where an impl
//! *implements* one (rust-lang/rust#98990), so an app implementing an old
//! name compiles silently. The first time the library reaches such an
//! implementation, this module says so once, on standard error, naming the
//! new method.
//!
//! Code that calls an old name does get rustc's warning, whose note names
//! the new method ("renamed to `will_continue_user_activity` ..."); with
//! `#![deny(deprecated)]` it fails to build:
//!
//! ```compile_fail
//! #![deny(deprecated)]
//! use handoff::{ApplicationDelegate, ApplicationRef};
//! struct App;
//! impl ApplicationDelegate for App {}
//! fn ask(app: &mut App, handle: &ApplicationRef) -> bool {
//!     app.will_continue(handle, "com.example.edit")
//! }
//! ```
//!
//! and the same code without the `deny` builds (so the failure above is the
//! deprecation, nothing else):
//!
//! ```no_run
//! use handoff::{ApplicationDelegate, ApplicationRef};
//! struct App;
//! impl ApplicationDelegate for App {}
//! fn ask(app: &mut App, handle: &ApplicationRef) -> bool {
//!     app.will_continue(handle, "com.example.edit")
//! }
//! ```

use std::cell::Cell;
use std::sync::Mutex;

thread_local! {
    /// Set by an old name's default body: the app did not override it.
    static OLD_DEFAULT_RAN: Cell<bool> = const { Cell::new(false) };
}

/// The old names already reported in this process.
static REPORTED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// Runs `call`, the old name `old` of the method now named `new`, from the
/// new name's default; reports `old` once if the app implements it.
pub(crate) fn forward<T>(old: &'static str, new: &'static str, call: impl FnOnce() -> T) -> T {
    // Without the thread's locals (a thread being torn down) the call
    // still happens; only the notice is skipped.
    let Ok(outer) = OLD_DEFAULT_RAN.try_with(|ran| ran.replace(false)) else {
        return call();
    };
    let value = call();
    let overridden = OLD_DEFAULT_RAN
        .try_with(|ran| !ran.replace(outer))
        .unwrap_or(false);
    if overridden {
        report_once(old, new);
    }
    value
}

/// Called by each old name's default body.
pub(crate) fn old_default_ran() {
    let _ = OLD_DEFAULT_RAN.try_with(|ran| ran.set(true));
}

fn report_once(old: &'static str, new: &'static str) {
    let mut reported = REPORTED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !reported.contains(&old) {
        reported.push(old);
        eprintln!(
            "handoff: {old} is deprecated since 0.2.0 (renamed {new}) and will be removed: \
             see docs/MIGRATION.md"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(old: &str) -> bool {
        REPORTED.lock().unwrap().contains(&old)
    }

    #[test]
    fn an_old_default_is_not_reported() {
        assert_eq!(
            forward("Test::kept_default", "new", || {
                old_default_ran();
                1
            }),
            1
        );
        assert!(!reported("Test::kept_default"));
    }

    #[test]
    fn an_implemented_old_name_is_reported_once() {
        assert_eq!(forward("Test::implemented", "new", || 2), 2);
        assert_eq!(forward("Test::implemented", "new", || 3), 3);
        let reported = REPORTED.lock().unwrap();
        assert_eq!(
            reported
                .iter()
                .filter(|old| **old == "Test::implemented")
                .count(),
            1
        );
    }

    #[test]
    fn a_nested_forward_keeps_the_outer_verdict() {
        forward("Test::outer", "new", || {
            forward("Test::inner", "new", || ());
            old_default_ran();
        });
        assert!(!reported("Test::outer"));
        assert!(reported("Test::inner"));
    }
}
