# SPDX-License-Identifier: MIT OR Apache-2.0
"""A sandboxed app opening a continued document through the document
portal (Tests/cli/test_document_portal.py): it continues the first activity
of --type another device offers, then, with the URL under
NSUserActivityDocumentURLKey, calls start_accessing, reads the file through
the path it gets, asks for --forbidden (a file the agent never delivered to
it), stops accessing, and tries the path again. One JSON line per step in
--log; it ends after that, or after --seconds (a bound). --mode none and ask only
ask for the --forbidden URLs, without continuity or through the agent."""

import argparse
import json
import os
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
    parser.add_argument("--type", required=True)
    parser.add_argument("--forbidden", action="append", default=[])
    # none: no continuity at all; ask: through the agent, without continuing anything.
    parser.add_argument("--mode", choices=["agent", "none", "ask"], default="agent")
    parser.add_argument("--seconds", type=float, default=60)
    # Continued, wait for this file before asking for the document (the
    # test changes the person's folders in between).
    parser.add_argument("--wait-for")
    args = parser.parse_args()
    log = open(args.log, "a", buffering=1)

    def emit(event, **fields):
        log.write(json.dumps(dict(event=event, **fields)) + "\n")

    def attempt(name, call, *extra):
        try:
            result = call(*extra)
            emit(name, ok=True, result=result)
            return result
        except handoff.HandoffError as e:
            emit(name, ok=False, code=e.code, message=str(e))
            return None

    def read(path):
        try:
            with open(path, "rb") as f:
                return {"bytes": f.read().hex()}
        except OSError as e:
            return {"errno": e.errno}

    done = []

    class Delegate(handoff.ApplicationDelegate):
        def activity_available(self, app, remote):
            if remote.activity_type == args.type:
                app.continue_activity(remote)

        def continue_user_activity(self, app, activity, restoration_handler):
            url = activity.user_info[handoff.DOCUMENT_URL_KEY]
            url = str(url)
            emit("continued", url=url)
            if args.wait_for:
                deadline = time.monotonic() + 30
                while not os.path.exists(args.wait_for) and time.monotonic() < deadline:
                    time.sleep(0.05)
            path = attempt("start", app.start_accessing, url)
            if path:
                emit("read", path=path, **read(path))
            for forbidden in args.forbidden:
                attempt("forbidden", app.start_accessing, forbidden)
            if path:
                # The documents this app sees in the portal (its view).
                emit("view", documents=sorted(os.listdir(os.path.dirname(os.path.dirname(path)))))
                attempt("stop", app.stop_accessing, url)
                emit("after_stop", **read(path))
            restoration_handler([])
            done.append(True)
            return True

        def did_fail_to_continue_user_activity(self, app, activity_type, error):
            emit("failed", code=int(error.code))
            done.append(True)

    app = handoff.Application(handoff.Manifest(args.bundle, args.team, [args.type]), Delegate())
    if args.mode == "none":
        # No continuity at all: what an app in a sandbox without an agent hears.
        for forbidden in args.forbidden:
            attempt("start", app.start_accessing, forbidden)
        app.close()
        return
    app.start_continuity(handoff.Account.load(), mode=ContinuityMode.AGENT)
    emit("connected", mode=app.continuity_mode.name)
    if args.mode == "ask":
        for forbidden in args.forbidden:
            attempt("start", app.start_accessing, forbidden)
        app.close()
        return
    deadline = time.monotonic() + args.seconds
    while not done and time.monotonic() < deadline:
        app.run(timeout=0.2)
    emit("stopped")
    app.close()


if __name__ == "__main__":
    main()
