// SPDX-License-Identifier: MIT OR Apache-2.0
//! The history through the safe API and a real `handoff agent`
//! (docs/history.md): an activity eligible for search made current is
//! kept in the agent's database; `delete_saved_activities` removes it and
//! its `done` runs once, on the main thread; `delete_all_saved_activities`
//! likewise. Its own test binary: it sets the process's environment (the
//! agent's socket and database), which the library reads.
//!
//! Needs the tool: `HANDOFF_TOOL` (`make test-rust` sets it); without it
//! the test says so and passes (cargo test outside make).

use std::cell::RefCell;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use handoff::{
    Account, Activity, ActivityFlag, Application, ContinuityMode, ContinuityOptions, Manifest,
};

const TYPE: &str = "org.example.rustnotes.edit";

struct Agent(Child);

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn tool(tool: &Path, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .expect("the tool runs");
    assert!(
        out.status.success(),
        "handoff {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The entries' titles as `handoff history --json` lists them.
fn titles(tool_path: &Path) -> Vec<String> {
    tool(tool_path, &["--json", "history"])
        .lines()
        .filter_map(|l| {
            l.split("\"title\":\"")
                .nth(1)
                .map(|t| t.split('"').next().unwrap().to_owned())
        })
        .collect()
}

fn pump(app: &Application, until: impl Fn() -> bool, what: &str) {
    let end = Instant::now() + Duration::from_secs(30);
    while !until() {
        assert!(Instant::now() < end, "never: {what}");
        app.run(Some(Duration::from_millis(50))).unwrap();
    }
}

#[test]
fn an_app_keeps_and_deletes_its_saved_activities_through_the_agent() {
    let Some(tool_path) = std::env::var_os("HANDOFF_TOOL").map(PathBuf::from) else {
        eprintln!("HANDOFF_TOOL is not set: the history test against an agent did not run");
        return;
    };
    let dir = std::env::temp_dir().join(format!("handoff-rust-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(dir.join("run"))
        .unwrap(); // the agent wants it private
    let socket = dir.join("run/agent.sock");
    std::env::set_var("XDG_CONFIG_HOME", dir.join("config"));
    std::env::set_var("HANDOFF_AGENT_SOCKET", &socket);
    std::env::set_var("HANDOFF_HISTORY_DB", dir.join("history.sqlite"));
    tool(&tool_path, &["account", "create"]);
    let port = (30000 + std::process::id() % 20000).to_string();
    let socket_text = socket.to_str().unwrap();
    let _agent = Agent(
        Command::new(&tool_path)
            .args([
                "agent",
                "--no-notifications",
                "--no-tray",
                "--no-search",
                "--socket",
                socket_text,
            ])
            .args([
                "--no-multicast",
                "--peer",
                "127.0.0.1:9",
                "--beacon-port",
                &port,
                "--channel",
                "127.0.0.1:0",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the agent starts"),
    );
    let end = Instant::now() + Duration::from_secs(30);
    while !socket.exists() {
        assert!(Instant::now() < end, "the agent never listened");
        std::thread::sleep(Duration::from_millis(20));
    }

    let manifest = Manifest::new("org.example.RustNotes", "RUSTTEAM")
        .unwrap()
        .declaring(TYPE)
        .unwrap();
    let app = Application::new(&manifest, ()).unwrap();
    let account = Account::load(None).unwrap();
    app.start_continuity(&ContinuityOptions::new(&account).mode(ContinuityMode::Agent))
        .unwrap();
    let kept = Activity::new(TYPE).unwrap();
    kept.set_title(Some("Rusty otters")).unwrap();
    kept.set_persistent_identifier(Some("doc-1")).unwrap();
    kept.set_flag(ActivityFlag::EligibleForSearch, true)
        .unwrap();
    app.become_current(&kept).unwrap();
    pump(
        &app,
        || titles(&tool_path) == ["Rusty otters"],
        "the entry in the history",
    );
    let second = Activity::new(TYPE).unwrap();
    second.set_title(Some("Second draft")).unwrap();
    second
        .set_flag(ActivityFlag::EligibleForSearch, true)
        .unwrap();
    app.become_current(&second).unwrap();
    pump(&app, || titles(&tool_path).len() == 2, "the second entry");

    let heard: Rc<RefCell<Vec<(&str, bool, bool)>>> = Rc::default();
    let main = std::thread::current().id();
    let h = heard.clone();
    app.delete_saved_activities(&["doc-1"], move |r| {
        h.borrow_mut()
            .push(("ids", r.is_ok(), std::thread::current().id() == main))
    })
    .unwrap();
    pump(&app, || !heard.borrow().is_empty(), "the deletion's done");
    assert_eq!(*heard.borrow(), vec![("ids", true, true)]);
    assert_eq!(titles(&tool_path), vec!["Second draft".to_owned()]);
    let h = heard.clone();
    app.delete_all_saved_activities(move |r| h.borrow_mut().push(("all", r.is_ok(), true)))
        .unwrap();
    pump(
        &app,
        || heard.borrow().len() == 2,
        "the second deletion's done",
    );
    assert_eq!(heard.borrow()[1], ("all", true, true));
    assert!(titles(&tool_path).is_empty());
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
}
