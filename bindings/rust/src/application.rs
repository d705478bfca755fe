// SPDX-License-Identifier: MIT OR Apache-2.0
//! Applications: the app's side of Handoff, its delegate and its main loop.

use std::cell::{Ref, RefCell, RefMut};
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::activity::{Activity, ActivityRef};
use crate::callback::guard;
use crate::error::{check, Error, ErrorCode, Result};
use crate::manifest::Manifest;
use crate::remote::RemoteActivity;
use crate::renamed;
use crate::responder::{drain_deferred_frees, RestorationHandler};
use crate::strings::{borrowed, c_string, owned};
use crate::sys;

/// The application's Handoff callbacks (Apple: the application delegate's
/// user-activity methods, named as Apple names them; the same names as the
/// C fields and the Python methods: README, "Delegate methods"). Every
/// method has a default that does what the library does for a NULL
/// callback.
///
/// All run on the application's main thread, inside
/// [`Application::dispatch`] or [`Application::run`]. For each
/// `will_continue_user_activity`, exactly one of `continue_user_activity` or
/// `did_fail_to_continue_user_activity` follows.
///
/// A panic in a method is caught (it never reaches the library), reported
/// through [`crate::set_callback_panic_hook`], and the library gets the
/// method's default result: `false` for `will_continue_user_activity` and
/// `continue_user_activity` (whose restoration handler is then released),
/// nothing for the others. The same holds when the delegate is borrowed
/// elsewhere ([`Application::delegate`]) while it is called.
pub trait ApplicationDelegate: 'static {
    /// Set to `true` when you implement [`open_webpage`](Self::open_webpage).
    /// When `false` (the default) the library opens web-only activities
    /// itself, with `xdg-open` when it is installed.
    const OPENS_WEBPAGES: bool = false;

    /// The person chose to continue an activity of this type and its
    /// payload is on its way (Apple:
    /// `application(_:willContinueUserActivityWithType:)`). Return `true`
    /// if the app shows its own progress. Default: `false` (through the
    /// deprecated 0.1.0 name [`will_continue`](Self::will_continue), which
    /// an app may still implement until it is removed).
    #[allow(deprecated)] // the old name, called on purpose
    fn will_continue_user_activity(&mut self, app: &ApplicationRef, activity_type: &str) -> bool {
        renamed::forward(
            "ApplicationDelegate::will_continue",
            "will_continue_user_activity",
            || self.will_continue(app, activity_type),
        )
    }

    /// The activity arrived (Apple:
    /// `application(_:continue:restorationHandler:)`). Restore it through
    /// `handler`, now or later
    /// (keep the handler; it restores at most once, on the main thread).
    /// Return `true` if the app handled the activity: the sender then hears
    /// it was continued. Default: `false` (the handler is dropped).
    fn continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        let _ = (app, activity, handler);
        false
    }

    /// The activity could not be continued (Apple:
    /// `application(_:didFailToContinueUserActivityWithType:error:)`):
    /// `error` is one of Apple's codes 4608–4611 with the library's message.
    /// Default: nothing (through the deprecated 0.1.0 name
    /// [`did_fail_to_continue`](Self::did_fail_to_continue)).
    #[allow(deprecated)] // the old name, called on purpose
    fn did_fail_to_continue_user_activity(
        &mut self,
        app: &ApplicationRef,
        activity_type: &str,
        error: Error,
    ) {
        renamed::forward(
            "ApplicationDelegate::did_fail_to_continue",
            "did_fail_to_continue_user_activity",
            || self.did_fail_to_continue(app, activity_type, error),
        )
    }

    /// A save updated an activity the app holds (Apple:
    /// `application(_:didUpdate:)`). Default: nothing (through the
    /// deprecated 0.1.0 name [`did_update`](Self::did_update)).
    #[allow(deprecated)] // the old name, called on purpose
    fn did_update_user_activity(&mut self, app: &ApplicationRef, activity: &ActivityRef) {
        renamed::forward(
            "ApplicationDelegate::did_update",
            "did_update_user_activity",
            || self.did_update(app, activity),
        )
    }

    /// 0.1.0's name of
    /// [`will_continue_user_activity`](Self::will_continue_user_activity),
    /// called only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `will_continue_user_activity` (Apple's name); see docs/MIGRATION.md"
    )]
    fn will_continue(&mut self, app: &ApplicationRef, activity_type: &str) -> bool {
        let _ = (app, activity_type);
        renamed::old_default_ran();
        false
    }

    /// 0.1.0's name of
    /// [`did_fail_to_continue_user_activity`](Self::did_fail_to_continue_user_activity),
    /// called only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `did_fail_to_continue_user_activity` (Apple's name); see docs/MIGRATION.md"
    )]
    fn did_fail_to_continue(&mut self, app: &ApplicationRef, activity_type: &str, error: Error) {
        let _ = (app, activity_type, error);
        renamed::old_default_ran();
    }

    /// 0.1.0's name of
    /// [`did_update_user_activity`](Self::did_update_user_activity), called
    /// only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `did_update_user_activity` (Apple's name); see docs/MIGRATION.md"
    )]
    fn did_update(&mut self, app: &ApplicationRef, activity: &ActivityRef) {
        let _ = (app, activity);
        renamed::old_default_ran();
    }

    /// Another device offers an activity this app can continue (or open as
    /// a web page, [`RemoteActivity::is_web_only`]): show a Handoff
    /// indicator; continue it with [`ApplicationRef::continue_activity`].
    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        let _ = (app, remote);
    }

    /// An offered activity's details changed.
    fn activity_updated(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        let _ = (app, remote);
    }

    /// An offered activity is gone: hide its indicator.
    fn activity_withdrawn(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        let _ = (app, remote);
    }

    /// The person continued a web-only activity. Called only when
    /// [`OPENS_WEBPAGES`](Self::OPENS_WEBPAGES) is `true`.
    fn open_webpage(&mut self, app: &ApplicationRef, url: &str, remote: &RemoteActivity) {
        let _ = (app, url, remote);
    }
}

/// No callbacks: an application that only offers activities.
impl ApplicationDelegate for () {}

/// How [`Application::run`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// [`ApplicationRef::stop`] or a [`Stopper`] ended it.
    Stopped,
    /// The time given ran out.
    TimedOut,
}

/// The app's side of Handoff (one per process): its manifest, delegate,
/// current activity and responders, and the queue of callbacks the
/// library's threads hand to the app's main thread.
///
/// The thread that creates it is its *main thread*: every callback runs
/// there, inside [`dispatch`](Self::dispatch) or [`run`](Self::run), which
/// the library refuses elsewhere, and it must be freed there. So an
/// `Application` is neither `Send` nor `Sync`. To end a `run` from another
/// thread, use a [`Stopper`].
///
/// Dropping it withdraws what it advertised and drops queued callbacks.
/// Methods that do not drive the loop are on [`ApplicationRef`], which it
/// dereferences to and which callbacks receive.
///
/// ```compile_fail,E0277
/// // An Application stays on its main thread.
/// let app = handoff::Application::new(&handoff::Manifest::new("com.example.a", "TEAM").unwrap(), ()).unwrap();
/// std::thread::spawn(move || app.dispatch());
/// ```
pub struct Application<D: ApplicationDelegate = ()> {
    raw: NonNull<ApplicationRef>,
    // Where `user_data` points: a leaked Box (a raw pointer, so moving the
    // Application does not retag it), reclaimed after the application is
    // freed.
    delegate: NonNull<RefCell<D>>,
    _owns_delegate: PhantomData<Box<RefCell<D>>>,
    stop_target: Arc<Mutex<StopTarget>>,
}

/// An application, borrowed: what [`Application`] dereferences to and what
/// callbacks receive. Not `Sync`: it stays on the main thread.
pub struct ApplicationRef {
    _opaque: sys::handoff_application,
}

impl<D: ApplicationDelegate> Application<D> {
    /// Creates the application on the calling thread, which becomes its
    /// main thread. The manifest is copied. Until
    /// [`ApplicationRef::start_continuity`], nothing is advertised and
    /// continuing fails with [`ErrorCode::ConnectionUnavailable`].
    pub fn new(manifest: &Manifest, delegate: D) -> Result<Application<D>> {
        let callbacks = sys::handoff_application_delegate {
            will_continue_user_activity: Some(will_continue_user_activity::<D>),
            continue_user_activity: Some(continue_user_activity::<D>),
            did_fail_to_continue_user_activity: Some(did_fail_to_continue_user_activity::<D>),
            did_update_user_activity: Some(did_update_user_activity::<D>),
            activity_available: Some(activity_available::<D>),
            activity_updated: Some(activity_updated::<D>),
            activity_withdrawn: Some(activity_withdrawn::<D>),
            open_webpage: if D::OPENS_WEBPAGES {
                Some(open_webpage::<D>)
            } else {
                None
            },
            ..sys::HANDOFF_APPLICATION_DELEGATE_INIT
        };
        let delegate = NonNull::from(Box::leak(Box::new(RefCell::new(delegate))));
        let user_data = delegate.as_ptr().cast::<c_void>();
        // No destroy: the header does not say on which thread it would run,
        // and `D` need not be `Send`. This struct owns the delegate and
        // drops it on the main thread after the application is freed, when
        // no callback can run any more.
        // SAFETY: a live manifest; the struct is copied; `user_data` lives
        // as long as the application (see `Drop`).
        let raw =
            unsafe { sys::handoff_application_new(manifest.as_ptr(), &callbacks, user_data, None) };
        let Some(raw) = NonNull::new(raw.cast::<ApplicationRef>()) else {
            let error = Error::last();
            // SAFETY: leaked above, never given to the library (it failed).
            drop(unsafe { Box::from_raw(delegate.as_ptr()) });
            return Err(error);
        };
        let stop_target = Arc::new(Mutex::new(StopTarget(raw.as_ptr().cast())));
        Ok(Application {
            raw,
            delegate,
            _owns_delegate: PhantomData,
            stop_target,
        })
    }

    /// Runs the queued callbacks and due timers, in order, on this thread
    /// (the main thread); callbacks queued meanwhile wait for the next
    /// call. Call it when [`fd`](ApplicationRef::fd) is readable (a due
    /// timer makes it readable too: no timeout is needed).
    pub fn dispatch(&self) -> Result<()> {
        // SAFETY: a live application.
        let status = unsafe { sys::handoff_application_dispatch(self.as_ptr()) };
        drain_deferred_frees();
        check(status)
    }

    /// Polls and dispatches until [`ApplicationRef::stop`] (or a
    /// [`Stopper`]) or until `timeout` passes (`None`: no limit).
    pub fn run(&self, timeout: Option<Duration>) -> Result<RunOutcome> {
        let ms = timeout.map_or(-1, |t| c_int::try_from(t.as_millis()).unwrap_or(c_int::MAX));
        // SAFETY: a live application.
        let status = unsafe { sys::handoff_application_run(self.as_ptr(), ms) };
        drain_deferred_frees();
        match check(status) {
            Ok(()) => Ok(RunOutcome::Stopped),
            Err(e) if e.code() == ErrorCode::TimedOut => Ok(RunOutcome::TimedOut),
            Err(e) => Err(e),
        }
    }

    /// The delegate, borrowed. Do not hold it across `dispatch` or `run`:
    /// a callback finding it borrowed is reported and skipped.
    pub fn delegate(&self) -> Ref<'_, D> {
        self.delegate_cell().borrow()
    }

    /// The delegate, borrowed mutably; as [`Application::delegate`].
    pub fn delegate_mut(&self) -> RefMut<'_, D> {
        self.delegate_cell().borrow_mut()
    }

    fn delegate_cell(&self) -> &RefCell<D> {
        // SAFETY: alive until `drop`; only shared references are made.
        unsafe { self.delegate.as_ref() }
    }

    /// A handle that ends [`run`](Self::run) from any thread, and outlives
    /// the application harmlessly.
    pub fn stopper(&self) -> Stopper {
        Stopper {
            target: Arc::clone(&self.stop_target),
        }
    }
}

impl<D: ApplicationDelegate> Drop for Application<D> {
    fn drop(&mut self) {
        // Responders dropped inside their own callbacks are freed first.
        drain_deferred_frees();
        lock(&self.stop_target).0 = ptr::null_mut();
        // SAFETY: owned, freed once, on the main thread (the type is not
        // Send) and not inside its own callbacks (they borrow `self`
        // through `dispatch`/`run`).
        unsafe { sys::handoff_application_free(self.as_ptr()) }
        // No callback can run now: reclaim the delegate.
        // SAFETY: leaked in `new`, reclaimed once.
        drop(unsafe { Box::from_raw(self.delegate.as_ptr()) });
    }
}

impl<D: ApplicationDelegate> Deref for Application<D> {
    type Target = ApplicationRef;
    fn deref(&self) -> &ApplicationRef {
        // SAFETY: the application is alive while `self` is.
        unsafe { self.raw.as_ref() }
    }
}

impl<D: ApplicationDelegate> AsFd for Application<D> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd()
    }
}

impl<D: ApplicationDelegate> AsRawFd for Application<D> {
    fn as_raw_fd(&self) -> RawFd {
        self.fd().as_raw_fd()
    }
}

impl<D: ApplicationDelegate> fmt::Debug for Application<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl ApplicationRef {
    /// Borrows an application a callback lends.
    ///
    /// # Safety
    /// `p` is a live application for `'a`, used on its main thread.
    pub unsafe fn from_ptr<'a>(p: *mut sys::handoff_application) -> &'a ApplicationRef {
        &*p.cast::<ApplicationRef>()
    }

    /// The raw handle, for the `sys` functions. Still owned by Rust.
    pub fn as_ptr(&self) -> *mut sys::handoff_application {
        self as *const ApplicationRef as *mut sys::handoff_application
    }

    /// The pollable descriptor: readable exactly while callbacks are
    /// queued or a timer is due; then call [`Application::dispatch`]. It is
    /// enough on its own (the library's timers make it readable: a loop
    /// needs no timeout of its own); watch it level-triggered. Add it to
    /// your main loop (poll, epoll, GLib, an async reactor). Owned by the
    /// application: never close or read it.
    pub fn fd(&self) -> BorrowedFd<'_> {
        // SAFETY: a live application.
        let fd = unsafe { sys::handoff_application_get_fd(self.as_ptr()) };
        assert!(fd >= 0, "a live application has a descriptor");
        // SAFETY: open while the application lives, which the borrow spans.
        unsafe { BorrowedFd::borrow_raw(fd) }
    }

    /// How long until dispatch has work: zero when callbacks are queued or
    /// a timer is due, `None` when nothing is scheduled. Never needed to
    /// wait on [`fd`](Self::fd); for loops that want to know ahead.
    pub fn next_timeout(&self) -> Option<Duration> {
        // SAFETY: a live application.
        let ms = unsafe { sys::handoff_application_next_timeout(self.as_ptr()) };
        u64::try_from(ms).ok().map(Duration::from_millis)
    }

    /// Ends a running [`Application::run`]; asked while none runs, it ends
    /// the next one at once. Callbacks may call it.
    pub fn stop(&self) -> Result<()> {
        // SAFETY: a live application.
        check(unsafe { sys::handoff_application_stop(self.as_ptr()) })
    }

    /// Makes `activity` the current one (Apple: `becomeCurrent`): offered
    /// to the person's other devices while eligible and not expired. The
    /// application keeps a reference.
    /// [`ErrorCode::InvalidState`] for an invalidated activity.
    pub fn become_current(&self, activity: &ActivityRef) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::handoff_application_become_current(self.as_ptr(), activity.as_ptr()) })
    }

    /// Stops offering `activity` if it is current (Apple: `resignCurrent`).
    pub fn resign_current(&self, activity: &ActivityRef) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::handoff_application_resign_current(self.as_ptr(), activity.as_ptr()) })
    }

    /// The current activity, if any.
    pub fn current_activity(&self) -> Option<Activity> {
        // SAFETY: a live application; we own the reference returned.
        unsafe {
            Activity::from_owned(sys::handoff_application_copy_current_activity(
                self.as_ptr(),
            ))
        }
        .ok()
    }

    /// Continues the activity another device offers, by its
    /// [`RemoteActivity::id`]: `will_continue_user_activity` follows at the next
    /// dispatch, then `continue_user_activity` or `did_fail_to_continue_user_activity`.
    /// [`ErrorCode::NotFound`] when no device offers it any more.
    pub fn continue_activity(&self, activity_id: &str) -> Result<()> {
        let id = c_string(activity_id, "the activity id")?;
        // SAFETY: a live application and a string valid for the call.
        check(unsafe { sys::handoff_application_continue(self.as_ptr(), id.as_ptr()) })
    }

    /// Deletes this app's saved activities with these persistent
    /// identifiers from the device's history (C:
    /// `handoff_application_delete_saved_activities`; Apple's
    /// `deleteSavedUserActivities(withPersistentIdentifiers:)`;
    /// docs/history.md). `done` runs once, on the main thread (in
    /// dispatch), after the deletion: `Ok(())`, or the error
    /// ([`ErrorCode::ConnectionUnavailable`] when no agent keeps a history
    /// for this app). [`ErrorCode::InvalidArgument`] at once, and `done`
    /// dropped uncalled, for more than 512 ids or one empty or over 4096 bytes.
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
        let context = completion_context(done);
        // SAFETY: a live application, `pointers` valid for the call; the
        // context is reclaimed once, by the trampoline or below.
        let status = unsafe {
            sys::handoff_application_delete_saved_activities(
                self.as_ptr(),
                pointers.as_ptr(),
                pointers.len(),
                Some(completion_trampoline),
                context,
            )
        };
        finish_request(status, context)
    }

    /// Deletes every saved activity of this app from the device's history
    /// (C: `handoff_application_delete_all_saved_activities`; Apple's
    /// `deleteAllSavedUserActivities`); `done` as for
    /// [`delete_saved_activities`](Self::delete_saved_activities).
    pub fn delete_all_saved_activities<F: FnOnce(Result<()>) + 'static>(
        &self,
        done: F,
    ) -> Result<()> {
        let context = completion_context(done);
        // SAFETY: as above.
        let status = unsafe {
            sys::handoff_application_delete_all_saved_activities(
                self.as_ptr(),
                Some(completion_trampoline),
                context,
            )
        };
        finish_request(status, context)
    }

    /// The activation token of the continuation whose callback runs now
    /// (C: `handoff_application_get_activation_token`), or `None`: read it
    /// in `will_continue_user_activity`, `continue_user_activity`,
    /// `did_fail_to_continue_user_activity` or `open_webpage`, on the main
    /// thread, to raise the window (Wayland xdg-activation, X11 startup
    /// id; README, "Raising your window"). Present when the person chose
    /// the activity in the agent's notification and the notification
    /// server gave a token. An owned copy: the C string is lent only for
    /// the callback.
    pub fn activation_token(&self) -> Option<String> {
        // SAFETY: a live application; the lent string is copied at once.
        unsafe { owned(sys::handoff_application_get_activation_token(self.as_ptr())) }
    }
}

impl AsFd for ApplicationRef {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd()
    }
}

impl AsRawFd for ApplicationRef {
    fn as_raw_fd(&self) -> RawFd {
        self.fd().as_raw_fd()
    }
}

impl fmt::Debug for ApplicationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Application")
            .field("fd", &self.fd().as_raw_fd())
            .finish_non_exhaustive()
    }
}

// ------------------------------------------------------------- Stopper

/// Ends an application's [`Application::run`] from any thread (a signal
/// thread, a worker). Cloneable; once the application is dropped,
/// [`stop`](Self::stop) does nothing and returns `false`.
#[derive(Clone)]
pub struct Stopper {
    target: Arc<Mutex<StopTarget>>,
}

/// The application a `Stopper` stops; NULL once it is freed.
struct StopTarget(*mut sys::handoff_application);

// SAFETY: handoff_application_stop may be called from any thread, and the
// pointer is only used under the mutex, which `Application::drop` takes to
// clear it before freeing the application.
unsafe impl Send for StopTarget {}

fn lock(target: &Mutex<StopTarget>) -> std::sync::MutexGuard<'_, StopTarget> {
    target
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Stopper {
    /// Ends the running [`Application::run`] (or the next one). `false`
    /// when the application is gone.
    pub fn stop(&self) -> bool {
        let target = lock(&self.target);
        if target.0.is_null() {
            return false;
        }
        // SAFETY: not freed while we hold the lock; any thread may stop.
        unsafe { sys::handoff_application_stop(target.0) == sys::HANDOFF_OK as c_int }
    }
}

impl fmt::Debug for Stopper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stopper")
            .field("application_alive", &!lock(&self.target).0.is_null())
            .finish()
    }
}

// --------------------------------------------------------- trampolines

/// The delegate behind `user_data` and the lent application.
///
/// # Safety
/// Called from a delegate trampoline: `user_data` is the `RefCell<D>` of a
/// live `Application<D>` and `app` that application.
unsafe fn parts<'a, D>(
    app: *mut sys::handoff_application,
    user_data: *mut c_void,
) -> (&'a ApplicationRef, &'a RefCell<D>) {
    (
        ApplicationRef::from_ptr(app),
        &*user_data.cast_const().cast::<RefCell<D>>(),
    )
}

unsafe extern "C" fn will_continue_user_activity<D: ApplicationDelegate>(
    app: *mut sys::handoff_application,
    activity_type: *const c_char,
    user_data: *mut c_void,
) -> c_int {
    guard(
        "ApplicationDelegate::will_continue_user_activity",
        "returned false",
        0,
        || {
            // SAFETY: the library calls with our user_data and live arguments.
            let (app, delegate) = unsafe { parts::<D>(app, user_data) };
            let activity_type = unsafe { borrowed(activity_type) }.unwrap_or("");
            c_int::from(
                delegate
                    .borrow_mut()
                    .will_continue_user_activity(app, activity_type),
            )
        },
    )
}

unsafe extern "C" fn continue_user_activity<D: ApplicationDelegate>(
    app: *mut sys::handoff_application,
    activity: *mut sys::handoff_activity,
    handler: *mut sys::handoff_restoration_handler,
    user_data: *mut c_void,
) -> c_int {
    guard(
        "ApplicationDelegate::continue_user_activity",
        "returned false, released the handler",
        0,
        || {
            // SAFETY: the handler is the callee's (+1); wrapping it first means
            // a panic below still releases it, as the trait promises.
            let handler = unsafe { RestorationHandler::from_owned(handler) };
            let (app, delegate) = unsafe { parts::<D>(app, user_data) };
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            let mut delegate = delegate.borrow_mut();
            match handler {
                Some(handler) => {
                    c_int::from(delegate.continue_user_activity(app, activity, handler))
                }
                None => 0,
            }
        },
    )
}

unsafe extern "C" fn did_fail_to_continue_user_activity<D: ApplicationDelegate>(
    app: *mut sys::handoff_application,
    activity_type: *const c_char,
    error: c_int,
    message: *const c_char,
    user_data: *mut c_void,
) {
    guard(
        "ApplicationDelegate::did_fail_to_continue_user_activity",
        "ignored",
        (),
        || {
            // SAFETY: as in `will_continue_user_activity`.
            let (app, delegate) = unsafe { parts::<D>(app, user_data) };
            let activity_type = unsafe { borrowed(activity_type) }.unwrap_or("");
            let error = unsafe { Error::reported(error, message) };
            delegate
                .borrow_mut()
                .did_fail_to_continue_user_activity(app, activity_type, error);
        },
    )
}

unsafe extern "C" fn did_update_user_activity<D: ApplicationDelegate>(
    app: *mut sys::handoff_application,
    activity: *mut sys::handoff_activity,
    user_data: *mut c_void,
) {
    guard(
        "ApplicationDelegate::did_update_user_activity",
        "ignored",
        (),
        || {
            // SAFETY: as in `will_continue_user_activity`.
            let (app, delegate) = unsafe { parts::<D>(app, user_data) };
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            delegate
                .borrow_mut()
                .did_update_user_activity(app, activity);
        },
    )
}

/// The three availability callbacks share one shape.
macro_rules! remote_trampoline {
    ($name:ident, $method:ident, $label:literal) => {
        unsafe extern "C" fn $name<D: ApplicationDelegate>(
            app: *mut sys::handoff_application,
            remote: *const sys::handoff_remote_activity,
            user_data: *mut c_void,
        ) {
            guard($label, "ignored", (), || {
                // SAFETY: as in `will_continue_user_activity`; the remote activity is
                // lent for the call.
                let (app, delegate) = unsafe { parts::<D>(app, user_data) };
                let remote = unsafe { RemoteActivity::from_ptr(remote) };
                delegate.borrow_mut().$method(app, remote);
            })
        }
    };
}

remote_trampoline!(
    activity_available,
    activity_available,
    "ApplicationDelegate::activity_available"
);
remote_trampoline!(
    activity_updated,
    activity_updated,
    "ApplicationDelegate::activity_updated"
);
remote_trampoline!(
    activity_withdrawn,
    activity_withdrawn,
    "ApplicationDelegate::activity_withdrawn"
);

unsafe extern "C" fn open_webpage<D: ApplicationDelegate>(
    app: *mut sys::handoff_application,
    url: *const c_char,
    remote: *const sys::handoff_remote_activity,
    user_data: *mut c_void,
) {
    guard("ApplicationDelegate::open_webpage", "ignored", (), || {
        // SAFETY: as in `will_continue_user_activity`.
        let (app, delegate) = unsafe { parts::<D>(app, user_data) };
        let url = unsafe { borrowed(url) }.unwrap_or("");
        let remote = unsafe { RemoteActivity::from_ptr(remote) };
        delegate.borrow_mut().open_webpage(app, url, remote);
    })
}

/// A deletion's `done`, boxed for C as its context.
type Completion = Box<dyn FnOnce(Result<()>)>;

fn completion_context<F: FnOnce(Result<()>) + 'static>(done: F) -> *mut c_void {
    Box::into_raw(Box::new(Box::new(done) as Completion)) as *mut c_void
}

/// A request C refused at once never calls back: its `done` is dropped here.
fn finish_request(status: c_int, context: *mut c_void) -> Result<()> {
    let result = check(status);
    if result.is_err() {
        // SAFETY: made by completion_context and not handed to C's callback.
        drop(unsafe { Box::from_raw(context as *mut Completion) });
    }
    result
}

unsafe extern "C" fn completion_trampoline(context: *mut c_void, status: c_int) {
    // SAFETY: made by completion_context; C calls this exactly once.
    let done = unsafe { Box::from_raw(context as *mut Completion) };
    let result = check(status);
    guard("delete_saved_activities' done", "ignored", (), move || {
        done(result)
    });
}
