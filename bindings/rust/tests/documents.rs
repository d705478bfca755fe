// SPDX-License-Identifier: MIT OR Apache-2.0
//! Documents through the safe API (docs/documents.md section 6): the keys,
//! a `Document` following its file as editors rename, replace and delete
//! it (inside dispatch on this thread, woken by the application's
//! descriptor: its wake-ups are counted), and `start_accessing`.

use std::ffi::{c_int, c_short, c_ulong};
use std::fs;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};

use handoff::{
    ActivityFlag, Application, Document, ErrorCode, Manifest, Value, DOCUMENT_ORIGINS_KEY,
    DOCUMENT_URL_KEY,
};

const TYPE: &str = "com.example.editor.document";

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: c_short,
    revents: c_short,
}

extern "C" {
    fn poll(fds: *mut PollFd, nfds: c_ulong, timeout: c_int) -> c_int;
}

fn readable(fd: BorrowedFd<'_>, timeout_ms: c_int) -> bool {
    let mut p = PollFd {
        fd: fd.as_raw_fd(),
        events: 1,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { poll(&mut p, 1, timeout_ms) == 1 }
}

/// A folder of this test's own, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("handoff-rust-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir(&path).unwrap();
        Folder(path)
    }
    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn app() -> Application {
    let manifest = Manifest::new("com.example.editor", "TEAM1")
        .unwrap()
        .declaring(TYPE)
        .unwrap();
    Application::new(&manifest, ()).unwrap()
}

fn url(doc: &Document) -> Option<String> {
    match doc.activity().user_info().unwrap().get(DOCUMENT_URL_KEY) {
        Some(Value::Url(u)) => Some(u.clone()),
        _ => None,
    }
}

/// Dispatches at each wake-up (each wait at most 5 s, at most 10) until
/// `done`; the wake-ups counted.
fn wake_ups_until(app: &Application, done: impl Fn() -> bool) -> usize {
    let mut count = 0;
    while !done() && count < 10 {
        if !readable(app.fd(), 5000) {
            break;
        }
        count += 1;
        app.dispatch().unwrap();
    }
    count
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[test]
fn keys_are_apples_and_the_headers() {
    assert_eq!(DOCUMENT_URL_KEY, "NSUserActivityDocumentURLKey");
    assert_eq!(DOCUMENT_ORIGINS_KEY, "HandoffDocumentOrigins");
    assert_eq!(
        handoff::sys::HANDOFF_DOCUMENT_URL_KEY.to_str().unwrap(),
        DOCUMENT_URL_KEY
    );
    assert_eq!(
        handoff::sys::HANDOFF_DOCUMENT_ORIGINS_KEY.to_str().unwrap(),
        DOCUMENT_ORIGINS_KEY
    );
}

#[test]
fn a_document_follows_its_file_in_dispatch() {
    let folder = Folder::new("follow");
    fs::write(folder.join("a.txt"), "v1").unwrap();
    let app = app();
    let doc = Document::new(&app, TYPE, folder.join("a.txt")).unwrap();
    assert_eq!(doc.activity().title().as_deref(), Some("a.txt"));
    assert_eq!(url(&doc), Some(file_url(&folder.join("a.txt"))));
    assert_eq!(app.current_activity().unwrap().id(), doc.activity().id());

    fs::rename(folder.join("a.txt"), folder.join("b.txt")).unwrap();
    assert!(readable(app.fd(), 5000));
    assert_eq!(
        doc.activity().title().as_deref(),
        Some("a.txt"),
        "nothing changes outside dispatch"
    );
    let mut wake_ups = wake_ups_until(&app, || doc.activity().title().as_deref() == Some("b.txt"));
    assert_eq!(url(&doc), Some(file_url(&folder.join("b.txt"))));

    // A save by replacement, then the new file renamed: it is followed.
    fs::write(folder.join(".b.txt.new"), "v2").unwrap();
    fs::rename(folder.join(".b.txt.new"), folder.join("b.txt")).unwrap();
    assert!(readable(app.fd(), 5000));
    wake_ups += 1;
    app.dispatch().unwrap();
    fs::rename(folder.join("b.txt"), folder.join("c.txt")).unwrap();
    wake_ups += wake_ups_until(&app, || doc.activity().title().as_deref() == Some("c.txt"));
    assert_eq!(url(&doc), Some(file_url(&folder.join("c.txt"))));
    assert!(wake_ups <= 4, "{wake_ups} wake-ups");

    // Deleted: not current; back and saved: current again.
    fs::remove_file(folder.join("c.txt")).unwrap();
    wake_ups_until(&app, || app.current_activity().is_none());
    assert!(app.current_activity().is_none());
    fs::write(folder.join("c.txt"), "v3").unwrap();
    doc.saved().unwrap();
    assert_eq!(app.current_activity().unwrap().id(), doc.activity().id());

    doc.edited().unwrap();
    assert!(doc.activity().flag(ActivityFlag::NeedsSave));
    doc.saved().unwrap();
    assert!(!doc.activity().flag(ActivityFlag::NeedsSave));
    drop(doc);
    assert!(
        app.current_activity().is_none(),
        "dropping the document invalidates its activity"
    );
    let _ = app.as_fd();
}

#[test]
fn errors_and_accessing() {
    let folder = Folder::new("errors");
    let app = app();
    assert_eq!(
        Document::new(&app, TYPE, folder.join("absent"))
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        Document::new(&app, TYPE, &folder.0).unwrap_err().code(),
        ErrorCode::InvalidValue
    );
    assert_eq!(
        app.start_accessing("https://example.com/plan.odt")
            .unwrap_err()
            .code(),
        ErrorCode::InvalidArgument
    );
    if !Path::new("/.flatpak-info").exists() {
        assert_eq!(
            app.start_accessing("file:///home/ada/My%20plan.odt")
                .unwrap(),
            PathBuf::from("/home/ada/My plan.odt")
        );
        app.stop_accessing("file:///home/ada/My%20plan.odt")
            .unwrap();
    }
}
