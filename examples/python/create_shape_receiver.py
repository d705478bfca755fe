# SPDX-License-Identifier: MIT OR Apache-2.0
"""Receiver of the "create shape" demo: waits for another device to offer
a shape being created, continues it, and restores it on its canvas.

    python3 examples/python/create_shape_receiver.py

Exits 0 once a shape is restored; 1 when continuing failed, the activity's
version is unsupported, or nothing came within --timeout seconds.
"""

from __future__ import annotations

import sys

from demo_network import arguments, handoff, start
from shapes import CREATE_SHAPE, Canvas, manifest

LINGER = 2.0  # seconds to wait for the sender to withdraw, at most


class Receiver(handoff.ApplicationDelegate):
    """Continues the first shape offered, and restores it."""

    def __init__(self) -> None:
        self.canvas: Canvas | None = None
        self.done = False
        self.continued_id: str | None = None

    def activity_available(self, app: handoff.Application, remote: handoff.RemoteActivity) -> None:
        if remote.activity_type == CREATE_SHAPE and not self.done:
            print(f"receiver: {remote.device_name} offers \"{remote.title}\"; continuing it",
                  flush=True)
            app.continue_activity(remote)

    def will_continue_user_activity(self, app: handoff.Application, activity_type: str) -> bool:
        print(f"receiver: fetching {activity_type}", flush=True)
        return True

    def continue_user_activity(self, app: handoff.Application, activity: handoff.UserActivity,
                               restoration_handler: handoff.RestorationHandler) -> bool:
        restoration_handler([self.canvas])
        self.done = True
        app.stop()
        if self.canvas.problem:
            print(f"receiver: {self.canvas.problem}", file=sys.stderr)
            return False
        print(f"receiver: restored a {self.canvas.shapes[-1]} "
              f"(activity-version {activity.user_info['activity-version']})", flush=True)
        self.continued_id = activity.activity_id
        return True

    def activity_withdrawn(self, app: handoff.Application, remote: handoff.RemoteActivity) -> None:
        if remote.id == self.continued_id:
            app.stop()  # the sender heard us and stopped offering it

    def did_fail_to_continue_user_activity(self, app: handoff.Application, activity_type: str,
                                           error: handoff.HandoffError) -> None:
        print(f"receiver: could not continue {activity_type}: {error}", file=sys.stderr)
        self.done = True
        app.stop()


def main() -> int:
    options = arguments("Continue a shape another device is creating.", sending=False).parse_args()
    receiver = Receiver()
    with handoff.Application(manifest(), receiver) as app:
        receiver.canvas = Canvas(app)
        start(app, options, "Shapes receiver")
        print("receiver: waiting for a shape", flush=True)
        if not app.run(timeout=options.timeout):
            print(f"receiver: nothing came within {options.timeout:g} s", file=sys.stderr)
        if receiver.continued_id:
            # The library tells the sender "continued" from its own thread;
            # stay a moment, until the sender stops offering the shape, so
            # closing the app does not cut that message off.
            app.run(timeout=LINGER)
        return 0 if receiver.canvas.shapes else 1


if __name__ == "__main__":
    sys.exit(main())
