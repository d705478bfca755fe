# SPDX-License-Identifier: MIT OR Apache-2.0
"""A small app for agent mode (make demo-agent, Tests/cli/test_agent_e2e.py):
started by the agent from a .desktop file (stdout and stderr are /dev/null there), it connects to the
agent in mode AGENT and writes what happens, one JSON line per event, to the
--log file: connected, will_continue, continue (with the userInfo), failed,
available, was_continued.
With --advertise TYPE it makes an activity of that type current, and
advertises again by itself when the agent comes back. With --stuck-saving
the activity has a save due and the app's main thread never returns from
it (an app hung mid-exchange): it never offers a payload ahead of time, so
a fetch makes the agent ask it (PROVIDE), which it cannot answer. It runs until SIGTERM
or --seconds pass (a bound: an app the test forgot never lingers)."""

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import handoff  # noqa: E402
from handoff.account import ContinuityMode  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--team", required=True)
    parser.add_argument("--type", action="append", default=[])
    parser.add_argument("--web-domain", action="append", default=[])
    parser.add_argument("--advertise")
    parser.add_argument("--info", action="append", default=[])
    parser.add_argument("--stuck-saving", action="store_true")
    parser.add_argument("--seconds", type=float, default=120)
    # AUTO follows the agent (docs/agent.md §3 "Choosing the mode"); SIGUSR1 logs where it runs now.
    parser.add_argument("--mode", choices=["agent", "auto"], default="agent")
    args = parser.parse_args()
    log = open(args.log, "a", buffering=1)

    def emit(event, **fields):
        # t: wall-clock seconds, so a demo can tell click-to-restore time.
        log.write(json.dumps(dict(event=event, pid=os.getpid(), t=time.time(), **fields)) + "\n")

    class Delegate(handoff.ApplicationDelegate):
        def will_continue_user_activity(self, app, activity_type):
            # The click's token, when the agent passed one (README, "Raising
            # your window"): a GTK or Qt app would raise its window with it.
            emit("will_continue", type=activity_type, activation_token=app.activation_token)
            return False

        def continue_user_activity(self, app, activity, restoration_handler):
            emit("continue", type=activity.activity_type, title=activity.title,
                 user_info={k: str(v) for k, v in activity.user_info.items()},
                 webpage_url=activity.webpage_url,
                 activation_token=app.activation_token)
            restoration_handler([])
            return True

        def activity_available(self, app, remote):
            emit("available", id=remote.id, type=remote.activity_type, title=remote.title)

        def did_fail_to_continue_user_activity(self, app, activity_type, error):
            emit("failed", type=activity_type, code=int(error.code))

    class Advertised(handoff.UserActivityDelegate):
        def user_activity_will_save(self, activity):
            emit("will_save", id=activity.activity_id)
            if args.stuck_saving:
                time.sleep(args.seconds)  # hung, within the app's own bound

        def user_activity_was_continued(self, activity):
            emit("was_continued", id=activity.activity_id)

    manifest = handoff.Manifest(args.bundle, args.team, args.type)
    for domain in args.web_domain:
        manifest.declare_web_domain(domain)
    app = handoff.Application(manifest, Delegate())
    app.start_continuity(handoff.Account.load(), mode=ContinuityMode[args.mode.upper()])
    # The activation token the launcher handed on (docs/agent.md §5).
    emit("connected", mode=app.continuity_mode.name, activation_token=os.environ.get("XDG_ACTIVATION_TOKEN"),
         startup_id=os.environ.get("DESKTOP_STARTUP_ID"))
    if args.advertise:
        activity = handoff.UserActivity(args.advertise)
        activity.title = "From the app"
        activity.user_info = dict(item.split("=", 1) for item in args.info)
        activity.delegate = Advertised()
        activity.needs_save = args.stuck_saving
        app.become_current(activity)
        emit("advertising", id=activity.activity_id)
    signal.signal(signal.SIGTERM, lambda *_: app.stop())
    signal.signal(signal.SIGUSR1, lambda *_: emit("mode", mode=app.continuity_mode.name))
    app.run(timeout=args.seconds)
    emit("stopped")
    app.close()


if __name__ == "__main__":
    main()
