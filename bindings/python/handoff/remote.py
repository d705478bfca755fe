# SPDX-License-Identifier: MIT OR Apache-2.0
"""Activities other devices of the account offer."""

from __future__ import annotations

from . import _ffi

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any

__all__ = ["RemoteActivity"]

lib = _ffi.lib

_FIELDS = ("id", "activity_type", "title", "webpage_url", "device_name", "device_id", "age",
           "is_web_only", "supports_continuation_streams")


class RemoteActivity:
    """An activity another device offers, as an availability event reported
    it. A plain snapshot: keep it as long as you like, and continue it with
    ``Application.continue_activity(remote)``. Immutable, compared and
    hashed by its fields (a frozen dataclass written out, because importing
    dataclasses would double the package's import time).

    ``id``, ``activity_type``: str; ``title``, ``webpage_url``,
    ``device_name``, ``device_id``: str or None; ``age``: seconds since
    this device first saw it offered, at the event; ``is_web_only``: no app
    here can continue it, but its web page can be opened;
    ``supports_continuation_streams``: bool."""

    __slots__ = _FIELDS

    id: str
    activity_type: str
    title: str | None
    webpage_url: str | None
    device_name: str | None
    device_id: str | None
    age: float
    is_web_only: bool
    supports_continuation_streams: bool

    def __init__(self, id: str, activity_type: str, title: str | None,
                 webpage_url: str | None, device_name: str | None, device_id: str | None,
                 age: float, is_web_only: bool, supports_continuation_streams: bool) -> None:
        for name, value in zip(_FIELDS, (id, activity_type, title, webpage_url, device_name,
                                         device_id, age, is_web_only,
                                         supports_continuation_streams)):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"RemoteActivity({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._fields())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a RemoteActivity is a snapshot")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a RemoteActivity is a snapshot")

    def __reduce__(self) -> tuple:
        return (RemoteActivity, self._fields())

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
