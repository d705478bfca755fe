// SPDX-License-Identifier: MIT OR Apache-2.0
//! Activities, manifests, accounts, errors and versions through the safe
//! API: properties, ownership and identity, thread use, and what the
//! library refuses.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

use handoff::{
    Account, Activity, ActivityDelegate, ActivityFlag, ActivityRef, Date, ErrorCode, Manifest,
    UserInfo, Value,
};

const TYPE: &str = "com.example.model.edit";

fn info(entries: &[(&str, Value)]) -> UserInfo {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

// ------------------------------------------------------------- activity

#[test]
fn a_new_activity_has_its_type_a_fresh_id_and_defaults() {
    let a = Activity::new(TYPE).unwrap();
    let b = Activity::new(TYPE).unwrap();
    assert_eq!(a.activity_type(), TYPE);
    assert_eq!(a.id().len(), 36, "{}", a.id());
    assert_eq!(a.id(), a.id().to_uppercase());
    assert_ne!(a.id(), b.id());
    assert_eq!(a.title(), None);
    assert_eq!(a.expiration_date(), None);
    assert!(a.is_eligible_for_handoff());
    assert!(!a.flag(ActivityFlag::EligibleForSearch));
    assert!(!a.flag(ActivityFlag::NeedsSave));
    assert!(!a.flag(ActivityFlag::SupportsContinuationStreams));
    assert!(a.user_info().unwrap().is_empty());
    assert!(!a.is_invalidated());
}

#[test]
fn a_type_that_cannot_be_a_type_is_refused_with_the_librarys_message() {
    let long = "a".repeat(256);
    for bad in ["", "tab\there", "line\nbreak", long.as_str()] {
        let e = Activity::new(bad).expect_err(bad);
        assert_eq!(e.code(), ErrorCode::InvalidValue, "{bad:?}");
        assert!(!e.message().is_empty());
    }
    let e = Activity::new("com.example\0.x").unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidValue);
}

#[test]
fn string_properties_set_read_and_clear() {
    let a = Activity::new(TYPE).unwrap();
    a.set_title(Some("Notes — draft")).unwrap();
    a.set_webpage_url(Some("https://example.com/notes/1"))
        .unwrap();
    a.set_referrer_url(Some("http://example.com/")).unwrap();
    a.set_target_content_identifier(Some("note-1")).unwrap();
    a.set_persistent_identifier(Some("p-1")).unwrap();
    assert_eq!(a.title().as_deref(), Some("Notes — draft"));
    assert_eq!(
        a.webpage_url().as_deref(),
        Some("https://example.com/notes/1")
    );
    assert_eq!(a.referrer_url().as_deref(), Some("http://example.com/"));
    assert_eq!(a.target_content_identifier().as_deref(), Some("note-1"));
    assert_eq!(a.persistent_identifier().as_deref(), Some("p-1"));
    a.set_title(None).unwrap();
    a.set_webpage_url(None).unwrap();
    assert_eq!(a.title(), None);
    assert_eq!(a.webpage_url(), None);
}

#[test]
fn a_web_page_url_must_be_http_and_a_refusal_changes_nothing() {
    let a = Activity::new(TYPE).unwrap();
    a.set_webpage_url(Some("https://example.com/")).unwrap();
    let e = a.set_webpage_url(Some("ftp://example.com/")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidValue);
    assert_eq!(a.webpage_url().as_deref(), Some("https://example.com/"));
}

#[test]
fn expiration_date_flags_keywords_and_required_keys() {
    let a = Activity::new(TYPE).unwrap();
    a.set_expiration_date(Some(Date::from_unix_seconds(4_000_000_000.5)))
        .unwrap();
    assert_eq!(
        a.expiration_date(),
        Some(Date::from_unix_seconds(4_000_000_000.5))
    );
    assert_eq!(
        a.set_expiration_date(Some(Date::from_unix_seconds(f64::NAN)))
            .unwrap_err()
            .code(),
        ErrorCode::InvalidValue
    );
    a.set_expiration_date(None).unwrap();
    assert_eq!(a.expiration_date(), None);

    a.set_eligible_for_handoff(false).unwrap();
    a.set_flag(ActivityFlag::SupportsContinuationStreams, true)
        .unwrap();
    assert!(!a.is_eligible_for_handoff());
    assert!(a.flag(ActivityFlag::SupportsContinuationStreams));

    a.set_keywords(&["pear", "apple", "pear"]).unwrap();
    assert_eq!(a.keywords(), ["apple", "pear"]);
    a.set_required_user_info_keys(&["id".to_owned(), "cursor".to_owned()])
        .unwrap();
    assert_eq!(a.required_user_info_keys(), ["cursor", "id"]);
    a.set_keywords::<&str>(&[]).unwrap();
    assert!(a.keywords().is_empty());
}

#[test]
fn user_info_replaces_and_merges() {
    let a = Activity::new(TYPE).unwrap();
    a.set_user_info(&info(&[("a", Value::from(1)), ("b", Value::from(2))]))
        .unwrap();
    a.add_user_info_entries(&info(&[("b", Value::from("two")), ("c", Value::Null)]))
        .unwrap();
    assert_eq!(
        a.user_info().unwrap(),
        info(&[
            ("a", Value::from(1)),
            ("b", Value::from("two")),
            ("c", Value::Null)
        ])
    );
    assert!(a.user_info_size() > 0);
    a.set_user_info(&UserInfo::new()).unwrap();
    assert!(a.user_info().unwrap().is_empty());
}

#[test]
fn a_refused_user_info_changes_nothing() {
    let a = Activity::new(TYPE).unwrap();
    a.set_user_info(&info(&[("kept", Value::from(true))]))
        .unwrap();
    let e = a
        .set_user_info(&info(&[("$class", Value::Null)]))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidValue);
    assert_eq!(a.user_info().unwrap(), info(&[("kept", Value::from(true))]));
}

#[test]
fn encoding_enforces_the_budget_with_apples_code() {
    let a = Activity::new(TYPE).unwrap();
    a.set_user_info(&info(&[(
        "blob",
        Value::Data(vec![7; handoff::USER_INFO_BUDGET + 1]),
    )]))
    .unwrap();
    assert!(a.user_info_size() > handoff::USER_INFO_BUDGET);
    let e = a.encode().unwrap_err();
    assert_eq!(e.code(), ErrorCode::UserInfoTooLarge);
    assert_eq!(e.raw_code(), 4611);
    assert!(e.is_user_activity_error());
}

#[test]
fn encoding_requires_the_required_keys() {
    let a = Activity::new(TYPE).unwrap();
    a.set_required_user_info_keys(&["id"]).unwrap();
    assert_eq!(
        a.encode().unwrap_err().code(),
        ErrorCode::MissingRequiredKey
    );
    a.set_user_info(&info(&[("id", Value::from("x"))])).unwrap();
    assert!(a.encode().is_ok());
}

#[test]
fn an_encoded_activity_decodes_with_its_id_and_state() {
    let a = Activity::new(TYPE).unwrap();
    a.set_title(Some("Round trip")).unwrap();
    a.set_webpage_url(Some("https://example.com/x")).unwrap();
    a.set_user_info(&info(&[
        ("cursor", Value::from(42)),
        ("doc", Value::from("D-1")),
    ]))
    .unwrap();
    let b = Activity::decode(&a.encode().unwrap()).unwrap();
    assert_ne!(a, b, "a decoded activity is another object");
    assert_eq!(b.id(), a.id());
    assert_eq!(b.activity_type(), TYPE);
    assert_eq!(b.title().as_deref(), Some("Round trip"));
    assert_eq!(b.webpage_url().as_deref(), Some("https://example.com/x"));
    assert_eq!(b.user_info().unwrap(), a.user_info().unwrap());
}

#[test]
fn hostile_payloads_are_malformed() {
    let good = {
        let a = Activity::new(TYPE).unwrap();
        a.set_user_info(&info(&[("k", Value::from("v"))])).unwrap();
        a.encode().unwrap()
    };
    for n in 0..good.len() {
        assert_eq!(
            Activity::decode(&good[..n]).unwrap_err().code(),
            ErrorCode::MalformedData,
            "prefix {n}"
        );
    }
    // A valid plist that is not an activity payload.
    let not_activity = Value::from("hello").encode().unwrap();
    assert_eq!(
        Activity::decode(&not_activity).unwrap_err().code(),
        ErrorCode::MalformedData
    );
}

#[test]
fn clones_and_borrowed_references_are_the_same_activity() {
    let a = Activity::new(TYPE).unwrap();
    let b = a.clone();
    let r: &ActivityRef = &a;
    let c = r.to_owned();
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a.as_ptr(), c.as_ptr());
    drop(a);
    b.set_title(Some("still alive")).unwrap();
    assert_eq!(c.title().as_deref(), Some("still alive"));
}

#[test]
fn invalidating_is_final_and_idempotent() {
    let a = Activity::new(TYPE).unwrap();
    a.invalidate().unwrap();
    a.invalidate().unwrap();
    assert!(a.is_invalidated());
}

#[test]
fn activities_are_shared_between_threads() {
    let a = Activity::new(TYPE).unwrap();
    let titles: Vec<String> = (0..4).map(|i| format!("title {i}")).collect();
    thread::scope(|s| {
        for t in &titles {
            let a = a.clone();
            s.spawn(move || {
                for _ in 0..300 {
                    a.set_title(Some(t)).unwrap();
                    let read = a.title().unwrap();
                    assert!(read.starts_with("title "), "{read:?}");
                    a.set_keywords(&[t.as_str(), "common"]).unwrap();
                    let keywords = a.keywords();
                    assert!(
                        keywords.len() <= 2
                            && keywords
                                .iter()
                                .all(|k| k == "common" || k.starts_with("title "))
                    );
                }
            });
        }
    });
    assert!(titles.contains(&a.title().unwrap()));
}

// ------------------------------------------------------ activity delegate

struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Counting {
    _flag: DropFlag,
    calls: Arc<AtomicUsize>,
}

impl ActivityDelegate for Counting {
    fn user_activity_will_save(&mut self, _: &ActivityRef) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting() -> (Counting, Arc<AtomicBool>) {
    let dropped = Arc::new(AtomicBool::new(false));
    (
        Counting {
            _flag: DropFlag(dropped.clone()),
            calls: Arc::default(),
        },
        dropped,
    )
}

#[test]
fn a_delegate_lives_as_long_as_the_activity() {
    let a = Activity::new(TYPE).unwrap();
    let (delegate, dropped) = counting();
    a.set_delegate(delegate).unwrap();
    let other_reference = a.clone();
    drop(a);
    assert!(
        !dropped.load(Ordering::SeqCst),
        "dropped while a reference remains"
    );
    drop(other_reference);
    assert!(
        dropped.load(Ordering::SeqCst),
        "not dropped with the last reference"
    );
}

#[test]
fn replacing_or_clearing_a_delegate_drops_the_old_one() {
    let a = Activity::new(TYPE).unwrap();
    let (first, first_dropped) = counting();
    let (second, second_dropped) = counting();
    a.set_delegate(first).unwrap();
    a.set_delegate(second).unwrap();
    assert!(first_dropped.load(Ordering::SeqCst));
    assert!(!second_dropped.load(Ordering::SeqCst));
    a.clear_delegate().unwrap();
    assert!(second_dropped.load(Ordering::SeqCst));
}

// --------------------------------------------------------------- manifest

#[test]
fn a_manifest_declares_types_in_order() {
    let mut m = Manifest::new("com.example.model", "TEAM42")
        .unwrap()
        .declaring("com.example.model.b")
        .unwrap();
    m.declare_activity_type("com.example.model.a").unwrap();
    m.declare_activity_type("com.example.model.b").unwrap();
    assert_eq!(m.bundle_identifier(), "com.example.model");
    assert_eq!(m.team_identifier(), "TEAM42");
    assert_eq!(
        m.activity_types(),
        ["com.example.model.b", "com.example.model.a"]
    );
    assert!(m.declares("com.example.model.a"));
    assert!(!m.declares("com.example.model.c"));
    assert_eq!(
        m.declare_activity_type("bad\ttype").unwrap_err().code(),
        ErrorCode::InvalidValue
    );
}

#[test]
fn bad_identifiers_are_refused() {
    assert_eq!(
        Manifest::new("nodots", "TEAM").unwrap_err().code(),
        ErrorCode::InvalidValue
    );
    assert_eq!(
        Manifest::new("com.example.x", "team with space")
            .unwrap_err()
            .code(),
        ErrorCode::InvalidValue
    );
    assert_eq!(
        Manifest::new("com.example.x", &"T".repeat(33))
            .unwrap_err()
            .code(),
        ErrorCode::InvalidValue
    );
}

const INFO_PLIST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>CFBundleIdentifier</key><string>com.example.plist</string>
  <key>HandoffTeamIdentifier</key><string>PLISTTEAM</string>
  <key>NSUserActivityTypes</key>
  <array><string>com.example.plist.view</string><string>com.example.plist.edit</string></array>
</dict>
</plist>
"#;

#[test]
fn a_manifest_loads_from_an_info_plist() {
    let m = Manifest::load_data(INFO_PLIST.as_bytes()).unwrap();
    assert_eq!(m.bundle_identifier(), "com.example.plist");
    assert_eq!(m.team_identifier(), "PLISTTEAM");
    assert_eq!(
        m.activity_types(),
        ["com.example.plist.view", "com.example.plist.edit"]
    );

    let dir = scratch_dir("manifest");
    let path = dir.join("Info.plist");
    fs::write(&path, INFO_PLIST).unwrap();
    assert_eq!(
        Manifest::load(&path).unwrap().team_identifier(),
        "PLISTTEAM"
    );
    assert_eq!(
        Manifest::load(dir.join("missing.plist"))
            .unwrap_err()
            .code(),
        ErrorCode::Io
    );
    assert_eq!(
        Manifest::load_data(b"garbage").unwrap_err().code(),
        ErrorCode::MalformedData
    );
    fs::remove_dir_all(dir).unwrap();
}

const WARNED_PLIST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0">
<dict>
  <key>CFBundleIdentifier</key><string>com.example.warned</string>
  <key>HandoffTeamIdentifier</key><string>WARNTEAM</string>
  <key>NSUserActivityTypes</key>
  <array>
    <string>com.example.warned.edit</string>
    <string></string>
    <string>INSendMessageIntent</string>
    <integer>42</integer>
    <string>ReadArticle</string>
  </array>
</dict>
</plist>
"#;

#[test]
fn entries_that_cannot_be_types_are_skipped_with_warnings() {
    let mut m = Manifest::load_data(WARNED_PLIST.as_bytes()).unwrap();
    assert_eq!(
        m.activity_types(),
        [
            "com.example.warned.edit",
            "INSendMessageIntent",
            "ReadArticle"
        ]
    );
    let warnings = m.warnings();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("Info.plist: NSUserActivityTypes[1]")
            && warnings[0].contains("empty"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].starts_with("Info.plist: NSUserActivityTypes[3]")
            && warnings[1].contains("integer (42)"),
        "{warnings:?}"
    );
    m.declare_activity_type("com.example.warned.share").unwrap();
    assert_eq!(m.warnings(), warnings, "declaring adds no warning");

    let dir = scratch_dir("warnings");
    let path = dir.join("Info.plist");
    fs::write(&path, WARNED_PLIST).unwrap();
    let from_file = Manifest::load(&path).unwrap().warnings();
    assert_eq!(from_file.len(), 2);
    assert!(
        from_file[0].contains(path.to_str().unwrap()),
        "{from_file:?}"
    );
    fs::remove_dir_all(dir).unwrap();

    assert!(Manifest::load_data(INFO_PLIST.as_bytes())
        .unwrap()
        .warnings()
        .is_empty());
    assert!(Manifest::new("com.example.warned", "WARNTEAM")
        .unwrap()
        .warnings()
        .is_empty());
}

// ---------------------------------------------------------------- account

/// A fresh folder under cargo's scratch space for integration tests.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("model-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_pairing_code_carries_the_account() {
    let a = Account::new().unwrap();
    let b = Account::new().unwrap();
    assert_eq!(a.id().len(), 16);
    assert!(a.id().chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a.id(), b.id());
    let code = a.pairing_code();
    assert_eq!(Account::from_pairing_code(&code).unwrap().id(), a.id());
    assert_eq!(
        Account::from_pairing_code(&code.to_lowercase())
            .unwrap()
            .id(),
        a.id()
    );
    assert!(
        !format!("{a:?}").contains(&code),
        "Debug must not show the secret"
    );
}

#[test]
fn a_mistyped_pairing_code_is_refused_with_a_reason() {
    let code = Account::new().unwrap().pairing_code();
    let mut typo: Vec<char> = code.chars().collect();
    let i = typo.iter().position(|c| c.is_ascii_alphanumeric()).unwrap();
    typo[i] = if typo[i] == '2' { '3' } else { '2' };
    let typo: String = typo.into_iter().collect();
    for bad in [typo.as_str(), "", "ABC"] {
        let e = Account::from_pairing_code(bad).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidValue, "{bad:?}");
        assert!(!e.message().is_empty());
    }
}

#[test]
fn an_account_from_a_key_is_deterministic() {
    let key: [u8; 32] = std::array::from_fn(|i| i as u8);
    assert_eq!(
        Account::from_key(&key).unwrap().id(),
        Account::from_key(&key).unwrap().id()
    );
    // docs/PROTOCOL.md §4: the account id of the test key 00..1f.
    assert_eq!(Account::from_key(&key).unwrap().id(), "f95a8593f326c9d2");
}

#[test]
fn an_account_is_saved_private_and_loaded_back() {
    let dir = scratch_dir("account");
    assert_eq!(
        Account::load(Some(&dir)).unwrap_err().code(),
        ErrorCode::NotFound
    );
    let a = Account::new().unwrap();
    a.save(Some(&dir)).unwrap();
    let files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(Account::load(Some(&dir)).unwrap().id(), a.id());

    fs::set_permissions(&files[0], fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        Account::load(Some(&dir)).unwrap_err().code(),
        ErrorCode::Permission
    );
    fs::set_permissions(&files[0], fs::Permissions::from_mode(0o600)).unwrap();
    fs::write(&files[0], b"not an account").unwrap();
    assert_eq!(
        Account::load(Some(&dir)).unwrap_err().code(),
        ErrorCode::MalformedData
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn accounts_and_manifests_cross_threads() {
    let account = Arc::new(Account::new().unwrap());
    let manifest = Arc::new(Manifest::new("com.example.threads", "T1").unwrap());
    let ids: Vec<String> = (0..3)
        .map(|_| {
            let (account, manifest) = (account.clone(), manifest.clone());
            thread::spawn(move || format!("{} {}", account.id(), manifest.bundle_identifier()))
        })
        .map(|t| t.join().unwrap())
        .collect();
    assert!(ids
        .iter()
        .all(|i| *i == format!("{} com.example.threads", account.id())));
}

// ------------------------------------------------------ errors, versions

#[test]
fn error_codes_keep_the_librarys_numbers() {
    let all = [
        (ErrorCode::InvalidArgument, 1),
        (ErrorCode::InvalidValue, 2),
        (ErrorCode::TypeMismatch, 3),
        (ErrorCode::NotFound, 4),
        (ErrorCode::MalformedData, 5),
        (ErrorCode::Io, 6),
        (ErrorCode::MissingRequiredKey, 7),
        (ErrorCode::InvalidState, 8),
        (ErrorCode::WrongThread, 9),
        (ErrorCode::TimedOut, 10),
        (ErrorCode::Permission, 11),
        (ErrorCode::HandoffFailed, 4608),
        (ErrorCode::ConnectionUnavailable, 4609),
        (ErrorCode::RemoteApplicationTimedOut, 4610),
        (ErrorCode::UserInfoTooLarge, 4611),
    ];
    for (code, raw) in all {
        assert_eq!(code.raw(), raw);
        assert_eq!(ErrorCode::from_raw(raw), Some(code));
        assert_eq!(code.is_user_activity_error(), raw >= 4608, "{code:?}");
        assert_ne!(code.description(), "unknown status", "{code:?}");
    }
    assert_eq!(ErrorCode::from_raw(0), None);
    assert_eq!(ErrorCode::from_raw(4700), Some(ErrorCode::Other(4700)));
    assert!(ErrorCode::Other(4700).is_user_activity_error());
    assert_eq!(ErrorCode::Other(77).description(), "unknown status");
    assert_eq!(
        ErrorCode::UserInfoTooLarge.description(),
        "userInfo too large"
    );
}

#[test]
fn an_error_shows_its_message_and_code() {
    let e = Activity::new("").unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains(e.message()), "{shown}");
    assert!(shown.ends_with("(error 2: value refused)"), "{shown}");
}

#[test]
fn the_loaded_library_is_the_headers_version() {
    assert_eq!(handoff::library_version(), handoff::HEADER_VERSION);
    assert_eq!(
        handoff::library_version_number(),
        handoff::sys::HANDOFF_VERSION_NUMBER as u32
    );
}

#[test]
fn manifests_claim_web_domains() {
    let mut m = Manifest::new("com.example.model", "TEAM42").unwrap();
    assert!(m.web_domains().is_empty());
    m.declare_web_domain("Example.COM").unwrap();
    m.declare_web_domain("*.docs.example.org").unwrap();
    m.declare_web_domain("example.com").unwrap();
    assert_eq!(m.web_domains(), ["example.com", "*.docs.example.org"]);
    for bad in [
        "",
        "https://example.com",
        "example.com:8080",
        "*example.com",
    ] {
        assert_eq!(
            m.declare_web_domain(bad).unwrap_err().code(),
            ErrorCode::InvalidValue
        );
    }
}

#[test]
fn searchable_user_info_keys_round_trip() {
    let a = Activity::new("com.example.notes.edit").unwrap();
    a.set_searchable_user_info_keys(&["body", "tags", "body"])
        .unwrap();
    assert_eq!(
        a.searchable_user_info_keys(),
        vec!["body".to_owned(), "tags".to_owned()]
    );
    a.set_searchable_user_info_keys::<&str>(&[]).unwrap();
    assert!(a.searchable_user_info_keys().is_empty());
}
