# SPDX-License-Identifier: MIT OR Apache-2.0
"""The shapes app's Handoff model (Apple's "create shape" example): an
activity of type com.example.myapp.create-shape whose userInfo holds the
shape being created and the activity's version; the shape is required."""

from __future__ import annotations

from pathlib import Path

from demo_network import handoff

CREATE_SHAPE = "com.example.myapp.create-shape"
#: The userInfo layout this app writes, and the newest it can restore.
ACTIVITY_VERSION = 1
INFO_PLIST = Path(__file__).resolve().parent / "Info.plist"


def manifest() -> handoff.Manifest:
    """Who the app is: from its Info.plist, as on Apple's platforms."""
    return handoff.Manifest.from_info_plist(INFO_PLIST)


class ShapeEditor(handoff.Responder):
    """The sender's editor: writes what is being created into the activity
    whenever it is saved (Apple: updateUserActivityState)."""

    def __init__(self, app: handoff.Application, shape: str, version: int) -> None:
        super().__init__(app)
        self.shape, self.version = shape, version

    def update_user_activity_state(self, activity: handoff.UserActivity) -> None:
        activity.add_user_info_entries({"shape-type": self.shape,
                                        "activity-version": self.version})


class Canvas(handoff.Responder):
    """The receiver's canvas: restores a shape being created, after
    checking the activity's version as restoreUserActivityState does."""

    def __init__(self, app: handoff.Application) -> None:
        super().__init__(app)
        self.shapes: list[str] = []
        self.problem: str | None = None

    def restore_user_activity_state(self, activity: handoff.UserActivity) -> None:
        if activity.activity_type != CREATE_SHAPE:
            return
        info = activity.user_info
        version = info.get("activity-version")
        if not isinstance(version, int) or isinstance(version, bool) or \
                not 1 <= version <= ACTIVITY_VERSION:
            # Written by a newer (or broken) app: do not guess its layout.
            self.problem = f"cannot restore activity-version {version!r}"
            return
        shape = info.get("shape-type")
        if not isinstance(shape, str):
            self.problem = "the activity has no shape-type"
            return
        self.shapes.append(shape)
