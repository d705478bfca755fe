"""Activities other devices of the account offer."""

from __future__ import annotations

import dataclasses
from typing import Any

from . import _ffi

__all__ = ["RemoteActivity"]

lib = _ffi.lib


@dataclasses.dataclass(frozen=True)
class RemoteActivity:
    """An activity another device offers, as an availability event reported
    it. A plain snapshot: keep it as long as you like, and continue it with
    ``Application.continue_activity(remote)``."""

    id: str
    activity_type: str
    title: str | None
    webpage_url: str | None
    device_name: str | None
    device_id: str | None
    #: Seconds since this device first saw it offered, at the event.
    age: float
    #: No app here can continue it, but its web page can be opened.
    is_web_only: bool
    supports_continuation_streams: bool

    @classmethod
    def _snapshot(cls, pointer: Any) -> "RemoteActivity":
        """Copies a handle lent to a callback (valid only during it)."""
        text = _ffi.text_out
        return cls(
            id=text(lib.handoff_remote_activity_get_id(pointer)) or "",
            activity_type=text(lib.handoff_remote_activity_get_type(pointer)) or "",
            title=text(lib.handoff_remote_activity_get_title(pointer)),
            webpage_url=text(lib.handoff_remote_activity_get_webpage_url(pointer)),
            device_name=text(lib.handoff_remote_activity_get_device_name(pointer)),
            device_id=text(lib.handoff_remote_activity_get_device_id(pointer)),
            age=lib.handoff_remote_activity_get_age(pointer),
            is_web_only=bool(lib.handoff_remote_activity_is_web_only(pointer)),
            supports_continuation_streams=bool(
                lib.handoff_remote_activity_supports_continuation_streams(pointer)),
        )
