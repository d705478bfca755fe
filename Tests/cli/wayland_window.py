#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A real Wayland window for the Plasma tests: `wayland_window.py LOG
TITLE` shows one GTK 3 window titled TITLE and writes JSON lines to LOG:
{"event": "shown", "pid", "token": its XDG_ACTIVATION_TOKEN} at start,
then {"event": "active", "value": …} each time the compositor gives the
window the focus or takes it away. GTK 3.24 on Wayland hands the
token it was started with to the compositor (xdg-activation-v1) when it
shows the window: that is what makes the compositor focus it. The
system's Python with GObject introspection (GTK 3)."""

import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main(log_path, title):
    log = open(log_path, "a", buffering=1)

    def say(event, **fields):
        log.write(json.dumps(dict(event=event, pid=os.getpid(), title=title, t=time.time(), **fields)) + "\n")

    say("shown", token=os.environ.get("XDG_ACTIVATION_TOKEN"))
    window = Gtk.Window(title=title)
    window.set_default_size(480, 240)
    window.connect("notify::is-active", lambda w, _: say("active", value=w.is_active()))
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main(*sys.argv[1:3])
