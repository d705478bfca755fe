// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Rust peer: one libhandoff app written with the safe API, sender or
//! receiver, speaking the protocol of Tests/integration/peer.c (same
//! defaults, same userInfo, same event lines) so the test drives both
//! alike. Options (a subset of peer.c's):
//!
//!   --send | --receive   --port UDPPORT   --peer HOST:PORT...
//!   --title T   --device-name N   --userinfo-bytes N   --auto-continue
//!   --timeout SECONDS
//!
//! Standard input takes commands, one a line: `invalidate` invalidates
//! the sender's activity (from that reading thread: activities are
//! `Send`), which withdraws it. When standard input closes, the peer ends
//! cleanly (the app is freed); it also ends after --timeout. Exit status
//! 0, or 1 when a libhandoff call fails.

use std::io::BufRead;
use std::rc::Rc;
use std::time::Duration;

use handoff::{
    Account, Activity, ActivityDelegate, ActivityRef, Application, ApplicationDelegate,
    ApplicationRef, ContinuityOptions, Error, Manifest, RemoteActivity, Responder,
    RestorationHandler, RunOutcome, UserActivityResponder, UserInfo, Value,
};

use super::process::escape;

const TEAM: &str = "PEERTEAM1";
const BUNDLE: &str = "com.example.peer";
pub const TYPE: &str = "com.example.peer.activity";

/// The userInfo blob of `n` bytes: byte i is (31 i + 7) mod 256.
pub fn blob(n: usize) -> Vec<u8> {
    (0..n).map(|i| (31 * i + 7) as u8).collect()
}

/// FNV-1a 32 of the bytes, as 8 hex digits.
pub fn fnv1a(bytes: &[u8]) -> String {
    let h = bytes.iter().fold(2_166_136_261u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(16_777_619)
    });
    format!("{h:08x}")
}

struct Options {
    sending: bool,
    port: u16,
    peers: Vec<String>,
    title: String,
    device_name: Option<String>,
    userinfo_bytes: usize,
    auto_continue: bool,
    timeout: Duration,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        sending: false,
        port: 0,
        peers: Vec::new(),
        title: "peer-title".into(),
        device_name: None,
        userinfo_bytes: 0,
        auto_continue: false,
        timeout: Duration::from_secs(30),
    };
    let (mut send, mut receive) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--send" => send = true,
            "--receive" => receive = true,
            "--auto-continue" => o.auto_continue = true,
            "--port" => o.port = value()?.parse().map_err(|_| "bad --port")?,
            "--peer" => o.peers.push(value()?),
            "--title" => o.title = value()?,
            "--device-name" => o.device_name = Some(value()?),
            "--userinfo-bytes" => {
                o.userinfo_bytes = value()?.parse().map_err(|_| "bad --userinfo-bytes")?
            }
            "--timeout" => {
                o.timeout = Duration::from_secs_f64(value()?.parse().map_err(|_| "bad --timeout")?)
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if send == receive {
        return Err("give exactly one of --send and --receive".into());
    }
    o.sending = send;
    Ok(o)
}

/// Prints one event line (stdout is line-buffered: each goes out whole).
fn event(name: &str, fields: &[(&str, &str)]) {
    let mut line = name.to_owned();
    for (k, v) in fields {
        line += &format!(" {k}={}", escape(v));
    }
    println!("{line}");
}

/// The responder: the sender writes the blob, the receiver reports it.
struct BlobView {
    bytes: usize,
}

impl UserActivityResponder for BlobView {
    fn update_user_activity_state(&mut self, activity: &ActivityRef) {
        let mut info = UserInfo::new();
        info.insert("blob".into(), Value::Data(blob(self.bytes)));
        info.insert("count".into(), Value::Integer(self.bytes as i64));
        activity
            .add_user_info_entries(&info)
            .expect("adding the userInfo");
        event("saving", &[("bytes", &self.bytes.to_string())]);
    }

    fn restore_user_activity_state(&mut self, activity: &ActivityRef) {
        let info = activity.user_info().expect("reading the userInfo");
        let n = info
            .get("blob")
            .and_then(Value::as_bytes)
            .map_or(-1, |b| b.len() as i64);
        event("restored", &[("info-bytes", &n.to_string())]);
    }
}

struct PeerDelegate {
    auto_continue: bool,
    continued_once: bool,
    view: Option<Rc<Responder<BlobView>>>,
}

fn print_remote(name: &str, remote: &RemoteActivity) {
    let web = if remote.is_web_only() { "1" } else { "0" };
    event(
        name,
        &[
            ("id", remote.id()),
            ("type", remote.activity_type()),
            ("title", remote.title().unwrap_or("")),
            ("web", web),
            ("device", remote.device_name()),
            ("url", remote.webpage_url().unwrap_or("")),
        ],
    );
}

impl ApplicationDelegate for PeerDelegate {
    const OPENS_WEBPAGES: bool = true;

    fn activity_available(&mut self, app: &ApplicationRef, remote: &RemoteActivity) {
        print_remote("available", remote);
        if self.auto_continue && !self.continued_once {
            self.continued_once = true;
            if let Err(e) = app.continue_activity(remote.id()) {
                event(
                    "continue-error",
                    &[
                        ("code", &e.raw_code().to_string()),
                        ("message", e.message()),
                    ],
                );
            }
        }
    }

    fn activity_updated(&mut self, _: &ApplicationRef, remote: &RemoteActivity) {
        print_remote("updated", remote);
    }

    fn activity_withdrawn(&mut self, _: &ApplicationRef, remote: &RemoteActivity) {
        event(
            "withdrawn",
            &[("id", remote.id()), ("type", remote.activity_type())],
        );
    }

    fn will_continue_user_activity(&mut self, _: &ApplicationRef, activity_type: &str) -> bool {
        event("will-continue", &[("type", activity_type)]);
        false
    }

    fn continue_user_activity(
        &mut self,
        _: &ApplicationRef,
        activity: &ActivityRef,
        handler: RestorationHandler,
    ) -> bool {
        let info = activity.user_info().expect("reading the userInfo");
        let blob = info.get("blob").and_then(Value::as_bytes);
        let count = info.get("count").and_then(Value::as_i64).unwrap_or(-1);
        event(
            "continued",
            &[
                ("type", activity.activity_type()),
                ("id", activity.id()),
                ("title", &activity.title().unwrap_or_default()),
                (
                    "info-bytes",
                    &blob.map_or(-1, |b| b.len() as i64).to_string(),
                ),
                ("info-sum", &fnv1a(blob.unwrap_or(&[]))),
                ("count", &count.to_string()),
            ],
        );
        let view = self.view.clone().expect("the view is set");
        handler.restore(&[&*view]).expect("restoring");
        true
    }

    fn did_fail_to_continue_user_activity(
        &mut self,
        _: &ApplicationRef,
        activity_type: &str,
        error: Error,
    ) {
        event(
            "failed",
            &[
                ("type", activity_type),
                ("code", &error.raw_code().to_string()),
                ("message", error.message()),
            ],
        );
    }

    fn open_webpage(&mut self, _: &ApplicationRef, url: &str, _: &RemoteActivity) {
        event("webpage", &[("url", url)]);
    }
}

struct WasContinued;

impl ActivityDelegate for WasContinued {
    fn user_activity_was_continued(&mut self, activity: &ActivityRef) {
        event("was-continued", &[("id", activity.id())]);
    }
}

/// The peer's main: the exit status.
pub fn main(args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(why) => {
            eprintln!("rust peer: {why}");
            return 2;
        }
    };
    match run(&o) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rust peer: {e}");
            1
        }
    }
}

fn run(o: &Options) -> handoff::Result<()> {
    let manifest = Manifest::new(BUNDLE, TEAM)?.declaring(TYPE)?;
    let delegate = PeerDelegate {
        auto_continue: o.auto_continue,
        continued_once: false,
        view: None,
    };
    let app = Application::new(&manifest, delegate)?;
    let view = Rc::new(Responder::new(
        &app,
        BlobView {
            bytes: o.userinfo_bytes,
        },
    )?);
    app.delegate_mut().view = Some(view.clone());

    let key: [u8; 32] = std::array::from_fn(|i| i as u8); // docs/PROTOCOL.md's test key
    let account = Account::from_key(&key)?;
    let mut options = ContinuityOptions::new(&account)
        .beacon_port(o.port)
        .multicast(false);
    if let Some(name) = &o.device_name {
        options = options.device_name(name.clone());
    }
    for peer in &o.peers {
        options = options.peer(peer.clone());
    }
    app.start_continuity(&options)?;
    event(
        "ready",
        &[
            ("role", if o.sending { "send" } else { "receive" }),
            ("device", o.device_name.as_deref().unwrap_or("")),
        ],
    );

    let activity = if o.sending {
        let activity = Activity::new(TYPE)?;
        activity.set_title(Some(&o.title))?;
        activity.set_delegate(WasContinued)?;
        view.set_user_activity(Some(&activity))?;
        activity.set_needs_save(true)?;
        app.become_current(&activity)?;
        event("offering", &[("id", activity.id()), ("type", TYPE)]);
        Some(activity)
    } else {
        None
    };

    // Commands on standard input; its end is the signal to end cleanly.
    let stopper = app.stopper();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if let ("invalidate", Some(activity)) = (line.trim(), &activity) {
                activity.invalidate().expect("invalidating");
                event("invalidated", &[("id", activity.id())]);
            }
        }
        stopper.stop();
    });
    let reason = match app.run(Some(o.timeout))? {
        RunOutcome::Stopped => "stdin",
        RunOutcome::TimedOut => "timeout",
    };
    event("exit", &[("reason", reason)]);
    Ok(())
}
