// SPDX-License-Identifier: MIT OR Apache-2.0
//! userInfo values through the library and back: every kind, nesting,
//! sets, the binary property list, and the values the library refuses.

use std::time::{Duration, UNIX_EPOCH};

use handoff::{Activity, Date, ErrorCode, UserInfo, Value, ValueKind};

fn dict(entries: &[(&str, Value)]) -> UserInfo {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// One value of every kind, nested.
fn every_kind() -> Value {
    Value::Dictionary(dict(&[
        ("null", Value::Null),
        ("yes", Value::Boolean(true)),
        ("no", Value::Boolean(false)),
        ("min", Value::Integer(i64::MIN)),
        ("max", Value::Integer(i64::MAX)),
        ("real", Value::Real(-2.5e-300)),
        ("text", Value::from("Grüße, 世界 🎉")),
        ("empty text", Value::from("")),
        ("data", Value::Data((0..=255).collect())),
        ("empty data", Value::Data(Vec::new())),
        (
            "date",
            Value::Date(Date::from_unix_seconds(1_700_000_000.25)),
        ),
        ("old date", Value::Date(Date::from_unix_seconds(-86_400.5))),
        ("url", Value::Url("https://example.com/a?b=c#d".into())),
        (
            "array",
            Value::Array(vec![Value::Integer(1), Value::Real(1.0), Value::from("1")]),
        ),
        (
            "set",
            Value::Set(vec![Value::from("b"), Value::from("a"), Value::Integer(3)]),
        ),
        (
            "nested",
            Value::Dictionary(dict(&[(
                "inner",
                Value::Array(vec![Value::Dictionary(UserInfo::new())]),
            )])),
        ),
    ]))
}

#[test]
fn every_kind_round_trips_through_the_binary_property_list() {
    let value = every_kind();
    let bytes = value.encode().expect("encode");
    assert!(
        bytes.starts_with(b"bplist00"),
        "not a binary plist: {:?}",
        &bytes[..8.min(bytes.len())]
    );
    assert_eq!(Value::decode(&bytes).expect("decode"), value);
}

#[test]
fn every_kind_round_trips_through_an_activity_user_info() {
    let Value::Dictionary(info) = every_kind() else {
        unreachable!()
    };
    let activity = Activity::new("com.example.values.test").unwrap();
    activity.set_user_info(&info).unwrap();
    assert_eq!(activity.user_info().unwrap(), info);
}

#[test]
fn each_scalar_round_trips_alone() {
    for value in [
        Value::Null,
        Value::Boolean(true),
        Value::Integer(-7),
        Value::Real(0.1),
        Value::from("x"),
        Value::Data(vec![0, 1, 2]),
        Value::Date(Date::from_unix_seconds(0.0)),
        Value::Url("mailto:someone@example.com".into()),
    ] {
        let back = Value::decode(&value.encode().unwrap()).unwrap();
        assert_eq!(back, value);
        assert_eq!(back.kind(), value.kind());
    }
}

#[test]
fn sets_compare_as_sets_and_collapse_duplicates() {
    let a = Value::Set(vec![Value::from("x"), Value::from("y")]);
    let b = Value::Set(vec![Value::from("y"), Value::from("x")]);
    assert_eq!(a, b);
    assert_ne!(a, Value::Set(vec![Value::from("x")]));
    let with_duplicate = Value::Set(vec![Value::from("x"), Value::from("x"), Value::from("y")]);
    assert_eq!(Value::decode(&with_duplicate.encode().unwrap()).unwrap(), a);
}

#[test]
fn integers_and_reals_differ() {
    assert_ne!(Value::Integer(1), Value::Real(1.0));
    let back = Value::decode(
        &Value::Array(vec![Value::Integer(1), Value::Real(1.0)])
            .encode()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        back,
        Value::Array(vec![Value::Integer(1), Value::Real(1.0)])
    );
}

#[test]
fn accessors_and_conversions() {
    let v = Value::Dictionary(dict(&[("n", Value::from(3)), ("s", Value::from("t"))]));
    assert_eq!(v.kind(), ValueKind::Dictionary);
    assert_eq!(v.get("n").and_then(Value::as_i64), Some(3));
    assert_eq!(v.get("s").and_then(Value::as_str), Some("t"));
    assert_eq!(v.get("missing"), None);
    assert_eq!(Value::from(true).as_bool(), Some(true));
    assert_eq!(Value::from(2.5).as_f64(), Some(2.5));
    assert_eq!(Value::from(&b"ab"[..]).as_bytes(), Some(&b"ab"[..]));
    assert_eq!(Value::from("s").as_i64(), None);
}

#[test]
fn dates_convert_to_and_from_system_time() {
    let t = UNIX_EPOCH + Duration::from_millis(1_234_567_890_123);
    let d = Date::from(t);
    assert_eq!(d.unix_seconds(), 1_234_567_890.123);
    // A double holds about 0.2 µs at this magnitude, not nanoseconds.
    let back = d.to_system_time().unwrap();
    let error = back.duration_since(t).unwrap_or_else(|e| e.duration());
    assert!(error < Duration::from_micros(1), "{error:?}");
    let before = UNIX_EPOCH - Duration::from_secs(10);
    assert_eq!(Date::from(before).unix_seconds(), -10.0);
    assert_eq!(Date::from(before).to_system_time(), Some(before));
    assert_eq!(Date::from_unix_seconds(f64::NAN).to_system_time(), None);
}

// ------------------------------------------------------------ refused

fn error_of(result: handoff::Result<Vec<u8>>) -> handoff::Error {
    result.expect_err("the library should refuse this value")
}

#[test]
fn the_reserved_class_key_is_refused() {
    let e = error_of(Value::Dictionary(dict(&[("$class", Value::Null)])).encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
    assert!(!e.message().is_empty());
}

#[test]
fn a_date_that_is_not_finite_is_refused() {
    for seconds in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = error_of(Value::Date(Date::from_unix_seconds(seconds)).encode());
        assert_eq!(e.code(), ErrorCode::InvalidValue, "{seconds}");
    }
}

#[test]
fn a_relative_url_is_refused() {
    let e = error_of(Value::Url("no/scheme".into()).encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
}

#[test]
fn nul_bytes_cannot_cross_into_c() {
    let e = error_of(Value::from("a\0b").encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
    assert!(e.message().contains("NUL"), "{e}");
    let e = error_of(Value::Dictionary(dict(&[("k\0", Value::Null)])).encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(Value::Integer(0), |inner, _| Value::Array(vec![inner]))
}

#[test]
fn nesting_beyond_sixteen_levels_is_refused_by_the_library() {
    assert!(nested(15).encode().is_ok());
    let e = error_of(nested(40).encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
}

#[test]
fn very_deep_nesting_is_refused_without_exhausting_the_stack() {
    let mut v = nested(100_000);
    let e = error_of(v.encode());
    assert_eq!(e.code(), ErrorCode::InvalidValue);
    assert!(e.message().contains("nests deeper"), "{e}");
    // Dropping 100 000 nested Vecs recursively would itself overflow a
    // test thread's stack (as for any recursive Rust enum): take it apart
    // iteratively.
    while let Value::Array(mut items) = v {
        v = items.pop().unwrap_or(Value::Null);
    }
}

// ------------------------------------------------------ hostile bytes

#[test]
fn empty_and_garbage_bytes_are_malformed() {
    for bytes in [&b""[..], b"bplist00", b"not a plist at all", &[0xff; 64]] {
        let e = Value::decode(bytes).expect_err("garbage decoded");
        assert_eq!(e.code(), ErrorCode::MalformedData, "{bytes:?}");
    }
}

#[test]
fn every_truncation_of_a_valid_encoding_is_malformed() {
    let bytes = every_kind().encode().unwrap();
    for n in 0..bytes.len() {
        let e = Value::decode(&bytes[..n]).expect_err("a truncated plist decoded");
        assert_eq!(e.code(), ErrorCode::MalformedData, "prefix of {n} bytes");
    }
}

#[test]
fn corrupted_encodings_decode_or_fail_cleanly() {
    let bytes = every_kind().encode().unwrap();
    let mut failures = 0;
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            match Value::decode(&b) {
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.code(), ErrorCode::MalformedData, "byte {i} ^ {flip:#x}");
                    failures += 1;
                }
            }
        }
    }
    assert!(failures > 0, "no corruption was noticed at all");
}
