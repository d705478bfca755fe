// SPDX-License-Identifier: MIT OR Apache-2.0
//! A program outside the repository that depends on the `handoff` crate by
//! path (Tests/install/test_install_rust.py): it prints the loaded
//! library's version and makes an activity, so it fails unless it linked
//! and the dynamic linker found libhandoff.so.0.

fn main() {
    let activity = handoff::Activity::new("com.example.installed").expect("an activity");
    activity.set_title(Some("Installed")).expect("a title");
    assert_eq!(activity.title().as_deref(), Some("Installed"));
    println!("libhandoff {}", handoff::library_version());
}
