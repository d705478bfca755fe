# SPDX-License-Identifier: MIT OR Apache-2.0
"""An app in agent mode for the history tests (Tests/cli/test_history_app.py),
driven by JSON commands on stdin, one a line, answering with JSON events on
stdout:

  {"do": "current", "type": T, "title": S, "keywords": [..], "info": {..},
   "searchable": [..], "persistent_id": S, "search": bool, "handoff": bool}
      a new activity becomes current                 -> {"event": "current"}
  {"do": "save", "info": {..}}   the current activity needs a save; its
      will_save sets this userInfo                   -> {"event": "saved"} after will_save
  {"do": "delete", "ids": [..]} / {"do": "delete_all"}
      -> {"event": "deleted", "error": null|code, "message": ..., "main": bool}
  {"do": "burst", "n": N, "type": T}  N distinct activities eligible for
      search made current back to back, no dispatch between  -> {"event": "burst"}
  {"do": "quit"}

It quits by itself after --seconds (a bound: never left behind)."""

import argparse
import json
import os
import selectors
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import handoff  # noqa: E402
from handoff.account import ContinuityMode  # noqa: E402


def emit(event, **fields):
    print(json.dumps(dict(event=event, **fields)), flush=True)


class Saver(handoff.UserActivityDelegate):
    def __init__(self):
        self.info = None

    def user_activity_will_save(self, activity):
        if self.info is not None:
            activity.user_info, self.info = self.info, None
        emit("saved")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--team", required=True)
    parser.add_argument("--type", action="append", default=[])
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()

    app = handoff.Application(handoff.Manifest(args.bundle, args.team, args.type))
    app.start_continuity(handoff.Account.load(), mode=ContinuityMode.AGENT)
    emit("connected", mode=app.continuity_mode.name)
    current, saver = None, Saver()

    def deleted(error):
        emit("deleted", error=None if error is None else int(error.code),
             message=None if error is None else error.message,
             main=threading.current_thread() is threading.main_thread())

    def run(command):
        nonlocal current
        do = command["do"]
        if do == "current":
            current = handoff.UserActivity(command["type"])
            current.title = command.get("title")
            current.keywords = command.get("keywords", [])
            current.user_info = command.get("info", {})
            current.searchable_user_info_keys = command.get("searchable", [])
            current.persistent_identifier = command.get("persistent_id")
            current.is_eligible_for_search = command.get("search", False)
            current.is_eligible_for_handoff = command.get("handoff", True)
            current.delegate = saver
            app.become_current(current)
            emit("current", id=current.activity_id)
        elif do == "burst":
            for i in range(command["n"]):
                current = handoff.UserActivity(command["type"])
                current.title = f"burst {i}"
                current.is_eligible_for_search = True
                app.become_current(current)
            emit("burst", n=command["n"])
        elif do == "save":
            saver.info = command["info"]
            current.needs_save = True
        elif do == "delete":
            app.delete_saved_activities(command["ids"], deleted)
        elif do == "delete_all":
            app.delete_all_saved_activities(deleted)
        elif do == "quit":
            return False
        return True

    selector = selectors.DefaultSelector()
    selector.register(app, selectors.EVENT_READ)
    selector.register(0, selectors.EVENT_READ)
    pending, deadline, going = b"", time.monotonic() + args.seconds, True
    while going and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            if key.fileobj is app:
                app.dispatch()
                continue
            chunk = os.read(0, 65536)
            if not chunk:
                going = False
                break
            pending += chunk
            while going and b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                going = run(json.loads(line))
    emit("stopped")
    app.close()


if __name__ == "__main__":
    main()
