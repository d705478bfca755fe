# SPDX-License-Identifier: MIT OR Apache-2.0
"""A real GTK app that adopts Handoff (Tests/cli/test_gnome_shell_focus.py):
a Wayland client of the shell under test, GTK 3 or 4 (--gtk), that
connects to the agent through the Python bindings in mode AGENT and
raises its window for a continuation with the activation token the
library hands it (README, "Raising your window"):

- GTK 3: gtk_window_set_startup_id(window, token), then gtk_window_present;
- GTK 4 (4.8, Debian 12): gdk_wayland_display_set_startup_notification_id
  (display, token), then gtk_window_present; GTK 4.8 ignores a startup id
  set on a window that is already mapped.

Launched by the agent, GTK itself takes the token from the environment
(XDG_ACTIVATION_TOKEN) for the first window. With --plain it is just
another app's window (no Handoff), which GTK raises with the token in its
environment when one is given.

One JSON line per event in --log: started (the tokens in the environment,
read before GTK takes them), mapped (the window on screen: its title and
pid), will_continue, continue, raised (after a round trip with the
compositor, so the request to activate was handled). Runs until SIGTERM or
--seconds pass (a bound: an app a test forgot never lingers)."""

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

# Read before GTK, which takes them out of the environment at start.
TOKENS = {name: os.environ.get(name) for name in ("XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID")}
# A Wayland client (never an X server a test machine may also run); no
# GPU and no accessibility bus here.
os.environ["GDK_BACKEND"] = "wayland"
os.environ.setdefault("GSK_RENDERER", "cairo")
os.environ.setdefault("GTK_A11Y", "none")
os.environ.setdefault("NO_AT_BRIDGE", "1")
# The tests' agent sees only the test's desktop entries (XDG_DATA_DIRS
# names an empty folder); GTK needs the system's MIME database to load
# its own icons.
if "/usr/share" not in os.environ.get("XDG_DATA_DIRS", "").split(":"):
    os.environ["XDG_DATA_DIRS"] = ":".join(filter(None, [os.environ.get("XDG_DATA_DIRS"), "/usr/share"]))

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--gtk", choices=["3", "4"], default="4")
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--title", required=True)
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--bundle")
    parser.add_argument("--team")
    parser.add_argument("--type", action="append", default=[])
    parser.add_argument("--seconds", type=float, default=120)
    args = parser.parse_args()
    log = open(args.log, "a", buffering=1)
    # What GTK or Python says goes beside the log (launched by the agent,
    # stderr is /dev/null).
    os.dup2(os.open(args.log + ".stderr", os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644), 2)

    def emit(event, **fields):
        log.write(json.dumps(dict(event=event, pid=os.getpid(), t=time.time(), **fields)) + "\n")

    import gi
    gi.require_version("Gtk", f"{args.gtk}.0")
    if args.gtk == "4":
        gi.require_version("GdkWayland", "4.0")
    from gi.repository import Gio, GLib, Gtk
    if args.gtk == "4":
        from gi.repository import GdkWayland  # noqa: F401 (GdkWaylandDisplay's methods)

    # The Wayland app id (GTK 3 sends the program's name): the shell
    # finds the desktop entry of the window by it.
    GLib.set_prgname(args.app_id)
    emit("started", gtk=args.gtk, activation_token=TOKENS["XDG_ACTIVATION_TOKEN"],
         startup_id=TOKENS["DESKTOP_STARTUP_ID"])
    gtk_app = Gtk.Application(application_id=args.app_id, flags=Gio.ApplicationFlags.NON_UNIQUE)
    state = {"window": None, "label": None, "handoff": None}

    def raise_window(token):
        """What an adopting app does with the continuation's token."""
        window = state["window"]
        if token:
            if args.gtk == "3":
                window.set_startup_id(token)
            else:
                window.get_display().set_startup_notification_id(token)
        window.present()
        # The request reached the compositor and was handled.
        window.get_display().sync()
        emit("raised", activation_token=token)

    def mapped(*_):
        emit("mapped", title=state["window"].get_title())

    def activate(_):
        window = Gtk.ApplicationWindow(application=gtk_app, title=args.title)
        window.set_default_size(480, 320)
        label = Gtk.Label(label="Nothing continued yet")
        if args.gtk == "3":
            window.add(label)
            window.connect("map-event", mapped)
            window.show_all()
        else:
            window.set_child(label)
            window.connect("map", mapped)
        state["window"], state["label"] = window, label
        window.present()
        if not args.plain:
            state["handoff"] = connect(label, raise_window, emit, args)
            GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, state["handoff"].fileno(), GLib.IOCondition.IN,
                                  lambda *_: (state["handoff"].dispatch(), True)[1])

    gtk_app.connect("activate", activate)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: (gtk_app.quit(), False)[1])
    GLib.timeout_add(int(args.seconds * 1000), lambda: (gtk_app.quit(), False)[1])
    gtk_app.hold()  # stays when its window closes, until SIGTERM or the bound
    gtk_app.run([sys.argv[0]])
    if state["handoff"]:
        state["handoff"].close()
    emit("stopped")


def connect(label, raise_window, emit, args):
    """The app's Handoff side: connected to the agent, continuing into
    `label` and raising the window with the token."""
    import handoff
    from handoff.account import ContinuityMode

    class Delegate(handoff.ApplicationDelegate):
        def will_continue_user_activity(self, app, activity_type):
            emit("will_continue", type=activity_type, activation_token=app.activation_token)
            return False

        def continue_user_activity(self, app, activity, restoration_handler):
            label.set_label(activity.title or activity.activity_type)
            token = app.activation_token  # lent for this callback only
            emit("continue", type=activity.activity_type, title=activity.title, activation_token=token)
            raise_window(token)
            restoration_handler([])
            return True

    app = handoff.Application(handoff.Manifest(args.bundle, args.team, args.type), Delegate())
    app.start_continuity(handoff.Account.load(), mode=ContinuityMode.AGENT)
    emit("connected", mode=app.continuity_mode.name)
    return app


if __name__ == "__main__":
    main()
