// SPDX-License-Identifier: MIT OR Apache-2.0
//! Remote activities: what the account's other devices offer.

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use crate::strings::borrowed;
use crate::sys;

/// An activity another device of the account offers, lent to the
/// availability callbacks of [`crate::ApplicationDelegate`] for the
/// callback's duration. Continue it with
/// [`crate::ApplicationRef::continue_activity`] and its [`id`](Self::id);
/// keep what you need with [`RemoteActivity::info`].
pub struct RemoteActivity {
    _opaque: sys::handoff_remote_activity,
    // Main thread only (handoff.h): neither Send nor Sync, as the field
    // above already makes it; stated for the reader.
    _not_thread_safe: PhantomData<*mut ()>,
}

/// An owned copy of what a [`RemoteActivity`] says, to keep after the
/// callback (e.g. for a list of Handoff suggestions).
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteActivityInfo {
    /// The activity id, for [`crate::ApplicationRef::continue_activity`].
    pub id: String,
    /// The activity type.
    pub activity_type: String,
    /// The title, if the sender set one.
    pub title: Option<String>,
    /// The web page URL, if the sender set one.
    pub webpage_url: Option<String>,
    /// The offering device's name.
    pub device_name: String,
    /// The offering device's id.
    pub device_id: String,
    /// How long ago this device first saw it offered.
    pub age: Duration,
    /// No app here can continue it, but its web page can be opened.
    pub web_only: bool,
    /// Its app accepts continuation streams.
    pub supports_continuation_streams: bool,
}

impl RemoteActivity {
    /// Borrows a remote activity a callback lends.
    ///
    /// # Safety
    /// `p` is a live remote activity for `'a`.
    pub unsafe fn from_ptr<'a>(p: *const sys::handoff_remote_activity) -> &'a RemoteActivity {
        &*p.cast::<RemoteActivity>()
    }

    /// The raw handle, for the `sys` functions.
    pub fn as_ptr(&self) -> *const sys::handoff_remote_activity {
        (self as *const RemoteActivity).cast()
    }

    fn text(
        &self,
        getter: unsafe extern "C" fn(
            *const sys::handoff_remote_activity,
        ) -> *const std::ffi::c_char,
    ) -> Option<&str> {
        // SAFETY: strings are borrowed for the callback, which `&self` spans.
        unsafe { borrowed(getter(self.as_ptr())) }
    }

    /// The activity id, for [`crate::ApplicationRef::continue_activity`].
    pub fn id(&self) -> &str {
        self.text(sys::handoff_remote_activity_get_id).unwrap_or("")
    }

    /// The activity type.
    pub fn activity_type(&self) -> &str {
        self.text(sys::handoff_remote_activity_get_type)
            .unwrap_or("")
    }

    /// The title, if the sender set one.
    pub fn title(&self) -> Option<&str> {
        self.text(sys::handoff_remote_activity_get_title)
    }

    /// The web page URL, if the sender set one.
    pub fn webpage_url(&self) -> Option<&str> {
        self.text(sys::handoff_remote_activity_get_webpage_url)
    }

    /// The offering device's name.
    pub fn device_name(&self) -> &str {
        self.text(sys::handoff_remote_activity_get_device_name)
            .unwrap_or("")
    }

    /// The offering device's id (32 hex digits).
    pub fn device_id(&self) -> &str {
        self.text(sys::handoff_remote_activity_get_device_id)
            .unwrap_or("")
    }

    /// How long ago this device first saw it offered.
    pub fn age(&self) -> Duration {
        // SAFETY: a live remote activity.
        let seconds = unsafe { sys::handoff_remote_activity_get_age(self.as_ptr()) };
        Duration::try_from_secs_f64(seconds).unwrap_or_default()
    }

    /// No app here can continue it, but its web page can be opened.
    pub fn is_web_only(&self) -> bool {
        // SAFETY: a live remote activity.
        unsafe { sys::handoff_remote_activity_is_web_only(self.as_ptr()) != 0 }
    }

    /// Its app accepts continuation streams.
    pub fn supports_continuation_streams(&self) -> bool {
        // SAFETY: a live remote activity.
        unsafe { sys::handoff_remote_activity_supports_continuation_streams(self.as_ptr()) != 0 }
    }

    /// An owned copy of all of the above.
    pub fn info(&self) -> RemoteActivityInfo {
        RemoteActivityInfo {
            id: self.id().to_owned(),
            activity_type: self.activity_type().to_owned(),
            title: self.title().map(str::to_owned),
            webpage_url: self.webpage_url().map(str::to_owned),
            device_name: self.device_name().to_owned(),
            device_id: self.device_id().to_owned(),
            age: self.age(),
            web_only: self.is_web_only(),
            supports_continuation_streams: self.supports_continuation_streams(),
        }
    }
}

impl fmt::Debug for RemoteActivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.info().fmt(f)
    }
}
