# SPDX-License-Identifier: MIT OR Apache-2.0
"""Sender of the "create shape" demo: the person starts creating a shape;
the app offers that as its current activity until another device
continues it.

    python3 examples/python/create_shape_receiver.py &
    python3 examples/python/create_shape_sender.py --shape square

Exits 0 once the other device has continued the activity, 1 after
--timeout seconds without that.
"""

from __future__ import annotations

import sys

from demo_network import arguments, handoff, start
from shapes import ACTIVITY_VERSION, CREATE_SHAPE, ShapeEditor, manifest


class Offer(handoff.UserActivityDelegate):
    """Hears that the other device continued the activity."""

    def __init__(self, app: handoff.Application) -> None:
        self.app, self.continued = app, False

    def user_activity_was_continued(self, activity: handoff.UserActivity) -> None:
        print(f"sender: \"{activity.title}\" was continued on the other device", flush=True)
        self.continued = True
        self.app.stop()


def main() -> int:
    parser = arguments("Offer a shape being created to another device.", sending=True)
    parser.add_argument("--shape", default="circle", help="the shape (default circle)")
    parser.add_argument("--activity-version", type=int, default=ACTIVITY_VERSION,
                        help="the userInfo layout version to claim (for trying a newer one)")
    options = parser.parse_args()

    with handoff.Application(manifest()) as app:
        editor = ShapeEditor(app, options.shape, options.activity_version)
        start(app, options, "Shapes sender")

        activity = handoff.UserActivity(CREATE_SHAPE)
        activity.title = f"Creating a {options.shape}"
        activity.required_user_info_keys = {"shape-type"}
        offer = Offer(app)
        activity.delegate = offer
        # The editor fills the userInfo in a lazy save, and again right
        # before the activity is sent.
        editor.user_activity = activity
        activity.needs_save = True
        app.become_current(activity)
        print(f"sender: offering \"{activity.title}\"", flush=True)

        app.run(timeout=options.timeout)
        if not offer.continued:
            print(f"sender: not continued within {options.timeout:g} s", file=sys.stderr)
        return 0 if offer.continued else 1


if __name__ == "__main__":
    sys.exit(main())
