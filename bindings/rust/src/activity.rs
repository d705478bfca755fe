// SPDX-License-Identifier: MIT OR Apache-2.0
//! User activities (Apple: `NSUserActivity`): what the person is doing, so
//! another device can continue it.

use std::borrow::Borrow;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::ops::Deref;
use std::os::unix::net::UnixStream;
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex, TryLockError};

use crate::callback::guard;
use crate::error::{check, Error, ErrorCode, Result};
use crate::renamed;
use crate::streams::user_activity_did_receive_stream;
use crate::strings::{borrow_lock, borrowed, c_string, c_string_opt, owned, ptr_or_null};
use crate::sys;
use crate::value::{take_buffer, Date, RawValue, UserInfo};

/// An owned reference to a user activity. Cloning takes another reference
/// to the same activity (`handoff_activity_ref`); dropping releases one.
/// Every method is on [`ActivityRef`], which this dereferences to.
///
/// One activity is always one object: the activity a callback lends is the
/// one the host created (`a == b` compares identity).
pub struct Activity {
    raw: NonNull<ActivityRef>,
}

/// A user activity, borrowed: what callbacks lend (`&ActivityRef`) and what
/// [`Activity`] dereferences to. `to_owned()` ([`ToOwned`]) keeps one.
///
/// Property setters take `&self`: an activity is shared with the library
/// (it advertises and saves it) and may be shared between threads, and the
/// library synchronizes its state. Getters return copies.
pub struct ActivityRef {
    _opaque: sys::handoff_activity,
}

// SAFETY: handoff.h lets any thread call any activity function and use a
// handle from several threads; what is not thread-safe is a borrowed string
// after another thread changes the property, and this crate copies every
// such string under `strings::borrow_lock`. The delegate this crate
// installs is `Send` (`ActivityDelegate: Send`) and called under a mutex.
unsafe impl Send for Activity {}
// SAFETY: as for `Send`: `&Activity` only reaches thread-safe functions.
unsafe impl Sync for Activity {}
// SAFETY: as for `Activity`; an `&ActivityRef` lent to a callback is only
// valid for the callback, which the borrow checker enforces.
unsafe impl Sync for ActivityRef {}

/// A boolean property of an activity (`handoff_activity_flag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActivityFlag {
    /// Advertised to the person's other devices while current (default on).
    EligibleForHandoff,
    /// Kept in this device's history through the agent while current and
    /// after each save: found from the desktop's search and `handoff
    /// history`, continued from there (docs/history.md; default off).
    EligibleForSearch,
    /// Stored and sent, as Apple's; nothing on Linux uses it (no public index).
    EligibleForPublicIndexing,
    /// Stored and sent, as Apple's; nothing on Linux uses it (no prediction).
    EligibleForPrediction,
    /// Asks for a lazy, coalesced save before the activity is next sent.
    NeedsSave,
    /// The receiver may open continuation streams to this app (default off).
    SupportsContinuationStreams,
}

impl ActivityFlag {
    fn raw(self) -> sys::handoff_activity_flag {
        match self {
            ActivityFlag::EligibleForHandoff => sys::HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF,
            ActivityFlag::EligibleForSearch => sys::HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH,
            ActivityFlag::EligibleForPublicIndexing => {
                sys::HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING
            }
            ActivityFlag::EligibleForPrediction => sys::HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION,
            ActivityFlag::NeedsSave => sys::HANDOFF_ACTIVITY_NEEDS_SAVE,
            ActivityFlag::SupportsContinuationStreams => {
                sys::HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS
            }
        }
    }
}

impl Activity {
    /// A new activity of a type with a fresh unique id, eligible for
    /// Handoff, everything else empty. A type is any 1–255-byte string
    /// without control characters, matched byte for byte: reverse-DNS
    /// (`"com.example.app.edit"`), an intent class name
    /// (`"INSendMessageIntent"`) or a short name (`"ReadArticle"`).
    /// [`crate::ErrorCode::InvalidValue`] for a type that is empty, longer
    /// than 255 bytes or holds a control character.
    pub fn new(activity_type: &str) -> Result<Activity> {
        let t = c_string(activity_type, "the activity type")?;
        // SAFETY: a string valid for the call; we own the result.
        unsafe { Activity::from_owned(sys::handoff_activity_new(t.as_ptr())) }
    }

    /// The activity of a payload (what [`ActivityRef::encode`] makes); it
    /// keeps the sender's id. [`crate::ErrorCode::MalformedData`] for bytes
    /// that are not one; hostile input is safe to pass.
    pub fn decode(bytes: &[u8]) -> Result<Activity> {
        // SAFETY: `bytes` is valid for its length; we own the result.
        unsafe {
            Activity::from_owned(sys::handoff_activity_decode(
                bytes.as_ptr().cast::<c_void>(),
                bytes.len(),
            ))
        }
    }

    /// Takes ownership of one reference; NULL is the thread's last error.
    ///
    /// # Safety
    /// `p` is NULL or an activity reference the caller owns.
    pub unsafe fn from_owned(p: *mut sys::handoff_activity) -> Result<Activity> {
        NonNull::new(p.cast::<ActivityRef>())
            .map(|raw| Activity { raw })
            .ok_or_else(Error::last)
    }

    /// Gives up ownership of the reference without releasing it.
    pub fn into_raw(self) -> *mut sys::handoff_activity {
        let p = self.as_ptr();
        std::mem::forget(self);
        p
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        // SAFETY: we own one reference and release it once.
        unsafe { sys::handoff_activity_free(self.as_ptr()) }
    }
}

impl Clone for Activity {
    fn clone(&self) -> Activity {
        (**self).to_owned()
    }
}

/// `activity_ref.to_owned()` keeps a lent activity: another reference.
impl ToOwned for ActivityRef {
    type Owned = Activity;
    fn to_owned(&self) -> Activity {
        // SAFETY: a live activity; `ref` returns it with one more reference.
        let p = unsafe { sys::handoff_activity_ref(self.as_ptr()) };
        Activity {
            raw: NonNull::new(p.cast::<ActivityRef>())
                .expect("handoff_activity_ref of a live activity"),
        }
    }
}

impl Borrow<ActivityRef> for Activity {
    fn borrow(&self) -> &ActivityRef {
        self
    }
}

impl Deref for Activity {
    type Target = ActivityRef;
    fn deref(&self) -> &ActivityRef {
        // SAFETY: the reference we own keeps the activity alive.
        unsafe { self.raw.as_ref() }
    }
}

impl PartialEq for ActivityRef {
    /// Identity: the same activity.
    fn eq(&self, other: &ActivityRef) -> bool {
        ptr::eq(self, other)
    }
}

impl Eq for ActivityRef {}

impl PartialEq for Activity {
    fn eq(&self, other: &Activity) -> bool {
        **self == **other
    }
}

impl Eq for Activity {}

impl fmt::Debug for ActivityRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Activity")
            .field("type", &self.activity_type())
            .field("id", &self.id())
            .field("title", &self.title())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Activity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

type Getter = unsafe extern "C" fn(*const sys::handoff_activity) -> *const c_char;
type Setter = unsafe extern "C" fn(*mut sys::handoff_activity, *const c_char) -> c_int;
type ListGetter = unsafe extern "C" fn(*const sys::handoff_activity, usize) -> *const c_char;
type ListSetter =
    unsafe extern "C" fn(*mut sys::handoff_activity, *const *const c_char, usize) -> c_int;

impl ActivityRef {
    /// Borrows an activity a callback lends.
    ///
    /// # Safety
    /// `p` is a live activity for `'a`.
    pub unsafe fn from_ptr<'a>(p: *mut sys::handoff_activity) -> &'a ActivityRef {
        &*p.cast::<ActivityRef>()
    }

    /// The raw handle, for the `sys` functions. Still owned by Rust.
    pub fn as_ptr(&self) -> *mut sys::handoff_activity {
        self as *const ActivityRef as *mut sys::handoff_activity
    }

    /// The activity type, as given to [`Activity::new`].
    pub fn activity_type(&self) -> &str {
        // SAFETY: valid until the activity is freed; `&self` keeps it alive
        // and the type never changes.
        unsafe { borrowed(sys::handoff_activity_get_type(self.as_ptr())) }.unwrap_or("")
    }

    /// The unique activity id (an uppercase UUID string).
    pub fn id(&self) -> &str {
        // SAFETY: as for `activity_type`: the id never changes.
        unsafe { borrowed(sys::handoff_activity_get_id(self.as_ptr())) }.unwrap_or("")
    }

    fn get(&self, getter: Getter) -> Option<String> {
        let _lock = borrow_lock();
        // SAFETY: a live activity; the string is copied under the lock.
        unsafe { owned(getter(self.as_ptr())) }
    }

    fn set(&self, setter: Setter, value: Option<&str>, what: &str) -> Result<()> {
        let value = c_string_opt(value, what)?;
        // SAFETY: a live activity and a string valid for the call.
        check(unsafe { setter(self.as_ptr(), ptr_or_null(&value)) })
    }

    /// The title shown on the other device.
    pub fn title(&self) -> Option<String> {
        self.get(sys::handoff_activity_get_title)
    }

    /// Sets the title (`None` clears it).
    pub fn set_title(&self, title: Option<&str>) -> Result<()> {
        self.set(sys::handoff_activity_set_title, title, "the title")
    }

    /// The web page opened in a browser when no app can continue.
    pub fn webpage_url(&self) -> Option<String> {
        self.get(sys::handoff_activity_get_webpage_url)
    }

    /// Sets the web page URL, http or https ([`crate::ErrorCode::InvalidValue`]
    /// otherwise); `None` clears it.
    pub fn set_webpage_url(&self, url: Option<&str>) -> Result<()> {
        self.set(
            sys::handoff_activity_set_webpage_url,
            url,
            "the web page URL",
        )
    }

    /// The referring web page.
    pub fn referrer_url(&self) -> Option<String> {
        self.get(sys::handoff_activity_get_referrer_url)
    }

    /// Sets the referring web page, http or https; `None` clears it.
    pub fn set_referrer_url(&self, url: Option<&str>) -> Result<()> {
        self.set(
            sys::handoff_activity_set_referrer_url,
            url,
            "the referrer URL",
        )
    }

    /// A free-form identifier of the content.
    pub fn target_content_identifier(&self) -> Option<String> {
        self.get(sys::handoff_activity_get_target_content_identifier)
    }

    /// Sets the target content identifier; `None` clears it.
    pub fn set_target_content_identifier(&self, identifier: Option<&str>) -> Result<()> {
        self.set(
            sys::handoff_activity_set_target_content_identifier,
            identifier,
            "the identifier",
        )
    }

    /// A free-form persistent identifier.
    pub fn persistent_identifier(&self) -> Option<String> {
        self.get(sys::handoff_activity_get_persistent_identifier)
    }

    /// Sets the persistent identifier; `None` clears it.
    pub fn set_persistent_identifier(&self, identifier: Option<&str>) -> Result<()> {
        self.set(
            sys::handoff_activity_set_persistent_identifier,
            identifier,
            "the identifier",
        )
    }

    /// When the activity stops being offered, if ever.
    pub fn expiration_date(&self) -> Option<Date> {
        let mut seconds = 0f64;
        // SAFETY: a live activity and an out-parameter.
        let status =
            unsafe { sys::handoff_activity_get_expiration_date(self.as_ptr(), &mut seconds) };
        (status == sys::HANDOFF_OK as c_int).then(|| Date::from_unix_seconds(seconds))
    }

    /// Sets (`Some`) or clears (`None`) the expiration date;
    /// [`crate::ErrorCode::InvalidValue`] when not finite.
    pub fn set_expiration_date(&self, date: Option<Date>) -> Result<()> {
        // SAFETY: a live activity.
        check(unsafe {
            match date {
                Some(d) => {
                    sys::handoff_activity_set_expiration_date(self.as_ptr(), d.unix_seconds())
                }
                None => sys::handoff_activity_clear_expiration_date(self.as_ptr()),
            }
        })
    }

    /// The value of a flag.
    pub fn flag(&self, flag: ActivityFlag) -> bool {
        let mut value: c_int = 0;
        // SAFETY: a live activity, a known flag and an out-parameter.
        let status =
            unsafe { sys::handoff_activity_get_flag(self.as_ptr(), flag.raw(), &mut value) };
        status == sys::HANDOFF_OK as c_int && value != 0
    }

    /// Sets or clears a flag.
    pub fn set_flag(&self, flag: ActivityFlag, on: bool) -> Result<()> {
        // SAFETY: a live activity and a known flag.
        check(unsafe { sys::handoff_activity_set_flag(self.as_ptr(), flag.raw(), c_int::from(on)) })
    }

    /// Asks for a lazy, coalesced save (Apple: `needsSave = true`): later,
    /// and right before the activity is sent, the responders holding it
    /// update it, then its delegate's [`ActivityDelegate::user_activity_will_save`] runs.
    pub fn set_needs_save(&self, on: bool) -> Result<()> {
        self.set_flag(ActivityFlag::NeedsSave, on)
    }

    /// Whether the activity is offered to other devices while current.
    pub fn is_eligible_for_handoff(&self) -> bool {
        self.flag(ActivityFlag::EligibleForHandoff)
    }

    /// Sets whether the activity is offered to other devices while current.
    pub fn set_eligible_for_handoff(&self, on: bool) -> Result<()> {
        self.set_flag(ActivityFlag::EligibleForHandoff, on)
    }

    fn list(
        &self,
        count: unsafe extern "C" fn(*const sys::handoff_activity) -> usize,
        at: ListGetter,
    ) -> Vec<String> {
        let _lock = borrow_lock();
        // SAFETY: a live activity; each string is copied under the lock.
        // Another thread may replace the list meanwhile: then `at` returns
        // NULL past its end and the copy stops there.
        unsafe {
            let n = count(self.as_ptr());
            (0..n).map_while(|i| owned(at(self.as_ptr(), i))).collect()
        }
    }

    fn set_list<S: AsRef<str>>(&self, setter: ListSetter, items: &[S], what: &str) -> Result<()> {
        let owned: Vec<CString> = items
            .iter()
            .map(|s| c_string(s.as_ref(), what))
            .collect::<Result<_>>()?;
        let pointers: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: `pointers` holds `len` strings valid for the call.
        check(unsafe { setter(self.as_ptr(), pointers.as_ptr(), pointers.len()) })
    }

    /// The keywords, in byte order of their UTF-8.
    pub fn keywords(&self) -> Vec<String> {
        self.list(
            sys::handoff_activity_keyword_count,
            sys::handoff_activity_keyword_at,
        )
    }

    /// Replaces the keywords (duplicates collapse).
    pub fn set_keywords<S: AsRef<str>>(&self, keywords: &[S]) -> Result<()> {
        self.set_list(sys::handoff_activity_set_keywords, keywords, "a keyword")
    }

    /// The keys a userInfo must hold for the activity to be handed off, in
    /// byte order of their UTF-8.
    pub fn required_user_info_keys(&self) -> Vec<String> {
        self.list(
            sys::handoff_activity_required_user_info_key_count,
            sys::handoff_activity_required_user_info_key_at,
        )
    }

    /// Replaces the required userInfo keys: the minimal set that makes the
    /// activity restorable; missing one, it is not handed off.
    pub fn set_required_user_info_keys<S: AsRef<str>>(&self, keys: &[S]) -> Result<()> {
        self.set_list(
            sys::handoff_activity_set_required_user_info_keys,
            keys,
            "a required key",
        )
    }

    /// The userInfo keys whose strings the history may index when the
    /// activity is eligible for search (docs/history.md), in byte order.
    pub fn searchable_user_info_keys(&self) -> Vec<String> {
        self.list(
            sys::handoff_activity_searchable_user_info_key_count,
            sys::handoff_activity_searchable_user_info_key_at,
        )
    }

    /// Replaces the searchable userInfo keys: their string values (never
    /// data, numbers, dates or URLs) are what the history finds it by.
    pub fn set_searchable_user_info_keys<S: AsRef<str>>(&self, keys: &[S]) -> Result<()> {
        self.set_list(
            sys::handoff_activity_set_searchable_user_info_keys,
            keys,
            "a searchable key",
        )
    }

    /// A copy of the userInfo (empty when none was set).
    pub fn user_info(&self) -> Result<UserInfo> {
        // SAFETY: a live activity; we own the copy.
        let raw =
            RawValue::from_owned(unsafe { sys::handoff_activity_copy_user_info(self.as_ptr()) })?;
        match raw.to_value()? {
            crate::Value::Dictionary(entries) => Ok(entries),
            _ => Err(Error::new(
                crate::ErrorCode::TypeMismatch,
                "the library returned a userInfo that is not a dictionary",
            )),
        }
    }

    /// Replaces the userInfo. [`crate::ErrorCode::InvalidValue`] when it
    /// breaks a userInfo rule; then nothing changes.
    pub fn set_user_info(&self, info: &UserInfo) -> Result<()> {
        let raw = RawValue::from_user_info(info)?;
        // SAFETY: a live activity and a live dictionary, which is copied.
        check(unsafe { sys::handoff_activity_set_user_info(self.as_ptr(), raw.as_ptr()) })
    }

    /// Merges entries into the userInfo (Apple: `addUserInfoEntries`); an
    /// existing key takes the new value.
    pub fn add_user_info_entries(&self, entries: &UserInfo) -> Result<()> {
        let raw = RawValue::from_user_info(entries)?;
        // SAFETY: as for `set_user_info`.
        check(unsafe { sys::handoff_activity_add_user_info_entries(self.as_ptr(), raw.as_ptr()) })
    }

    /// The size in bytes of the encoded userInfo, which must stay within
    /// [`crate::USER_INFO_BUDGET`].
    pub fn user_info_size(&self) -> usize {
        // SAFETY: a live activity.
        unsafe { sys::handoff_activity_user_info_size(self.as_ptr()) }
    }

    /// The payload another device receives (a binary property list).
    /// [`crate::ErrorCode::MissingRequiredKey`] or
    /// [`crate::ErrorCode::UserInfoTooLarge`] (4611) when it may not be sent.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let mut bytes: *mut u8 = ptr::null_mut();
        let mut length = 0usize;
        // SAFETY: a live activity and two out-parameters.
        check(unsafe { sys::handoff_activity_encode(self.as_ptr(), &mut bytes, &mut length) })?;
        // SAFETY: on success we own `length` bytes.
        Ok(unsafe { take_buffer(bytes, length) })
    }

    /// Ends the activity for good (Apple: `invalidate`): withdrawn from
    /// other devices, never current again. Twice is harmless.
    pub fn invalidate(&self) -> Result<()> {
        // SAFETY: a live activity.
        check(unsafe { sys::handoff_activity_invalidate(self.as_ptr()) })
    }

    /// Whether [`ActivityRef::invalidate`] was called.
    pub fn is_invalidated(&self) -> bool {
        // SAFETY: a live activity.
        unsafe { sys::handoff_activity_is_invalidated(self.as_ptr()) != 0 }
    }

    /// Sets the activity's delegate (Apple: `NSUserActivityDelegate`),
    /// replacing (and dropping) any previous one. The library keeps it as
    /// long as the activity lives and drops it on whatever thread releases
    /// the activity last, hence `Send`.
    pub fn set_delegate<D: ActivityDelegate>(&self, delegate: D) -> Result<()> {
        let callbacks = sys::handoff_activity_delegate {
            user_activity_will_save: Some(user_activity_will_save::<D>),
            user_activity_was_continued: Some(user_activity_was_continued::<D>),
            user_activity_did_fail_to_hand_off: Some(user_activity_did_fail_to_hand_off::<D>),
            // NULL tells the library this app refuses streams (4608 there).
            user_activity_did_receive_stream: if D::ACCEPTS_CONTINUATION_STREAMS {
                Some(user_activity_did_receive_stream::<D>)
            } else {
                None
            },
            ..sys::HANDOFF_ACTIVITY_DELEGATE_INIT
        };
        let state = Arc::into_raw(Arc::new(Mutex::new(delegate)))
            .cast_mut()
            .cast::<c_void>();
        // SAFETY: a live activity; the struct is copied; `state` is released
        // by `release_delegate::<D>`, which the library calls exactly once,
        // unless this call fails.
        let status = unsafe {
            sys::handoff_activity_set_delegate(
                self.as_ptr(),
                &callbacks,
                state,
                Some(release_delegate::<D>),
            )
        };
        if status != sys::HANDOFF_OK as c_int {
            // A failed call never calls destroy: take the state back.
            // SAFETY: made by `Arc::into_raw` above and not given away.
            drop(unsafe { Arc::from_raw(state.cast_const().cast::<Mutex<D>>()) });
        }
        check(status)
    }

    /// Removes the delegate (dropping it).
    pub fn clear_delegate(&self) -> Result<()> {
        // SAFETY: a live activity; NULL removes the delegate.
        check(unsafe {
            sys::handoff_activity_set_delegate(self.as_ptr(), ptr::null(), ptr::null_mut(), None)
        })
    }
}

/// Callbacks about an activity's life (Apple: `NSUserActivityDelegate`).
/// Each runs on the main thread of the application holding the activity,
/// inside [`crate::Application::dispatch`]; a panic is caught and reported
/// ([`crate::set_callback_panic_hook`]) and the library goes on as if the
/// method had returned.
pub trait ActivityDelegate: Send + 'static {
    /// Set to `true` when you implement
    /// [`user_activity_did_receive_stream`](Self::user_activity_did_receive_stream).
    /// When `false` (the default) this app refuses continuation streams:
    /// the other device's
    /// [`ActivityRef::get_continuation_streams`] fails with
    /// [`crate::ErrorCode::HandoffFailed`] (4608).
    const ACCEPTS_CONTINUATION_STREAMS: bool = false;

    /// The activity is being saved, after the responders updated it: the
    /// last chance to add state (Apple: `userActivityWillSave(_:)`).
    /// Default: nothing (through the deprecated 0.1.0 name
    /// [`will_save`](Self::will_save)).
    #[allow(deprecated)] // the old name, called on purpose
    fn user_activity_will_save(&mut self, activity: &ActivityRef) {
        renamed::forward(
            "ActivityDelegate::will_save",
            "user_activity_will_save",
            || self.will_save(activity),
        )
    }

    /// Another device continued the activity: once per continuation
    /// (Apple: `userActivityWasContinued(_:)`). Default: nothing (through
    /// the deprecated 0.1.0 name [`was_continued`](Self::was_continued)).
    #[allow(deprecated)] // the old name, called on purpose
    fn user_activity_was_continued(&mut self, activity: &ActivityRef) {
        renamed::forward(
            "ActivityDelegate::was_continued",
            "user_activity_was_continued",
            || self.was_continued(activity),
        )
    }

    /// Another device fetched the activity and the fetch failed on this
    /// side (no Apple counterpart; there only the receiver hears it; named
    /// in Apple's pattern):
    /// [`crate::ErrorCode::UserInfoTooLarge`] (4611),
    /// [`crate::ErrorCode::MissingRequiredKey`], or
    /// [`crate::ErrorCode::RemoteApplicationTimedOut`] (4610: this main
    /// thread did not dispatch within the fetch timeout; told late, at the
    /// next dispatch). Once per failed fetch. Default: nothing (through the
    /// deprecated 0.1.0 name
    /// [`did_fail_to_hand_off`](Self::did_fail_to_hand_off)).
    #[allow(deprecated)] // the old name, called on purpose
    fn user_activity_did_fail_to_hand_off(&mut self, activity: &ActivityRef, error: &Error) {
        renamed::forward(
            "ActivityDelegate::did_fail_to_hand_off",
            "user_activity_did_fail_to_hand_off",
            || self.did_fail_to_hand_off(activity, error),
        )
    }

    /// The device that continued the activity opened a continuation
    /// stream (Apple: `userActivity(_:didReceive:outputStream:)`, one
    /// bidirectional stream for Apple's pair); it is yours, closed when
    /// dropped. Set the activity's
    /// [`ActivityFlag::SupportsContinuationStreams`] before it is continued
    /// and [`ACCEPTS_CONTINUATION_STREAMS`](Self::ACCEPTS_CONTINUATION_STREAMS)
    /// to `true`; otherwise this is never called. Move the stream to a
    /// thread of its own, or make it non-blocking and poll it with the
    /// application's descriptor: blocking here blocks the main thread.
    /// Default: the stream is closed (through the deprecated 0.1.0 name
    /// [`did_receive_stream`](Self::did_receive_stream)).
    #[allow(deprecated)] // the old name, called on purpose
    fn user_activity_did_receive_stream(&mut self, activity: &ActivityRef, stream: UnixStream) {
        renamed::forward(
            "ActivityDelegate::did_receive_stream",
            "user_activity_did_receive_stream",
            || self.did_receive_stream(activity, stream),
        )
    }

    /// 0.1.0's name of
    /// [`user_activity_will_save`](Self::user_activity_will_save), called
    /// only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `user_activity_will_save` (Apple's name); see docs/MIGRATION.md"
    )]
    fn will_save(&mut self, activity: &ActivityRef) {
        let _ = activity;
        renamed::old_default_ran();
    }

    /// 0.1.0's name of
    /// [`user_activity_was_continued`](Self::user_activity_was_continued),
    /// called only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `user_activity_was_continued` (Apple's name); see docs/MIGRATION.md"
    )]
    fn was_continued(&mut self, activity: &ActivityRef) {
        let _ = activity;
        renamed::old_default_ran();
    }

    /// 0.1.0's name of
    /// [`user_activity_did_fail_to_hand_off`](Self::user_activity_did_fail_to_hand_off),
    /// called only through that method's default: implement that one.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `user_activity_did_fail_to_hand_off` (Apple's name); see docs/MIGRATION.md"
    )]
    fn did_fail_to_hand_off(&mut self, activity: &ActivityRef, error: &Error) {
        let _ = (activity, error);
        renamed::old_default_ran();
    }

    /// 0.1.0's name of
    /// [`user_activity_did_receive_stream`](Self::user_activity_did_receive_stream),
    /// called only through that method's default: implement that one
    /// ([`ACCEPTS_CONTINUATION_STREAMS`](Self::ACCEPTS_CONTINUATION_STREAMS)
    /// still decides whether streams are taken).
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `user_activity_did_receive_stream` (Apple's name); see docs/MIGRATION.md"
    )]
    fn did_receive_stream(&mut self, activity: &ActivityRef, stream: UnixStream) {
        let _ = (activity, stream);
        renamed::old_default_ran();
    }
}

/// Runs a delegate method under its mutex. The mutex makes the `Send`
/// delegate safe to call from whichever thread dispatches, and it is never
/// held twice: a second entry on the same thread while the first runs is
/// reported as a panic rather than deadlocking.
pub(crate) fn with_delegate<D: ActivityDelegate>(user_data: *mut c_void, f: impl FnOnce(&mut D)) {
    // SAFETY: `user_data` is our `Arc<Mutex<D>>`, alive while the library
    // may call; the clone keeps it alive for this call even if the delegate
    // is replaced from inside it.
    let state = unsafe {
        Arc::increment_strong_count(user_data.cast_const().cast::<Mutex<D>>());
        Arc::from_raw(user_data.cast_const().cast::<Mutex<D>>())
    };
    let mut delegate = match state.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => {
            panic!("the activity delegate is already running (a reentrant or concurrent call)")
        }
    };
    f(&mut delegate);
}

unsafe extern "C" fn user_activity_will_save<D: ActivityDelegate>(
    activity: *mut sys::handoff_activity,
    user_data: *mut c_void,
) {
    guard(
        "ActivityDelegate::user_activity_will_save",
        "ignored",
        (),
        || {
            // SAFETY: the library lends a live activity for the call.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_delegate::<D>(user_data, |d| d.user_activity_will_save(activity));
        },
    )
}

unsafe extern "C" fn user_activity_was_continued<D: ActivityDelegate>(
    activity: *mut sys::handoff_activity,
    user_data: *mut c_void,
) {
    guard(
        "ActivityDelegate::user_activity_was_continued",
        "ignored",
        (),
        || {
            // SAFETY: as in `user_activity_will_save`.
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            with_delegate::<D>(user_data, |d| d.user_activity_was_continued(activity));
        },
    )
}

unsafe extern "C" fn user_activity_did_fail_to_hand_off<D: ActivityDelegate>(
    activity: *mut sys::handoff_activity,
    code: c_int,
    message: *const c_char,
    user_data: *mut c_void,
) {
    guard(
        "ActivityDelegate::user_activity_did_fail_to_hand_off",
        "ignored",
        (),
        || {
            // SAFETY: as in `user_activity_will_save`; `message` is a NUL-terminated string
            // lent for the call (or NULL).
            let activity = unsafe { ActivityRef::from_ptr(activity) };
            let text = if message.is_null() {
                String::new()
            } else {
                unsafe { CStr::from_ptr(message) }
                    .to_string_lossy()
                    .into_owned()
            };
            let error = Error::new(
                ErrorCode::from_raw(code).unwrap_or(ErrorCode::Other(code)),
                text,
            );
            with_delegate::<D>(user_data, |d| {
                d.user_activity_did_fail_to_hand_off(activity, &error)
            });
        },
    )
}

unsafe extern "C" fn release_delegate<D: ActivityDelegate>(user_data: *mut c_void) {
    guard("ActivityDelegate (drop)", "ignored", (), || {
        // SAFETY: the library calls destroy once, for our `Arc::into_raw`.
        drop(unsafe { Arc::from_raw(user_data.cast_const().cast::<Mutex<D>>()) });
    })
}
