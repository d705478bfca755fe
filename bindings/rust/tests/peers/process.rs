// SPDX-License-Identifier: MIT OR Apache-2.0
//! A peer process (the C `peer` or this test's Rust peer) and the events
//! it prints, one per line: `name key=value ...`, values escaped as
//! `%XX` outside '!'..'~' (the format of Tests/integration/peer.c).
//!
//! Every peer is killed and reaped when its `Peer` is dropped, also when a
//! test fails; peers also end by themselves after their `--timeout`.

use std::collections::BTreeMap;
use std::ffi::c_int;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

pub const SIGTERM: c_int = 15;
pub const SIGUSR1: c_int = 10;

/// How long a test waits for an event before it fails.
pub const WAIT: Duration = Duration::from_secs(10);

/// One printed line.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: String,
    pub fields: BTreeMap<String, String>,
    pub line: String,
}

impl Event {
    pub fn parse(line: &str) -> Event {
        let mut words = line.split(' ');
        let name = words.next().unwrap_or("").to_owned();
        let fields = words
            .filter_map(|w| w.split_once('='))
            .map(|(k, v)| (k.to_owned(), unescape(v)))
            .collect();
        Event {
            name,
            fields,
            line: line.to_owned(),
        }
    }

    pub fn get(&self, key: &str) -> &str {
        self.fields.get(key).map_or("", String::as_str)
    }
}

/// `%XX` escapes, as peer.c writes them.
pub fn escape(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if (0x21..=0x7e).contains(&b) && b != b'%' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

pub fn unescape(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A running peer.
pub struct Peer {
    pub name: String,
    command: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    events: Vec<Event>,
    stdout_closed: bool,
    stderr: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
    /// The peer's own XDG_CONFIG_HOME, removed on drop.
    config: Option<std::path::PathBuf>,
}

impl Peer {
    /// Starts `program args` with `env`, reading its output. Unless `env`
    /// sets XDG_CONFIG_HOME, the peer gets a config directory of its own: it
    /// is a device of its own (the library would otherwise give every
    /// process of this user the one device of the device file).
    pub fn spawn(name: &str, program: &Path, args: &[String], env: &[(&str, &str)]) -> Peer {
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut config = None;
        if !env.iter().any(|(k, _)| *k == "XDG_CONFIG_HOME") {
            use std::sync::atomic::{AtomicU32, Ordering};
            static COUNTER: AtomicU32 = AtomicU32::new(0);
            let dir = std::env::temp_dir().join(format!(
                "handoff-peer-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir(&dir).expect("a config directory for the peer");
            command.env("XDG_CONFIG_HOME", &dir);
            config = Some(dir);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdout = child.stdout.take().unwrap();
        let mut stderr_pipe = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let stderr = Arc::new(Mutex::new(String::new()));
        let readers = vec![
            thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }),
            {
                let stderr = stderr.clone();
                thread::spawn(move || {
                    let mut text = String::new();
                    let _ = stderr_pipe.read_to_string(&mut text);
                    stderr.lock().unwrap().push_str(&text);
                })
            },
        ];
        Peer {
            name: name.to_owned(),
            command: format!("{} {}", program.display(), args.join(" ")),
            stdin: child.stdin.take(),
            child,
            lines,
            events: Vec::new(),
            stdout_closed: false,
            stderr,
            readers,
            config,
        }
    }

    /// Moves printed lines into `events`, waiting up to `timeout` for one.
    fn pump(&mut self, timeout: Duration) {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => self.events.push(Event::parse(&line)),
            Err(RecvTimeoutError::Timeout) => return,
            Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                return;
            }
        }
        while let Ok(line) = self.lines.try_recv() {
            self.events.push(Event::parse(&line));
        }
    }

    /// Events named `name` whose fields include `fields`.
    pub fn matches(&mut self, name: &str, fields: &[(&str, &str)]) -> Vec<Event> {
        self.pump(Duration::ZERO);
        self.events
            .iter()
            .filter(|e| {
                e.name == name
                    && fields
                        .iter()
                        .all(|(k, v)| e.fields.get(*k).map(String::as_str) == Some(*v))
            })
            .cloned()
            .collect()
    }

    /// The first event `name` with these fields, waiting at most `WAIT`;
    /// panics with the transcript otherwise.
    pub fn wait_for(&mut self, name: &str, fields: &[(&str, &str)]) -> Event {
        self.wait_for_where(name, &format!("{fields:?}"), |e| {
            fields
                .iter()
                .all(|(k, v)| e.fields.get(*k).map(String::as_str) == Some(*v))
        })
    }

    /// The first event `name` that `accept`s, waiting at most `WAIT`;
    /// panics with `what` and the transcript otherwise.
    pub fn wait_for_where(
        &mut self,
        name: &str,
        what: &str,
        accept: impl Fn(&Event) -> bool,
    ) -> Event {
        let deadline = Instant::now() + WAIT;
        loop {
            self.pump(Duration::ZERO);
            if let Some(e) = self.events.iter().find(|e| e.name == name && accept(e)) {
                return e.clone();
            }
            let now = Instant::now();
            if now >= deadline || self.stdout_closed {
                let why = if self.stdout_closed {
                    "it exited"
                } else {
                    "timed out"
                };
                let transcript = self.transcript();
                panic!("{}: no {name} {what} ({why})\n{transcript}", self.name);
            }
            self.pump((deadline - now).min(Duration::from_millis(100)));
        }
    }

    /// Writes a command line to the peer's standard input.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("standard input is open");
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .expect("write to the peer");
    }

    /// Closes the peer's standard input: the Rust peer's signal to end
    /// cleanly.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Sends a signal (the C peer: SIGTERM ends it cleanly, SIGUSR1 makes
    /// a fresh activity current).
    pub fn signal(&mut self, sig: c_int) {
        extern "C" {
            fn kill(pid: c_int, sig: c_int) -> c_int;
        }
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: signals our own child, not yet reaped.
            unsafe { kill(self.child.id() as c_int, sig) };
        }
    }

    /// Waits for the exit status (killing the peer after `WAIT`).
    pub fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for a peer") {
                return status.code();
            }
            if Instant::now() >= deadline {
                self.kill();
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn transcript(&mut self) -> String {
        self.pump(Duration::ZERO);
        let mut out = format!("--- {}: {}\n", self.name, self.command);
        for e in &self.events {
            out += &format!("  {}\n", e.line);
        }
        for line in self.stderr.lock().unwrap().lines() {
            out += &format!("  stderr: {line}\n");
        }
        out
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.stdin.take();
        self.kill();
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        if let Some(dir) = self.config.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
