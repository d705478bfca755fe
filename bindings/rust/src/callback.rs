// SPDX-License-Identifier: MIT OR Apache-2.0
//! Calling Rust code from the library's callbacks: a panic must never
//! unwind into C. Every trampoline of this crate runs the host's code
//! through [`guard`], which catches the panic, reports it, and returns the
//! callback's documented default to the library.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};

/// A panic caught in a callback, as the panic hook sees it.
#[derive(Clone, Debug)]
pub struct CallbackPanic {
    /// The callback that panicked, e.g. `"ApplicationDelegate::will_continue_user_activity"`.
    pub callback: &'static str,
    /// What the library was told instead, e.g. `"returned false"`.
    pub outcome: &'static str,
    /// The panic's message (its `&str` or `String` payload), or a
    /// placeholder for another payload.
    pub message: String,
    /// The thread it happened on (the application's main thread).
    pub thread: ThreadId,
}

type Hook = Arc<dyn Fn(&CallbackPanic) + Send + Sync>;

static HOOK: Mutex<Option<Hook>> = Mutex::new(None);

/// Replaces what happens when a callback panics; by default a line on
/// standard error. The panic is caught either way and the library gets the
/// callback's default result (each trait method says which). Process-wide,
/// like [`std::panic::set_hook`]; the hook runs on the thread of the
/// callback and must not panic itself (if it does, that panic is dropped).
pub fn set_callback_panic_hook<F>(hook: F)
where
    F: Fn(&CallbackPanic) + Send + Sync + 'static,
{
    *lock_hook() = Some(Arc::new(hook));
}

/// Restores the default report (a line on standard error).
pub fn reset_callback_panic_hook() {
    *lock_hook() = None;
}

fn lock_hook() -> std::sync::MutexGuard<'static, Option<Hook>> {
    HOOK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `body`; if it panics, reports the panic and returns `fallback`.
/// Never unwinds.
pub(crate) fn guard<T>(
    callback: &'static str,
    outcome: &'static str,
    fallback: T,
    body: impl FnOnce() -> T,
) -> T {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            report(callback, outcome, payload);
            fallback
        }
    }
}

fn report(callback: &'static str, outcome: &'static str, payload: Box<dyn Any + Send>) {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_owned()
    };
    // A payload whose destructor panics must not unwind either.
    let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(payload)));
    report_misuse(callback, outcome, message);
}

/// Reports, as a caught panic would be, a callback the binding could not
/// run because the host broke a rule (`message` says which).
pub(crate) fn report_misuse(callback: &'static str, outcome: &'static str, message: String) {
    let event = CallbackPanic {
        callback,
        outcome,
        message,
        thread: thread::current().id(),
    };
    let hook = lock_hook().clone();
    let _ = panic::catch_unwind(AssertUnwindSafe(|| match hook {
        Some(hook) => hook(&event),
        None => eprintln!(
            "handoff: {} failed ({}; nothing reached the library): {}",
            event.callback, event.outcome, event.message
        ),
    }));
}
