// SPDX-License-Identifier: MIT OR Apache-2.0
//! userInfo values: exactly the types Handoff carries, as a Rust enum, and
//! their conversion to and from the library's `handoff_value`.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::ptr::{self, NonNull};
use std::slice;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{check, Error, ErrorCode, Result};
use crate::strings::c_string;
use crate::sys;

/// A userInfo dictionary: string keys, sorted by the bytes of their UTF-8
/// as the library sorts them.
///
/// The library treats canonically equivalent keys (precomposed `"\u{e9}"`
/// and decomposed `"e\u{301}"`) as one key; a map holding both becomes one
/// entry once it crosses the boundary.
pub type UserInfo = BTreeMap<String, Value>;

/// A userInfo value (Apple: the property-list types a userInfo may hold).
///
/// Anything else cannot be built, so the "refused when set" rule of Apple's
/// API holds by construction; the library still refuses what breaks its
/// other rules (a `"$class"` key, nesting deeper than 16 levels, a date
/// that is not finite, a relative URL) with [`ErrorCode::InvalidValue`].
///
/// Equality is structural, except that sets compare as sets (members in
/// any order). Integer `1` and real `1.0` differ, as in the library.
#[derive(Clone, Debug)]
pub enum Value {
    /// Null (Apple: `NSNull`).
    Null,
    /// A boolean.
    Boolean(bool),
    /// A signed 64-bit integer.
    Integer(i64),
    /// A double.
    Real(f64),
    /// A string. It may hold NUL bytes when decoded, but not when set.
    String(String),
    /// Bytes.
    Data(Vec<u8>),
    /// A point in time.
    Date(Date),
    /// An absolute URL with a scheme, as text.
    Url(String),
    /// An ordered list.
    Array(Vec<Value>),
    /// Entries by string key.
    Dictionary(UserInfo),
    /// Unordered distinct members; duplicates collapse in the library.
    Set(Vec<Value>),
}

/// The kind of a [`Value`] (`handoff_value_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// [`Value::Null`]
    Null,
    /// [`Value::Boolean`]
    Boolean,
    /// [`Value::Integer`]
    Integer,
    /// [`Value::Real`]
    Real,
    /// [`Value::String`]
    String,
    /// [`Value::Data`]
    Data,
    /// [`Value::Date`]
    Date,
    /// [`Value::Url`]
    Url,
    /// [`Value::Array`]
    Array,
    /// [`Value::Dictionary`]
    Dictionary,
    /// [`Value::Set`]
    Set,
}

/// A point in time as the library keeps it: seconds since
/// 1970-01-01T00:00:00Z, fractional, before the epoch negative.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Date {
    unix_seconds: f64,
}

impl Date {
    /// The date `seconds` after the Unix epoch (before it when negative).
    pub fn from_unix_seconds(seconds: f64) -> Date {
        Date {
            unix_seconds: seconds,
        }
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(self) -> f64 {
        self.unix_seconds
    }

    /// Now, by the system clock.
    pub fn now() -> Date {
        Date::from(SystemTime::now())
    }

    /// The same point as a `SystemTime`; `None` when not finite or out of
    /// the range `SystemTime` holds.
    pub fn to_system_time(self) -> Option<SystemTime> {
        let s = self.unix_seconds;
        if !s.is_finite() {
            return None;
        }
        let magnitude = Duration::try_from_secs_f64(s.abs()).ok()?;
        if s >= 0.0 {
            UNIX_EPOCH.checked_add(magnitude)
        } else {
            UNIX_EPOCH.checked_sub(magnitude)
        }
    }
}

impl From<SystemTime> for Date {
    fn from(t: SystemTime) -> Date {
        match t.duration_since(UNIX_EPOCH) {
            Ok(after) => Date::from_unix_seconds(after.as_secs_f64()),
            Err(before) => Date::from_unix_seconds(-before.duration().as_secs_f64()),
        }
    }
}

impl Value {
    /// The value's kind.
    pub fn kind(&self) -> ValueKind {
        match self {
            Value::Null => ValueKind::Null,
            Value::Boolean(_) => ValueKind::Boolean,
            Value::Integer(_) => ValueKind::Integer,
            Value::Real(_) => ValueKind::Real,
            Value::String(_) => ValueKind::String,
            Value::Data(_) => ValueKind::Data,
            Value::Date(_) => ValueKind::Date,
            Value::Url(_) => ValueKind::Url,
            Value::Array(_) => ValueKind::Array,
            Value::Dictionary(_) => ValueKind::Dictionary,
            Value::Set(_) => ValueKind::Set,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// An integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// A real value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Real(x) => Some(*x),
            _ => None,
        }
    }

    /// A boolean value.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }

    /// The bytes of a data value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Data(d) => Some(d),
            _ => None,
        }
    }

    /// The entries of a dictionary value.
    pub fn as_dictionary(&self) -> Option<&UserInfo> {
        match self {
            Value::Dictionary(d) => Some(d),
            _ => None,
        }
    }

    /// The entry `key` of a dictionary value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_dictionary()?.get(key)
    }

    /// The binary property list of this value (`bplist00`, readable by
    /// Python's plistlib; docs/PROTOCOL.md says how null, set and URL are
    /// tagged). [`ErrorCode::InvalidValue`] when it breaks a userInfo rule,
    /// e.g. nesting deeper than 16 levels.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let raw = RawValue::from_value(self)?;
        let mut bytes: *mut u8 = ptr::null_mut();
        let mut length = 0usize;
        // SAFETY: a live value and two out-parameters.
        check(unsafe { sys::handoff_value_encode(raw.as_ptr(), &mut bytes, &mut length) })?;
        // SAFETY: on success the library hands out `length` bytes we own.
        Ok(unsafe { take_buffer(bytes, length) })
    }

    /// The value of a binary property list. [`ErrorCode::MalformedData`]
    /// for bytes that are not a property list of userInfo types; hostile
    /// input is safe to pass.
    pub fn decode(bytes: &[u8]) -> Result<Value> {
        // SAFETY: `bytes` is valid for its length (never NULL, even empty).
        let raw =
            unsafe { sys::handoff_value_decode(bytes.as_ptr().cast::<c_void>(), bytes.len()) };
        let raw = RawValue::from_owned(raw)?;
        raw.to_value()
    }
}

/// Copies and releases a buffer the library allocated for the caller.
///
/// # Safety
/// `bytes` is NULL or a `handoff_free`-able buffer of `length` bytes.
pub(crate) unsafe fn take_buffer(bytes: *mut u8, length: usize) -> Vec<u8> {
    if bytes.is_null() {
        return Vec::new();
    }
    let copy = slice::from_raw_parts(bytes, length).to_vec();
    sys::handoff_free(bytes.cast::<c_void>());
    copy
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Boolean(a), Boolean(b)) => a == b,
            (Integer(a), Integer(b)) => a == b,
            (Real(a), Real(b)) => a == b,
            (String(a), String(b)) | (Url(a), Url(b)) => a == b,
            (Data(a), Data(b)) => a == b,
            (Date(a), Date(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Dictionary(a), Dictionary(b)) => a == b,
            (Set(a), Set(b)) => same_members(a, b),
            _ => false,
        }
    }
}

/// Set equality without hashing (reals are not `Eq`): each member of one
/// is in the other, and the sizes match. Sets in userInfo are small.
fn same_members(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x)) && b.iter().all(|y| a.contains(y))
}

macro_rules! value_from {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {$(
        impl From<$t> for Value {
            fn from($v: $t) -> Value { $e }
        }
    )*};
}

value_from! {
    bool => |v| Value::Boolean(v),
    i64 => |v| Value::Integer(v),
    i32 => |v| Value::Integer(v.into()),
    u32 => |v| Value::Integer(v.into()),
    f64 => |v| Value::Real(v),
    &str => |v| Value::String(v.to_owned()),
    String => |v| Value::String(v),
    Vec<u8> => |v| Value::Data(v),
    &[u8] => |v| Value::Data(v.to_vec()),
    Date => |v| Value::Date(v),
    SystemTime => |v| Value::Date(v.into()),
    Vec<Value> => |v| Value::Array(v),
    UserInfo => |v| Value::Dictionary(v),
}

// ------------------------------------------------- the library's values

/// How deep this crate converts nested values before it refuses (the
/// library refuses deeper than 16 levels when a value is encoded or set
/// as userInfo; this bound only keeps the recursion off the stack's end).
const MAX_CONVERSION_DEPTH: usize = 256;

/// An owned `handoff_value`, released on drop.
pub(crate) struct RawValue(NonNull<sys::handoff_value>);

impl Drop for RawValue {
    fn drop(&mut self) {
        // SAFETY: owned, released once.
        unsafe { sys::handoff_value_free(self.0.as_ptr()) }
    }
}

impl RawValue {
    /// Takes ownership of a constructor's result; NULL is its error.
    pub(crate) fn from_owned(p: *mut sys::handoff_value) -> Result<RawValue> {
        NonNull::new(p).map(RawValue).ok_or_else(Error::last)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::handoff_value {
        self.0.as_ptr()
    }

    /// The library's copy of a Rust value.
    pub(crate) fn from_value(value: &Value) -> Result<RawValue> {
        build(value, 0)
    }

    /// A dictionary value of userInfo entries.
    pub(crate) fn from_user_info(info: &UserInfo) -> Result<RawValue> {
        build_dictionary(info, 0)
    }

    /// The Rust copy of this value.
    pub(crate) fn to_value(&self) -> Result<Value> {
        // SAFETY: a live value.
        unsafe { read(self.as_ptr(), 0) }
    }
}

fn too_deep() -> Error {
    Error::new(
        ErrorCode::InvalidValue,
        format!("the value nests deeper than {MAX_CONVERSION_DEPTH} levels; userInfo allows 16"),
    )
}

fn build(value: &Value, depth: usize) -> Result<RawValue> {
    if depth > MAX_CONVERSION_DEPTH {
        return Err(too_deep());
    }
    // SAFETY (every call below): constructors take plain values or strings
    // valid for the call; containers get live items, which they copy.
    let raw = match value {
        Value::Null => unsafe { sys::handoff_value_new_null() },
        Value::Boolean(b) => unsafe { sys::handoff_value_new_boolean(c_int::from(*b)) },
        Value::Integer(i) => unsafe { sys::handoff_value_new_integer(*i) },
        Value::Real(x) => unsafe { sys::handoff_value_new_real(*x) },
        Value::String(s) => {
            let s = c_string(s, "a string value")?;
            unsafe { sys::handoff_value_new_string(s.as_ptr()) }
        }
        Value::Data(d) => unsafe {
            sys::handoff_value_new_data(d.as_ptr().cast::<c_void>(), d.len())
        },
        Value::Date(d) => unsafe { sys::handoff_value_new_date(d.unix_seconds()) },
        Value::Url(u) => {
            let u = c_string(u, "a URL value")?;
            unsafe { sys::handoff_value_new_url(u.as_ptr()) }
        }
        Value::Array(items) => {
            let array = RawValue::from_owned(unsafe { sys::handoff_value_new_array() })?;
            for item in items {
                let item = build(item, depth + 1)?;
                check(unsafe { sys::handoff_value_array_append(array.0.as_ptr(), item.as_ptr()) })?;
            }
            return Ok(array);
        }
        Value::Dictionary(entries) => return build_dictionary(entries, depth),
        Value::Set(members) => {
            let set = RawValue::from_owned(unsafe { sys::handoff_value_new_set() })?;
            for member in members {
                let member = build(member, depth + 1)?;
                check(unsafe { sys::handoff_value_set_add(set.0.as_ptr(), member.as_ptr()) })?;
            }
            return Ok(set);
        }
    };
    RawValue::from_owned(raw)
}

fn build_dictionary(entries: &UserInfo, depth: usize) -> Result<RawValue> {
    // SAFETY: see `build`.
    let dictionary = RawValue::from_owned(unsafe { sys::handoff_value_new_dictionary() })?;
    for (key, item) in entries {
        let c_key = c_string(key, "a dictionary key")?;
        let item = build(item, depth + 1)?;
        check(unsafe {
            sys::handoff_value_dictionary_set(dictionary.0.as_ptr(), c_key.as_ptr(), item.as_ptr())
        })?;
    }
    Ok(dictionary)
}

/// Reads a library value into a Rust one.
///
/// # Safety
/// `p` is a live value that nothing changes during the call.
unsafe fn read(p: *const sys::handoff_value, depth: usize) -> Result<Value> {
    if depth > MAX_CONVERSION_DEPTH {
        return Err(too_deep());
    }
    let value = match sys::handoff_value_get_kind(p) {
        sys::HANDOFF_VALUE_NULL => Value::Null,
        sys::HANDOFF_VALUE_BOOLEAN => {
            let mut b: c_int = 0;
            check(sys::handoff_value_get_boolean(p, &mut b))?;
            Value::Boolean(b != 0)
        }
        sys::HANDOFF_VALUE_INTEGER => {
            let mut i = 0i64;
            check(sys::handoff_value_get_integer(p, &mut i))?;
            Value::Integer(i)
        }
        sys::HANDOFF_VALUE_REAL => {
            let mut x = 0f64;
            check(sys::handoff_value_get_real(p, &mut x))?;
            Value::Real(x)
        }
        sys::HANDOFF_VALUE_DATE => {
            let mut x = 0f64;
            check(sys::handoff_value_get_date(p, &mut x))?;
            Value::Date(Date::from_unix_seconds(x))
        }
        sys::HANDOFF_VALUE_STRING => {
            let mut length = 0usize;
            let s = sys::handoff_value_get_string(p, &mut length);
            if s.is_null() {
                return Err(Error::last());
            }
            // The length, not the NUL: a decoded string may hold NUL bytes.
            let bytes = slice::from_raw_parts(s.cast::<u8>(), length);
            Value::String(String::from_utf8_lossy(bytes).into_owned())
        }
        sys::HANDOFF_VALUE_DATA => {
            let mut length = 0usize;
            let d = sys::handoff_value_get_data(p, &mut length);
            if d.is_null() {
                return Err(Error::last());
            }
            Value::Data(slice::from_raw_parts(d.cast::<u8>(), length).to_vec())
        }
        sys::HANDOFF_VALUE_URL => match crate::strings::owned(sys::handoff_value_get_url(p)) {
            Some(url) => Value::Url(url),
            None => return Err(Error::last()),
        },
        sys::HANDOFF_VALUE_ARRAY => {
            let count = sys::handoff_value_count(p);
            let mut items = Vec::with_capacity(count);
            for i in 0..count {
                items.push(read_child(sys::handoff_value_array_get(p, i), depth)?);
            }
            Value::Array(items)
        }
        sys::HANDOFF_VALUE_DICTIONARY => {
            let mut entries = UserInfo::new();
            for i in 0..sys::handoff_value_count(p) {
                let key = crate::strings::owned(sys::handoff_value_dictionary_key_at(p, i))
                    .ok_or_else(Error::last)?;
                let item = read_child(sys::handoff_value_dictionary_value_at(p, i), depth)?;
                entries.insert(key, item);
            }
            Value::Dictionary(entries)
        }
        sys::HANDOFF_VALUE_SET => {
            let count = sys::handoff_value_count(p);
            let mut members = Vec::with_capacity(count);
            for i in 0..count {
                members.push(read_child(sys::handoff_value_set_member_at(p, i), depth)?);
            }
            Value::Set(members)
        }
        other => {
            return Err(Error::new(
                ErrorCode::TypeMismatch,
                format!("value kind {other} is unknown to this binding; update the handoff crate"),
            ))
        }
    };
    Ok(value)
}

/// # Safety
/// `p` is NULL (the library's error) or a live borrowed child.
unsafe fn read_child(p: *const sys::handoff_value, depth: usize) -> Result<Value> {
    if p.is_null() {
        return Err(Error::last());
    }
    read(p, depth + 1)
}
