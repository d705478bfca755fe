// SPDX-License-Identifier: MIT OR Apache-2.0
//! The raw C interface: `include/handoff.h` written out in Rust, one item
//! per header item, in the header's order and with its names.
//!
//! Everything here is `unsafe` to call and follows the header's rules
//! (ownership, threads, lifetimes of borrowed strings); read the header's
//! comment of a function before using it. The safe API of this crate is
//! built on these declarations.
//!
//! `tests/header_sync.rs` parses the header and this file and fails when
//! they differ: a function missing on either side, another parameter list or
//! return type, another constant value, struct field or `_INIT` macro.
//! `tests/layout.rs` compiles a C probe and compares struct sizes and field
//! offsets with what the C compiler says.
//!
//! C enums are `c_uint` type aliases with one constant per enumerator (GCC
//! gives an enum without negative values the type `unsigned int`); this
//! keeps values the library may add later representable.

#![allow(non_camel_case_types)]
#![allow(missing_docs)]

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::marker::{PhantomData, PhantomPinned};
use std::mem::size_of;
use std::ptr;

/// Declares opaque C structs: never constructed in Rust, only pointed to;
/// neither `Send`, `Sync` nor `Unpin` (the nomicon's pattern).
macro_rules! opaque {
    ($($name:ident),* $(,)?) => {$(
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }
    )*};
}

// ---------------------------------------------------------------- Version

pub const HANDOFF_VERSION_MAJOR: c_int = 0;
pub const HANDOFF_VERSION_MINOR: c_int = 4;
pub const HANDOFF_VERSION_PATCH: c_int = 0;
pub const HANDOFF_VERSION_NUMBER: c_int =
    HANDOFF_VERSION_MAJOR * 10000 + HANDOFF_VERSION_MINOR * 100 + HANDOFF_VERSION_PATCH;
pub const HANDOFF_VERSION_STRING: &CStr = c"0.4.0";

extern "C" {
    pub fn handoff_version_number() -> c_uint;
    pub fn handoff_version_string() -> *const c_char;
}

// ---------------------------------------------------- Status codes, errors

pub type handoff_status = c_uint;
pub const HANDOFF_OK: handoff_status = 0;
pub const HANDOFF_E_INVALID_ARGUMENT: handoff_status = 1;
pub const HANDOFF_E_INVALID_VALUE: handoff_status = 2;
pub const HANDOFF_E_TYPE_MISMATCH: handoff_status = 3;
pub const HANDOFF_E_NOT_FOUND: handoff_status = 4;
pub const HANDOFF_E_MALFORMED_DATA: handoff_status = 5;
pub const HANDOFF_E_IO: handoff_status = 6;
pub const HANDOFF_E_MISSING_REQUIRED_KEY: handoff_status = 7;
pub const HANDOFF_E_INVALID_STATE: handoff_status = 8;
pub const HANDOFF_E_WRONG_THREAD: handoff_status = 9;
pub const HANDOFF_E_TIMED_OUT: handoff_status = 10;
pub const HANDOFF_E_PERMISSION: handoff_status = 11;
pub const HANDOFF_E_HANDOFF_FAILED: handoff_status = 4608;
pub const HANDOFF_E_CONNECTION_UNAVAILABLE: handoff_status = 4609;
pub const HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT: handoff_status = 4610;
pub const HANDOFF_E_USER_INFO_TOO_LARGE: handoff_status = 4611;

pub const HANDOFF_USER_ACTIVITY_ERROR_MINIMUM: c_int = 4608;
pub const HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM: c_int = 4863;

pub const HANDOFF_USER_INFO_BUDGET: c_int = 3072;

extern "C" {
    pub fn handoff_status_string(status: c_int) -> *const c_char;
    pub fn handoff_last_error_message() -> *const c_char;
    pub fn handoff_last_error_code() -> c_int;
    pub fn handoff_free(pointer: *mut c_void);
}

// ----------------------------------------------------------------- Values

opaque!(handoff_value);

pub type handoff_value_kind = c_uint;
pub const HANDOFF_VALUE_NULL: handoff_value_kind = 0;
pub const HANDOFF_VALUE_BOOLEAN: handoff_value_kind = 1;
pub const HANDOFF_VALUE_INTEGER: handoff_value_kind = 2;
pub const HANDOFF_VALUE_REAL: handoff_value_kind = 3;
pub const HANDOFF_VALUE_STRING: handoff_value_kind = 4;
pub const HANDOFF_VALUE_DATA: handoff_value_kind = 5;
pub const HANDOFF_VALUE_DATE: handoff_value_kind = 6;
pub const HANDOFF_VALUE_URL: handoff_value_kind = 7;
pub const HANDOFF_VALUE_ARRAY: handoff_value_kind = 8;
pub const HANDOFF_VALUE_DICTIONARY: handoff_value_kind = 9;
pub const HANDOFF_VALUE_SET: handoff_value_kind = 10;

extern "C" {
    pub fn handoff_value_new_null() -> *mut handoff_value;
    pub fn handoff_value_new_boolean(value: c_int) -> *mut handoff_value;
    pub fn handoff_value_new_integer(value: i64) -> *mut handoff_value;
    pub fn handoff_value_new_real(value: f64) -> *mut handoff_value;
    pub fn handoff_value_new_string(utf8: *const c_char) -> *mut handoff_value;
    pub fn handoff_value_new_data(bytes: *const c_void, length: usize) -> *mut handoff_value;
    pub fn handoff_value_new_date(unix_seconds: f64) -> *mut handoff_value;
    pub fn handoff_value_new_url(url: *const c_char) -> *mut handoff_value;
    pub fn handoff_value_new_array() -> *mut handoff_value;
    pub fn handoff_value_new_dictionary() -> *mut handoff_value;
    pub fn handoff_value_new_set() -> *mut handoff_value;

    pub fn handoff_value_copy(value: *const handoff_value) -> *mut handoff_value;
    pub fn handoff_value_free(value: *mut handoff_value);
    pub fn handoff_value_get_kind(value: *const handoff_value) -> handoff_value_kind;
    pub fn handoff_value_equal(a: *const handoff_value, b: *const handoff_value) -> c_int;

    pub fn handoff_value_get_boolean(value: *const handoff_value, out: *mut c_int) -> c_int;
    pub fn handoff_value_get_integer(value: *const handoff_value, out: *mut i64) -> c_int;
    pub fn handoff_value_get_real(value: *const handoff_value, out: *mut f64) -> c_int;
    pub fn handoff_value_get_date(value: *const handoff_value, out: *mut f64) -> c_int;
    pub fn handoff_value_get_string(
        value: *const handoff_value,
        length: *mut usize,
    ) -> *const c_char;
    pub fn handoff_value_get_data(value: *const handoff_value, length: *mut usize)
        -> *const c_void;
    pub fn handoff_value_get_url(value: *const handoff_value) -> *const c_char;
    pub fn handoff_value_count(value: *const handoff_value) -> usize;

    pub fn handoff_value_array_append(
        array: *mut handoff_value,
        item: *const handoff_value,
    ) -> c_int;
    pub fn handoff_value_dictionary_set(
        dictionary: *mut handoff_value,
        key: *const c_char,
        item: *const handoff_value,
    ) -> c_int;
    pub fn handoff_value_set_add(set: *mut handoff_value, member: *const handoff_value) -> c_int;
    pub fn handoff_value_dictionary_remove(
        dictionary: *mut handoff_value,
        key: *const c_char,
    ) -> c_int;

    pub fn handoff_value_array_get(
        array: *const handoff_value,
        index: usize,
    ) -> *const handoff_value;
    pub fn handoff_value_dictionary_get(
        dictionary: *const handoff_value,
        key: *const c_char,
    ) -> *const handoff_value;
    pub fn handoff_value_dictionary_key_at(
        dictionary: *const handoff_value,
        index: usize,
    ) -> *const c_char;
    pub fn handoff_value_dictionary_value_at(
        dictionary: *const handoff_value,
        index: usize,
    ) -> *const handoff_value;
    pub fn handoff_value_set_member_at(
        set: *const handoff_value,
        index: usize,
    ) -> *const handoff_value;

    pub fn handoff_value_encode(
        value: *const handoff_value,
        bytes: *mut *mut u8,
        length: *mut usize,
    ) -> c_int;
    pub fn handoff_value_decode(bytes: *const c_void, length: usize) -> *mut handoff_value;
    pub fn handoff_value_encode_json(
        value: *const handoff_value,
        text: *mut *mut c_char,
        length: *mut usize,
    ) -> c_int;
    pub fn handoff_value_decode_json(text: *const c_char, length: usize) -> *mut handoff_value;
}

// ------------------------------------------------------- User activities

opaque!(handoff_activity);

extern "C" {
    pub fn handoff_activity_new(activity_type: *const c_char) -> *mut handoff_activity;
    pub fn handoff_activity_free(activity: *mut handoff_activity);
    pub fn handoff_activity_ref(activity: *mut handoff_activity) -> *mut handoff_activity;
    pub fn handoff_activity_get_type(activity: *const handoff_activity) -> *const c_char;
    pub fn handoff_activity_get_id(activity: *const handoff_activity) -> *const c_char;

    pub fn handoff_activity_set_title(
        activity: *mut handoff_activity,
        title: *const c_char,
    ) -> c_int;
    pub fn handoff_activity_get_title(activity: *const handoff_activity) -> *const c_char;
    pub fn handoff_activity_set_webpage_url(
        activity: *mut handoff_activity,
        url: *const c_char,
    ) -> c_int;
    pub fn handoff_activity_get_webpage_url(activity: *const handoff_activity) -> *const c_char;
    pub fn handoff_activity_set_referrer_url(
        activity: *mut handoff_activity,
        url: *const c_char,
    ) -> c_int;
    pub fn handoff_activity_get_referrer_url(activity: *const handoff_activity) -> *const c_char;
    pub fn handoff_activity_set_target_content_identifier(
        activity: *mut handoff_activity,
        identifier: *const c_char,
    ) -> c_int;
    pub fn handoff_activity_get_target_content_identifier(
        activity: *const handoff_activity,
    ) -> *const c_char;
    pub fn handoff_activity_set_persistent_identifier(
        activity: *mut handoff_activity,
        identifier: *const c_char,
    ) -> c_int;
    pub fn handoff_activity_get_persistent_identifier(
        activity: *const handoff_activity,
    ) -> *const c_char;

    pub fn handoff_activity_set_expiration_date(
        activity: *mut handoff_activity,
        unix_seconds: f64,
    ) -> c_int;
    pub fn handoff_activity_clear_expiration_date(activity: *mut handoff_activity) -> c_int;
    pub fn handoff_activity_get_expiration_date(
        activity: *const handoff_activity,
        unix_seconds: *mut f64,
    ) -> c_int;
}

pub type handoff_activity_flag = c_uint;
pub const HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF: handoff_activity_flag = 0;
pub const HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH: handoff_activity_flag = 1;
pub const HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING: handoff_activity_flag = 2;
pub const HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION: handoff_activity_flag = 3;
pub const HANDOFF_ACTIVITY_NEEDS_SAVE: handoff_activity_flag = 4;
pub const HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS: handoff_activity_flag = 5;

extern "C" {
    pub fn handoff_activity_set_flag(
        activity: *mut handoff_activity,
        flag: handoff_activity_flag,
        value: c_int,
    ) -> c_int;
    pub fn handoff_activity_get_flag(
        activity: *const handoff_activity,
        flag: handoff_activity_flag,
        value: *mut c_int,
    ) -> c_int;

    pub fn handoff_activity_set_keywords(
        activity: *mut handoff_activity,
        keywords: *const *const c_char,
        count: usize,
    ) -> c_int;
    pub fn handoff_activity_keyword_count(activity: *const handoff_activity) -> usize;
    pub fn handoff_activity_keyword_at(
        activity: *const handoff_activity,
        index: usize,
    ) -> *const c_char;
    pub fn handoff_activity_set_required_user_info_keys(
        activity: *mut handoff_activity,
        keys: *const *const c_char,
        count: usize,
    ) -> c_int;
    pub fn handoff_activity_required_user_info_key_count(
        activity: *const handoff_activity,
    ) -> usize;
    pub fn handoff_activity_required_user_info_key_at(
        activity: *const handoff_activity,
        index: usize,
    ) -> *const c_char;
    pub fn handoff_activity_set_searchable_user_info_keys(
        activity: *mut handoff_activity,
        keys: *const *const c_char,
        count: usize,
    ) -> c_int;
    pub fn handoff_activity_searchable_user_info_key_count(
        activity: *const handoff_activity,
    ) -> usize;
    pub fn handoff_activity_searchable_user_info_key_at(
        activity: *const handoff_activity,
        index: usize,
    ) -> *const c_char;

    pub fn handoff_activity_copy_user_info(activity: *const handoff_activity)
        -> *mut handoff_value;
    pub fn handoff_activity_set_user_info(
        activity: *mut handoff_activity,
        dictionary: *const handoff_value,
    ) -> c_int;
    pub fn handoff_activity_add_user_info_entries(
        activity: *mut handoff_activity,
        dictionary: *const handoff_value,
    ) -> c_int;
    pub fn handoff_activity_user_info_size(activity: *const handoff_activity) -> usize;

    pub fn handoff_activity_encode(
        activity: *const handoff_activity,
        bytes: *mut *mut u8,
        length: *mut usize,
    ) -> c_int;
    pub fn handoff_activity_decode(bytes: *const c_void, length: usize) -> *mut handoff_activity;

    pub fn handoff_activity_invalidate(activity: *mut handoff_activity) -> c_int;
    pub fn handoff_activity_is_invalidated(activity: *const handoff_activity) -> c_int;
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct handoff_activity_delegate {
    pub size: usize,
    pub user_activity_will_save:
        Option<unsafe extern "C" fn(activity: *mut handoff_activity, user_data: *mut c_void)>,
    pub user_activity_was_continued:
        Option<unsafe extern "C" fn(activity: *mut handoff_activity, user_data: *mut c_void)>,
    pub user_activity_did_receive_stream: Option<
        unsafe extern "C" fn(activity: *mut handoff_activity, fd: c_int, user_data: *mut c_void),
    >,
    pub user_activity_did_fail_to_hand_off: Option<
        unsafe extern "C" fn(
            activity: *mut handoff_activity,
            error: c_int,
            message: *const c_char,
            user_data: *mut c_void,
        ),
    >,
}

pub const HANDOFF_ACTIVITY_DELEGATE_INIT: handoff_activity_delegate = handoff_activity_delegate {
    size: size_of::<handoff_activity_delegate>(),
    user_activity_will_save: None,
    user_activity_was_continued: None,
    user_activity_did_receive_stream: None,
    user_activity_did_fail_to_hand_off: None,
};

// -------------------------------------------------- Continuation streams

extern "C" {
    pub fn handoff_activity_get_continuation_streams(
        activity: *mut handoff_activity,
        callback: Option<
            unsafe extern "C" fn(
                activity: *mut handoff_activity,
                fd: c_int,
                error: c_int,
                message: *const c_char,
                user_data: *mut c_void,
            ),
        >,
        user_data: *mut c_void,
    ) -> c_int;
}

extern "C" {
    pub fn handoff_activity_set_delegate(
        activity: *mut handoff_activity,
        delegate: *const handoff_activity_delegate,
        user_data: *mut c_void,
        destroy: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    ) -> c_int;
}

// -------------------------------------------------------------- Manifests

opaque!(handoff_manifest);

extern "C" {
    pub fn handoff_manifest_new(
        bundle_identifier: *const c_char,
        team_identifier: *const c_char,
    ) -> *mut handoff_manifest;
    pub fn handoff_manifest_load(path: *const c_char) -> *mut handoff_manifest;
    pub fn handoff_manifest_load_data(bytes: *const c_void, length: usize)
        -> *mut handoff_manifest;
    pub fn handoff_manifest_free(manifest: *mut handoff_manifest);
    pub fn handoff_manifest_declare_activity_type(
        manifest: *mut handoff_manifest,
        activity_type: *const c_char,
    ) -> c_int;
    pub fn handoff_manifest_declares(
        manifest: *const handoff_manifest,
        activity_type: *const c_char,
    ) -> c_int;
    pub fn handoff_manifest_get_bundle_identifier(
        manifest: *const handoff_manifest,
    ) -> *const c_char;
    pub fn handoff_manifest_get_team_identifier(manifest: *const handoff_manifest)
        -> *const c_char;
    pub fn handoff_manifest_activity_type_count(manifest: *const handoff_manifest) -> usize;
    pub fn handoff_manifest_activity_type_at(
        manifest: *const handoff_manifest,
        index: usize,
    ) -> *const c_char;
    pub fn handoff_manifest_declare_web_domain(
        manifest: *mut handoff_manifest,
        domain: *const c_char,
    ) -> c_int;
    pub fn handoff_manifest_web_domain_count(manifest: *const handoff_manifest) -> usize;
    pub fn handoff_manifest_web_domain_at(
        manifest: *const handoff_manifest,
        index: usize,
    ) -> *const c_char;
    pub fn handoff_manifest_warning_count(manifest: *const handoff_manifest) -> usize;
    pub fn handoff_manifest_warning_at(
        manifest: *const handoff_manifest,
        index: usize,
    ) -> *const c_char;
}

// ----------------------------------------------------------- Applications

opaque!(
    handoff_application,
    handoff_responder,
    handoff_restoration_handler,
    handoff_remote_activity
);

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct handoff_application_delegate {
    pub size: usize,
    pub will_continue_user_activity: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            activity_type: *const c_char,
            user_data: *mut c_void,
        ) -> c_int,
    >,
    pub continue_user_activity: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            activity: *mut handoff_activity,
            handler: *mut handoff_restoration_handler,
            user_data: *mut c_void,
        ) -> c_int,
    >,
    pub did_fail_to_continue_user_activity: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            activity_type: *const c_char,
            error: c_int,
            message: *const c_char,
            user_data: *mut c_void,
        ),
    >,
    pub did_update_user_activity: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            activity: *mut handoff_activity,
            user_data: *mut c_void,
        ),
    >,
    pub activity_available: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            remote: *const handoff_remote_activity,
            user_data: *mut c_void,
        ),
    >,
    pub activity_updated: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            remote: *const handoff_remote_activity,
            user_data: *mut c_void,
        ),
    >,
    pub activity_withdrawn: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            remote: *const handoff_remote_activity,
            user_data: *mut c_void,
        ),
    >,
    pub open_webpage: Option<
        unsafe extern "C" fn(
            app: *mut handoff_application,
            url: *const c_char,
            remote: *const handoff_remote_activity,
            user_data: *mut c_void,
        ),
    >,
}

pub const HANDOFF_APPLICATION_DELEGATE_INIT: handoff_application_delegate =
    handoff_application_delegate {
        size: size_of::<handoff_application_delegate>(),
        will_continue_user_activity: None,
        continue_user_activity: None,
        did_fail_to_continue_user_activity: None,
        did_update_user_activity: None,
        activity_available: None,
        activity_updated: None,
        activity_withdrawn: None,
        open_webpage: None,
    };

extern "C" {
    pub fn handoff_application_new(
        manifest: *const handoff_manifest,
        delegate: *const handoff_application_delegate,
        user_data: *mut c_void,
        destroy: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    ) -> *mut handoff_application;
    pub fn handoff_application_free(app: *mut handoff_application);
    pub fn handoff_application_get_fd(app: *const handoff_application) -> c_int;
    pub fn handoff_application_next_timeout(app: *const handoff_application) -> c_int;
    pub fn handoff_application_dispatch(app: *mut handoff_application) -> c_int;
    pub fn handoff_application_run(app: *mut handoff_application, timeout_ms: c_int) -> c_int;
    pub fn handoff_application_stop(app: *mut handoff_application) -> c_int;
    pub fn handoff_application_become_current(
        app: *mut handoff_application,
        activity: *mut handoff_activity,
    ) -> c_int;
    pub fn handoff_application_resign_current(
        app: *mut handoff_application,
        activity: *mut handoff_activity,
    ) -> c_int;
    pub fn handoff_application_copy_current_activity(
        app: *const handoff_application,
    ) -> *mut handoff_activity;
    pub fn handoff_application_continue(
        app: *mut handoff_application,
        activity_id: *const c_char,
    ) -> c_int;
    pub fn handoff_application_get_activation_token(
        app: *const handoff_application,
    ) -> *const c_char;
    pub fn handoff_application_delete_saved_activities(
        app: *mut handoff_application,
        ids: *const *const c_char,
        count: usize,
        done: Option<unsafe extern "C" fn(context: *mut c_void, status: c_int)>,
        context: *mut c_void,
    ) -> c_int;
    pub fn handoff_application_delete_all_saved_activities(
        app: *mut handoff_application,
        done: Option<unsafe extern "C" fn(context: *mut c_void, status: c_int)>,
        context: *mut c_void,
    ) -> c_int;
}

// ------------------------------------------------------ Remote activities

extern "C" {
    pub fn handoff_remote_activity_get_id(remote: *const handoff_remote_activity) -> *const c_char;
    pub fn handoff_remote_activity_get_type(
        remote: *const handoff_remote_activity,
    ) -> *const c_char;
    pub fn handoff_remote_activity_get_title(
        remote: *const handoff_remote_activity,
    ) -> *const c_char;
    pub fn handoff_remote_activity_get_webpage_url(
        remote: *const handoff_remote_activity,
    ) -> *const c_char;
    pub fn handoff_remote_activity_get_device_name(
        remote: *const handoff_remote_activity,
    ) -> *const c_char;
    pub fn handoff_remote_activity_get_device_id(
        remote: *const handoff_remote_activity,
    ) -> *const c_char;
    pub fn handoff_remote_activity_get_age(remote: *const handoff_remote_activity) -> f64;
    pub fn handoff_remote_activity_is_web_only(remote: *const handoff_remote_activity) -> c_int;
    pub fn handoff_remote_activity_supports_continuation_streams(
        remote: *const handoff_remote_activity,
    ) -> c_int;
}

// ----------------------------------------- Accounts and continuity

opaque!(handoff_account);

extern "C" {
    pub fn handoff_account_new() -> *mut handoff_account;
    pub fn handoff_account_from_pairing_code(code: *const c_char) -> *mut handoff_account;
    pub fn handoff_account_from_key(key: *const c_void, length: usize) -> *mut handoff_account;
    pub fn handoff_account_load(directory: *const c_char) -> *mut handoff_account;
    pub fn handoff_account_save(account: *const handoff_account, directory: *const c_char)
        -> c_int;
    pub fn handoff_account_copy_pairing_code(account: *const handoff_account) -> *mut c_char;
    pub fn handoff_account_get_id(account: *const handoff_account) -> *const c_char;
    pub fn handoff_account_free(account: *mut handoff_account);
}

pub type handoff_device_role = c_uint;
pub const HANDOFF_DEVICE_ROLE_FULL: handoff_device_role = 0;
pub const HANDOFF_DEVICE_ROLE_SEND_ONLY: handoff_device_role = 1;

pub type handoff_continuity_mode = c_uint;
pub const HANDOFF_CONTINUITY_MODE_AUTO: handoff_continuity_mode = 0;
pub const HANDOFF_CONTINUITY_MODE_AGENT: handoff_continuity_mode = 1;
pub const HANDOFF_CONTINUITY_MODE_EMBEDDED: handoff_continuity_mode = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct handoff_continuity_options {
    pub size: usize,
    pub account: *const handoff_account,
    pub device_id: *const c_char,
    pub device_name: *const c_char,
    pub role: handoff_device_role,
    pub beacon_port: c_int,
    pub disable_multicast: c_int,
    pub peers: *const *const c_char,
    pub peer_count: usize,
    pub channel_address: *const c_char,
    pub fetch_timeout_ms: c_int,
    pub connect_timeout_ms: c_int,
    pub connection_reuse_ms: c_int,
    pub mode: handoff_continuity_mode,
}

pub const HANDOFF_CONTINUITY_OPTIONS_INIT: handoff_continuity_options =
    handoff_continuity_options {
        size: size_of::<handoff_continuity_options>(),
        account: ptr::null(),
        device_id: ptr::null(),
        device_name: ptr::null(),
        role: HANDOFF_DEVICE_ROLE_FULL,
        beacon_port: 0,
        disable_multicast: 0,
        peers: ptr::null(),
        peer_count: 0,
        channel_address: ptr::null(),
        fetch_timeout_ms: 0,
        connect_timeout_ms: 0,
        connection_reuse_ms: 0,
        mode: HANDOFF_CONTINUITY_MODE_AUTO,
    };

extern "C" {
    pub fn handoff_application_start_continuity(
        app: *mut handoff_application,
        options: *const handoff_continuity_options,
    ) -> c_int;
    pub fn handoff_application_get_continuity_mode(
        app: *const handoff_application,
        out: *mut handoff_continuity_mode,
    ) -> c_int;
}

// ------------------------------------------ Responders and restoration

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct handoff_responder_callbacks {
    pub size: usize,
    pub update_user_activity_state: Option<
        unsafe extern "C" fn(
            responder: *mut handoff_responder,
            activity: *mut handoff_activity,
            user_data: *mut c_void,
        ),
    >,
    pub restore_user_activity_state: Option<
        unsafe extern "C" fn(
            responder: *mut handoff_responder,
            activity: *mut handoff_activity,
            user_data: *mut c_void,
        ),
    >,
}

pub const HANDOFF_RESPONDER_CALLBACKS_INIT: handoff_responder_callbacks =
    handoff_responder_callbacks {
        size: size_of::<handoff_responder_callbacks>(),
        update_user_activity_state: None,
        restore_user_activity_state: None,
    };

extern "C" {
    pub fn handoff_responder_new(
        app: *mut handoff_application,
        callbacks: *const handoff_responder_callbacks,
        user_data: *mut c_void,
        destroy: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    ) -> *mut handoff_responder;
    pub fn handoff_responder_free(responder: *mut handoff_responder);
    pub fn handoff_responder_set_user_activity(
        responder: *mut handoff_responder,
        activity: *mut handoff_activity,
    ) -> c_int;
    pub fn handoff_responder_copy_user_activity(
        responder: *const handoff_responder,
    ) -> *mut handoff_activity;
    pub fn handoff_restoration_handler_restore(
        handler: *mut handoff_restoration_handler,
        responders: *const *mut handoff_responder,
        count: usize,
    ) -> c_int;
    pub fn handoff_restoration_handler_free(handler: *mut handoff_restoration_handler);
}

// ------------------------------------------------------------- Documents

pub const HANDOFF_DOCUMENT_URL_KEY: &CStr = c"NSUserActivityDocumentURLKey";
pub const HANDOFF_DOCUMENT_ORIGINS_KEY: &CStr = c"HandoffDocumentOrigins";

opaque!(handoff_document);

extern "C" {
    pub fn handoff_document_new(
        app: *mut handoff_application,
        activity_type: *const c_char,
        path: *const c_char,
    ) -> *mut handoff_document;
    pub fn handoff_document_edited(document: *mut handoff_document) -> c_int;
    pub fn handoff_document_saved(document: *mut handoff_document) -> c_int;
    pub fn handoff_document_activity(document: *const handoff_document) -> *mut handoff_activity;
    pub fn handoff_document_free(document: *mut handoff_document);
    pub fn handoff_url_start_accessing(
        app: *mut handoff_application,
        url: *const c_char,
        path: *mut *mut c_char,
    ) -> c_int;
    pub fn handoff_url_stop_accessing(app: *mut handoff_application, url: *const c_char) -> c_int;
}
