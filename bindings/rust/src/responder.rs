// SPDX-License-Identifier: MIT OR Apache-2.0
//! Responders (Apple: `UIResponder`'s user-activity support) and the
//! restoration handler that hands a continued activity to them.

use std::cell::{Cell, Ref, RefCell, RefMut};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::rc::Rc;

use crate::activity::{Activity, ActivityRef};
use crate::application::ApplicationRef;
use crate::callback::guard;
use crate::error::{check, Error, Result};
use crate::sys;

/// The state a user activity captures and restores: a view, a document
/// editor. Both methods run on the application's main thread; a panic is
/// caught and reported ([`crate::set_callback_panic_hook`]) and the library
/// goes on as if the method had returned.
pub trait UserActivityResponder: 'static {
    /// The activity is being saved (after `needs_save`, and right before it
    /// is sent): add this responder's state, e.g. with
    /// [`ActivityRef::add_user_info_entries`].
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        let _ = activity;
    }

    /// Restore this responder's state from a continued activity.
    fn restore_user_activity_state(&mut self, activity: &ActivityRef) {
        let _ = activity;
    }
}

/// A responder registered with an application, owning its state `T`.
///
/// When an activity it holds ([`set_user_activity`](Self::set_user_activity))
/// is saved, its `update_user_activity_state` runs, in the order responders
/// were created; a [`RestorationHandler`] calls its
/// `restore_user_activity_state`. Not `Send`: its state is used on the
/// application's main thread. Dropping it unregisters it; dropped inside
/// one of its own callbacks, it is never called again and the library's
/// side is released when that dispatch returns.
///
/// ```compile_fail,E0277
/// // A responder stays on its application's main thread.
/// # let app = handoff::Application::new(&handoff::Manifest::new("com.example.a", "TEAM").unwrap(), ()).unwrap();
/// struct View;
/// impl handoff::UserActivityResponder for View {}
/// let view = handoff::Responder::new(&app, View).unwrap();
/// std::thread::spawn(move || drop(view));
/// ```
pub struct Responder<T: UserActivityResponder> {
    raw: NonNull<sys::handoff_responder>,
    shared: Rc<Shared<T>>,
}

/// What the responder's `user_data` points to. The library holds one
/// strong count (`Rc::into_raw`) until `handoff_responder_free` returns.
struct Shared<T> {
    state: RefCell<T>,
    /// Callbacks of this responder now on the stack.
    running: Cell<usize>,
    /// The Rust side is gone: call nothing more.
    closed: Cell<bool>,
}

impl<T: UserActivityResponder> Responder<T> {
    /// Registers a responder owning `state` with `app`.
    pub fn new(app: &ApplicationRef, state: T) -> Result<Responder<T>> {
        let shared = Rc::new(Shared {
            state: RefCell::new(state),
            running: Cell::new(0),
            closed: Cell::new(false),
        });
        let callbacks = sys::handoff_responder_callbacks {
            update_user_activity_state: Some(update::<T>),
            restore_user_activity_state: Some(restore::<T>),
            ..sys::HANDOFF_RESPONDER_CALLBACKS_INIT
        };
        let user_data = Rc::into_raw(Rc::clone(&shared)).cast_mut().cast::<c_void>();
        // No destroy: this type releases the library's count itself, on the
        // main thread, once the library can no longer call (see `Drop`).
        // SAFETY: a live application; the struct is copied.
        let raw = unsafe { sys::handoff_responder_new(app.as_ptr(), &callbacks, user_data, None) };
        match NonNull::new(raw) {
            Some(raw) => Ok(Responder { raw, shared }),
            None => {
                let error = Error::last();
                // SAFETY: the count made above; the library did not keep it.
                drop(unsafe { Rc::from_raw(user_data.cast_const().cast::<Shared<T>>()) });
                Err(error)
            }
        }
    }

    /// Sets the activity this responder contributes to (`None`: none).
    /// Several responders may share one. The responder keeps a reference.
    pub fn set_user_activity(&self, activity: Option<&ActivityRef>) -> Result<()> {
        let activity = activity.map_or(std::ptr::null_mut(), ActivityRef::as_ptr);
        // SAFETY: a live responder and a live activity or NULL.
        check(unsafe { sys::handoff_responder_set_user_activity(self.raw.as_ptr(), activity) })
    }

    /// The responder's activity, if any.
    pub fn user_activity(&self) -> Option<Activity> {
        // SAFETY: a live responder; we own the reference returned.
        unsafe {
            Activity::from_owned(sys::handoff_responder_copy_user_activity(self.raw.as_ptr()))
        }
        .ok()
    }

    /// The state, borrowed. Do not hold it across dispatch: a callback
    /// finding it borrowed is reported and skipped.
    pub fn state(&self) -> Ref<'_, T> {
        self.shared.state.borrow()
    }

    /// The state, borrowed mutably; as [`Responder::state`].
    pub fn state_mut(&self) -> RefMut<'_, T> {
        self.shared.state.borrow_mut()
    }

    /// The raw handle, for the `sys` functions. Still owned by Rust.
    pub fn as_ptr(&self) -> *mut sys::handoff_responder {
        self.raw.as_ptr()
    }
}

impl<T: UserActivityResponder> Drop for Responder<T> {
    fn drop(&mut self) {
        self.shared.closed.set(true);
        // SAFETY: the count `new` gave the library, taken back here.
        let library_count: Rc<Shared<T>> = unsafe { Rc::from_raw(Rc::as_ptr(&self.shared)) };
        let entry = Deferred {
            raw: self.raw.as_ptr(),
            library_count,
        };
        if !entry.library_count.running() {
            entry.free();
            return;
        }
        // One of its callbacks is on the stack, and the header forbids
        // freeing a responder from inside its own callback: free it once
        // that callback returned. (During thread teardown, when the queue
        // is gone, it is leaked rather than freed too early.)
        let mut entry = Some(entry);
        let _ = DEFERRED.try_with(|d| d.borrow_mut().extend(entry.take()));
        std::mem::forget(entry);
    }
}

impl<T: UserActivityResponder + fmt::Debug> fmt::Debug for Responder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shared.state.try_borrow() {
            Ok(state) => f.debug_struct("Responder").field("state", &*state).finish(),
            Err(_) => f
                .debug_struct("Responder")
                .field("state", &"<borrowed>")
                .finish(),
        }
    }
}

/// Whether a responder's callback is on the stack, for deferred frees.
trait Running {
    fn running(&self) -> bool;
}

impl<T> Running for Shared<T> {
    fn running(&self) -> bool {
        self.running.get() > 0
    }
}

/// A responder whose Rust side is gone and whose library side is to be
/// freed.
struct Deferred {
    raw: *mut sys::handoff_responder,
    library_count: Rc<dyn Running>,
}

impl Deferred {
    fn free(self) {
        // SAFETY: the responder was not freed yet and none of its callbacks
        // runs; after the call the library never calls it again, so its
        // count can go.
        unsafe { sys::handoff_responder_free(self.raw) };
        drop(self.library_count);
    }
}

thread_local! {
    // Responders are not Send, so a responder's deferred free is queued
    // and run on its own thread.
    static DEFERRED: RefCell<Vec<Deferred>> = const { RefCell::new(Vec::new()) };
}

/// Frees the deferred responders none of whose callbacks is running.
/// Runs when a responder is dropped and after dispatch, run and restore.
pub(crate) fn drain_deferred_frees() {
    let ready: Vec<Deferred> = DEFERRED
        .try_with(|d| {
            let mut d = d.borrow_mut();
            let (ready, waiting) = d
                .drain(..)
                .partition(|entry| !entry.library_count.running());
            *d = waiting;
            ready
        })
        .unwrap_or_default();
    ready.into_iter().for_each(Deferred::free);
}

/// Runs a responder callback unless the responder is closed, counting it
/// as running meanwhile (also while a panic unwinds).
fn with_state<T: UserActivityResponder>(user_data: *mut c_void, f: impl FnOnce(&mut T)) {
    struct CallCount<'a>(&'a Cell<usize>);
    impl Drop for CallCount<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() - 1);
        }
    }
    // SAFETY: `user_data` is our `Shared<T>`; the library's count keeps it
    // alive while the library may call, and a deferred free waits for
    // `running` to return to zero.
    let shared = unsafe { &*user_data.cast_const().cast::<Shared<T>>() };
    if shared.closed.get() {
        return;
    }
    shared.running.set(shared.running.get() + 1);
    let _running = CallCount(&shared.running);
    f(&mut shared.state.borrow_mut());
}

unsafe extern "C" fn update<T: UserActivityResponder>(
    _responder: *mut sys::handoff_responder,
    activity: *mut sys::handoff_activity,
    user_data: *mut c_void,
) {
    guard(
        "UserActivityResponder::update_user_activity_state",
        "ignored",
        (),
        || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_state::<T>(user_data, |state| {
                state.update_user_activity_state(activity)
            });
        },
    )
}

unsafe extern "C" fn restore<T: UserActivityResponder>(
    _responder: *mut sys::handoff_responder,
    activity: *mut sys::handoff_activity,
    user_data: *mut c_void,
) {
    guard(
        "UserActivityResponder::restore_user_activity_state",
        "ignored",
        (),
        || {
            // SAFETY: as in `update`.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_state::<T>(user_data, |state| {
                state.restore_user_activity_state(activity)
            });
        },
    )
}

// -------------------------------------------------- Restoration handler

/// Hands a continued activity to the responders that restore it (Apple:
/// the `restorationHandler` block). Given to
/// [`crate::ApplicationDelegate::continue_user_activity`]; restore now, or
/// keep it and restore later, at most once (it is consumed), on the main
/// thread (it is not `Send`). Dropping it unused releases it.
pub struct RestorationHandler {
    raw: NonNull<sys::handoff_restoration_handler>,
    _main_thread: PhantomData<*mut ()>,
}

/// A responder of any state type, for [`RestorationHandler::restore`].
/// Sealed: only [`Responder`] implements it.
pub trait AsResponder: sealed::Sealed {
    /// The raw handle.
    fn as_responder_ptr(&self) -> *mut sys::handoff_responder;
}

mod sealed {
    pub trait Sealed {}
    impl<T: super::UserActivityResponder> Sealed for super::Responder<T> {}
}

impl<T: UserActivityResponder> AsResponder for Responder<T> {
    fn as_responder_ptr(&self) -> *mut sys::handoff_responder {
        self.as_ptr()
    }
}

impl RestorationHandler {
    /// Takes ownership of a handler the library gives a callback.
    ///
    /// # Safety
    /// `p` is NULL or a handler the caller owns.
    pub unsafe fn from_owned(
        p: *mut sys::handoff_restoration_handler,
    ) -> Option<RestorationHandler> {
        NonNull::new(p).map(|raw| RestorationHandler {
            raw,
            _main_thread: PhantomData,
        })
    }

    /// Calls `restore_user_activity_state` on each responder, in order,
    /// with the continued activity. [`crate::ErrorCode::WrongThread`] off
    /// the application's main thread.
    pub fn restore(self, responders: &[&dyn AsResponder]) -> Result<()> {
        let raw: Vec<*mut sys::handoff_responder> =
            responders.iter().map(|r| r.as_responder_ptr()).collect();
        // SAFETY: a live handler and live responders (borrowed for the call).
        let status = unsafe {
            sys::handoff_restoration_handler_restore(self.raw.as_ptr(), raw.as_ptr(), raw.len())
        };
        drain_deferred_frees();
        check(status)
    }
}

impl Drop for RestorationHandler {
    fn drop(&mut self) {
        // SAFETY: owned, released once.
        unsafe { sys::handoff_restoration_handler_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for RestorationHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestorationHandler").finish_non_exhaustive()
    }
}
