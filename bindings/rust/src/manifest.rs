// SPDX-License-Identifier: MIT OR Apache-2.0
//! Manifests: who an app is (bundle identifier), whose it is (team
//! identifier) and which activity types it can continue.

use std::ffi::c_void;
use std::fmt;
use std::path::Path;
use std::ptr::NonNull;

use crate::error::{check, Error, Result};
use crate::strings::{borrow_lock, borrowed, c_path, c_string, owned};
use crate::sys;

/// An app's manifest (Apple: the Info.plist keys Handoff reads). Only apps
/// of one team continue each other's activities, and only the types they
/// declare (Apple: `NSUserActivityTypes`).
pub struct Manifest {
    raw: NonNull<sys::handoff_manifest>,
}

// SAFETY: handoff.h lets any thread call any manifest function. Borrowed
// strings are tied to `&self` and only `&mut self` changes the manifest, so
// no thread frees a string another reads.
unsafe impl Send for Manifest {}
// SAFETY: as for `Send`.
unsafe impl Sync for Manifest {}

impl Manifest {
    /// A manifest with no declared types.
    /// [`crate::ErrorCode::InvalidValue`] when the bundle identifier is not
    /// reverse-DNS or the team identifier not 1 to 32 ASCII letters and digits.
    pub fn new(bundle_identifier: &str, team_identifier: &str) -> Result<Manifest> {
        let bundle = c_string(bundle_identifier, "the bundle identifier")?;
        let team = c_string(team_identifier, "the team identifier")?;
        // SAFETY: strings valid for the call; we own the result.
        Manifest::from_owned(unsafe { sys::handoff_manifest_new(bundle.as_ptr(), team.as_ptr()) })
    }

    /// Loads an Info.plist file, XML or binary: `CFBundleIdentifier`,
    /// `NSUserActivityTypes`, and the team from `HandoffTeamIdentifier`
    /// (else `AppIdentifierPrefix`). An `NSUserActivityTypes` entry that
    /// cannot be a type is skipped, an `NSUserActivityTypes` that is not an
    /// array declares none, and a key repeated in one dictionary keeps its
    /// last value: each listed in [`Manifest::warnings`].
    pub fn load(path: impl AsRef<Path>) -> Result<Manifest> {
        let path = c_path(path.as_ref(), "the path")?;
        // SAFETY: a string valid for the call; we own the result.
        Manifest::from_owned(unsafe { sys::handoff_manifest_load(path.as_ptr()) })
    }

    /// As [`Manifest::load`], from the bytes of an Info.plist.
    pub fn load_data(bytes: &[u8]) -> Result<Manifest> {
        // SAFETY: `bytes` is valid for its length; we own the result.
        Manifest::from_owned(unsafe {
            sys::handoff_manifest_load_data(bytes.as_ptr().cast::<c_void>(), bytes.len())
        })
    }

    fn from_owned(p: *mut sys::handoff_manifest) -> Result<Manifest> {
        NonNull::new(p)
            .map(|raw| Manifest { raw })
            .ok_or_else(Error::last)
    }

    /// The raw handle, for the `sys` functions. Still owned by Rust.
    pub fn as_ptr(&self) -> *const sys::handoff_manifest {
        self.raw.as_ptr()
    }

    /// Declares an activity type the app can continue (twice is harmless):
    /// any 1–255-byte string without control characters, matched byte for
    /// byte (`"com.example.app.edit"`, `"INSendMessageIntent"`,
    /// `"ReadArticle"`). [`crate::ErrorCode::InvalidValue`] otherwise.
    pub fn declare_activity_type(&mut self, activity_type: &str) -> Result<()> {
        let t = c_string(activity_type, "the activity type")?;
        // SAFETY: a live manifest and a string valid for the call.
        check(unsafe { sys::handoff_manifest_declare_activity_type(self.raw.as_ptr(), t.as_ptr()) })
    }

    /// As [`Manifest::declare_activity_type`], by value, for building.
    pub fn declaring(mut self, activity_type: &str) -> Result<Manifest> {
        self.declare_activity_type(activity_type)?;
        Ok(self)
    }

    /// Whether the manifest declares the type.
    pub fn declares(&self, activity_type: &str) -> bool {
        let Ok(t) = c_string(activity_type, "the activity type") else {
            return false;
        };
        // SAFETY: a live manifest and a string valid for the call.
        unsafe { sys::handoff_manifest_declares(self.as_ptr(), t.as_ptr()) != 0 }
    }

    /// The bundle identifier.
    pub fn bundle_identifier(&self) -> &str {
        // SAFETY: borrowed until the manifest is freed; `&self` keeps it.
        unsafe { borrowed(sys::handoff_manifest_get_bundle_identifier(self.as_ptr())) }
            .unwrap_or("")
    }

    /// The team identifier.
    pub fn team_identifier(&self) -> &str {
        // SAFETY: as for `bundle_identifier`.
        unsafe { borrowed(sys::handoff_manifest_get_team_identifier(self.as_ptr())) }.unwrap_or("")
    }

    /// The declared activity types, in declaration order.
    pub fn activity_types(&self) -> Vec<String> {
        let _lock = borrow_lock();
        // SAFETY: a live manifest; the strings are copied at once.
        unsafe {
            let n = sys::handoff_manifest_activity_type_count(self.as_ptr());
            (0..n)
                .map_while(|i| owned(sys::handoff_manifest_activity_type_at(self.as_ptr(), i)))
                .collect()
        }
    }

    /// Claims a web domain the app opens (Apple's associated domains):
    /// `"example.com"` (that host only) or `"*.example.com"` (every host
    /// under it, not `example.com` itself). A browsing-web activity
    /// (`NSUserActivityTypeBrowsingWeb`) whose page is on it is then
    /// continuable by the app, whatever its team. Twice is harmless;
    /// [`crate::ErrorCode::InvalidValue`] for anything but a host name, or a
    /// 33rd domain.
    pub fn declare_web_domain(&mut self, domain: &str) -> Result<()> {
        let d = c_string(domain, "the web domain")?;
        // SAFETY: a live manifest and a string valid for the call.
        check(unsafe { sys::handoff_manifest_declare_web_domain(self.raw.as_ptr(), d.as_ptr()) })
    }

    /// The claimed web domains, in claim order, lowercase.
    pub fn web_domains(&self) -> Vec<String> {
        let _lock = borrow_lock();
        // SAFETY: a live manifest; the strings are copied at once.
        unsafe {
            let n = sys::handoff_manifest_web_domain_count(self.as_ptr());
            (0..n)
                .map_while(|i| owned(sys::handoff_manifest_web_domain_at(self.as_ptr(), i)))
                .collect()
        }
    }

    /// What loading the Info.plist skipped and why: one message per key
    /// repeated in one dictionary (the last value is used), in file order,
    /// then one for an `NSUserActivityTypes` that is not an array, or one
    /// per entry of it that cannot be an activity type (not a string,
    /// empty, over 255 bytes, control characters), naming the file, the
    /// entry and what was found. Empty for a manifest
    /// made with [`Manifest::new`]; declaring types never adds any.
    pub fn warnings(&self) -> Vec<String> {
        // SAFETY: a live manifest; the strings are copied at once and a
        // manifest's warnings never change.
        unsafe {
            let n = sys::handoff_manifest_warning_count(self.as_ptr());
            (0..n)
                .map_while(|i| owned(sys::handoff_manifest_warning_at(self.as_ptr(), i)))
                .collect()
        }
    }
}

impl Drop for Manifest {
    fn drop(&mut self) {
        // SAFETY: owned, released once.
        unsafe { sys::handoff_manifest_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Manifest")
            .field("bundle_identifier", &self.bundle_identifier())
            .field("team_identifier", &self.team_identifier())
            .field("activity_types", &self.activity_types())
            .field("warnings", &self.warnings())
            .finish()
    }
}
