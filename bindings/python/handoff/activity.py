# SPDX-License-Identifier: MIT OR Apache-2.0
"""User activities (Apple: NSUserActivity) and their delegate."""

from __future__ import annotations

import ctypes
import datetime
import itertools
import os

from . import _callbacks, _ffi, values
from ._handle import OwnedHandle
from .errors import HandoffError, Status

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    import socket
    from typing import Any, Callable, Iterable, Mapping

__all__ = ["UserActivity", "UserActivityDelegate"]

lib = _ffi.lib


class UserActivityDelegate:
    """Callbacks about an activity's life (Apple: NSUserActivityDelegate).

    Subclass and override what you need, or use any object with these
    methods. They run inside ``Application.dispatch()`` on the main thread.
    """

    def user_activity_will_save(self, activity: "UserActivity") -> None:
        """The activity is being saved, after the responders'
        ``update_user_activity_state``: last chance to add state."""

    def user_activity_was_continued(self, activity: "UserActivity") -> None:
        """Another device continued the activity: once per continuation."""

    def user_activity_did_fail_to_hand_off(self, activity: "UserActivity",
                                           error: HandoffError) -> None:
        """Another device fetched the activity and the fetch failed on this
        side (no Apple counterpart): ``error.code`` is USER_INFO_TOO_LARGE
        (4611), MISSING_REQUIRED_KEY, or REMOTE_APPLICATION_TIMED_OUT (4610:
        this main thread did not dispatch in time, so it is told late, at
        its next dispatch). Once per failed fetch."""

    def user_activity_did_receive_stream(self, activity: "UserActivity",
                                         stream: socket.socket) -> None:
        """The device that continued the activity opened a continuation
        stream (Apple: didReceiveInputStream:outputStream:): a connected
        AF_UNIX stream socket, now yours to close. Only a delegate that
        provides this method takes streams; without it the other device's
        request fails with HANDOFF_FAILED (4608). Should it raise, the
        binding closes the socket."""
        stream.close()


def _takes_streams(delegate: Any) -> bool:
    """Whether `delegate` has its own user_activity_did_receive_stream."""
    method = getattr(delegate, "user_activity_did_receive_stream", None)
    if not callable(method):
        return False
    return getattr(method, "__func__", None) is not \
        UserActivityDelegate.user_activity_did_receive_stream


def _string_property(name: str, doc: str) -> property:
    getter = getattr(lib, f"handoff_activity_get_{name}")
    setter = getattr(lib, f"handoff_activity_set_{name}")

    def get(self: "UserActivity") -> str | None:
        return _ffi.text_out(getter(self._live()))

    def set_(self: "UserActivity", value: str | None) -> None:
        setter(self._live(), _ffi.optional_text_in(value, name))

    return property(get, set_, doc=doc)


def _flag_property(flag: int, doc: str) -> property:
    def get(self: "UserActivity") -> bool:
        out = ctypes.c_int()
        lib.handoff_activity_get_flag(self._live(), flag, ctypes.byref(out))
        return bool(out.value)

    def set_(self: "UserActivity", value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"a flag is a bool, not {type(value).__name__}")
        lib.handoff_activity_set_flag(self._live(), flag, int(value))

    return property(get, set_, doc=doc)


def _string_set_property(name: str, doc: str) -> property:
    set_all = getattr(lib, f"handoff_activity_set_{name}")
    count = getattr(lib, f"handoff_activity_{name[:-1]}_count")
    at = getattr(lib, f"handoff_activity_{name[:-1]}_at")

    def get(self: "UserActivity") -> frozenset[str]:
        handle = self._live()
        return frozenset(at(handle, i).decode("utf-8") for i in range(count(handle)))

    def set_(self: "UserActivity", members: Iterable[str]) -> None:
        if isinstance(members, (str, bytes)):
            raise TypeError(f"{name} takes a collection of str, not a single "
                            f"{type(members).__name__}")
        encoded = [_ffi.text_in(m, f"a member of {name}") for m in members]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        set_all(self._live(), array, len(encoded))

    return property(get, set_, doc=doc)


class UserActivity(OwnedHandle):
    """What the person is doing, so another device can continue it.

    ``UserActivity("com.example.app.edit")`` makes a new activity with a
    fresh id, eligible for Handoff. An activity received from another device
    (``ApplicationDelegate.continue_user_activity``) is one too. A callback
    about an activity gets the very object the app created.
    """

    def __init__(self, activity_type: str) -> None:
        self._adopt(lib.handoff_activity_new(_ffi.text_in(activity_type, "activity_type")),
                    lib.handoff_activity_free)
        self._delegate: Any = None
        _callbacks.activities[_ffi.address(self._handle)] = self

    @classmethod
    def _lent(cls, pointer: Any) -> "UserActivity":
        """The object for a handle lent to a callback (takes a reference)."""
        found = _callbacks.activities.get(_ffi.address(pointer))
        if found is not None and not found.closed:
            return found
        return cls._owned(lib.handoff_activity_ref(pointer))

    @classmethod
    def _owned(cls, pointer: Any) -> "UserActivity":
        """The object for a handle whose reference is ours."""
        found = _callbacks.activities.get(_ffi.address(pointer))
        if found is not None and not found.closed:
            lib.handoff_activity_free(pointer)  # it already holds one
            return found
        activity = cls.__new__(cls)
        activity._adopt(pointer, lib.handoff_activity_free)
        activity._delegate = None
        _callbacks.activities[_ffi.address(pointer)] = activity
        return activity

    def __repr__(self) -> str:
        if self.closed:
            return "<UserActivity (closed)>"
        return f"<UserActivity {self.activity_type} id={self.activity_id}>"

    # ---- identity

    @property
    def activity_type(self) -> str:
        """The activity type (reverse-DNS, an intent class name or a short name)."""
        return lib.handoff_activity_get_type(self._live()).decode("utf-8")

    @property
    def activity_id(self) -> str:
        """The unique id (an uppercase UUID string), kept across devices."""
        return lib.handoff_activity_get_id(self._live()).decode("utf-8")

    # ---- properties

    title = _string_property("title", "Shown to the person on the other device; None: unset.")
    webpage_url = _string_property(
        "webpage_url", "An http(s) URL opened in a browser when no app can continue.")
    referrer_url = _string_property("referrer_url", "The referring web page, http(s).")
    target_content_identifier = _string_property("target_content_identifier", "Free-form.")
    persistent_identifier = _string_property("persistent_identifier", "Free-form.")

    is_eligible_for_handoff = _flag_property(
        _ffi.FLAG_ELIGIBLE_FOR_HANDOFF, "Advertised to other devices while current (default True).")
    is_eligible_for_search = _flag_property(
        _ffi.FLAG_ELIGIBLE_FOR_SEARCH,
        "Kept in this device's history through the agent, found from the desktop's search "
        "and continued from there (docs/history.md; default False).")
    is_eligible_for_public_indexing = _flag_property(
        _ffi.FLAG_ELIGIBLE_FOR_PUBLIC_INDEXING,
        "Stored and sent, as Apple's; nothing on Linux uses it (no public index).")
    is_eligible_for_prediction = _flag_property(
        _ffi.FLAG_ELIGIBLE_FOR_PREDICTION,
        "Stored and sent, as Apple's; nothing on Linux uses it (no prediction).")
    needs_save = _flag_property(
        _ffi.FLAG_NEEDS_SAVE, "True asks for a lazy, coalesced save before the next send.")
    supports_continuation_streams = _flag_property(
        _ffi.FLAG_SUPPORTS_CONTINUATION_STREAMS,
        "The receiver may open continuation streams to this app (default False).")

    keywords = _string_set_property("keywords", "Search keywords, a frozenset of str.")
    required_user_info_keys = _string_set_property(
        "required_user_info_keys",
        "The keys that make the activity restorable: one missing, it is not handed off.")
    searchable_user_info_keys = _string_set_property(
        "searchable_user_info_keys",
        "The userInfo keys whose strings the history may index when the activity is "
        "eligible for search (docs/history.md); never data, numbers, dates or URLs.")

    @property
    def expiration_date(self) -> datetime.datetime | None:
        """After this instant the activity is no longer offered; None: never."""
        seconds = ctypes.c_double()
        try:
            lib.handoff_activity_get_expiration_date(self._live(), ctypes.byref(seconds))
        except HandoffError as error:
            if error.code == Status.NOT_FOUND:
                return None
            raise
        return values._datetime(seconds.value)

    @expiration_date.setter
    def expiration_date(self, when: datetime.datetime | None) -> None:
        handle = self._live()
        if when is None:
            lib.handoff_activity_clear_expiration_date(handle)
            return
        if not isinstance(when, datetime.datetime):
            raise TypeError(f"expiration_date is a datetime or None, not {type(when).__name__}")
        if when.tzinfo is None or when.utcoffset() is None:
            raise ValueError("expiration_date: a naive datetime names no instant; give it a tzinfo")
        lib.handoff_activity_set_expiration_date(handle, when.timestamp())

    # ---- userInfo

    @property
    def user_info(self) -> values.UserInfo:
        """A copy of the userInfo as a dict of Python natives (see
        handoff.values). Assigning replaces it; None empties it. Changing
        the returned dict changes nothing: assign it back, or use
        add_user_info_entries()."""
        return values.take(lib.handoff_activity_copy_user_info(self._live()))

    @user_info.setter
    def user_info(self, mapping: Mapping[str, Any] | None) -> None:
        handle = self._live()
        if mapping is None:
            lib.handoff_activity_set_user_info(handle, None)
            return
        value = values.dictionary_value(mapping, "user_info")
        try:
            lib.handoff_activity_set_user_info(handle, value)
        finally:
            lib.handoff_value_free(value)

    def add_user_info_entries(self, entries: Mapping[str, Any]) -> None:
        """Merges `entries` into the userInfo; existing keys take the new
        values (Apple: addUserInfoEntries)."""
        handle = self._live()
        value = values.dictionary_value(entries, "entries")
        try:
            lib.handoff_activity_add_user_info_entries(handle, value)
        finally:
            lib.handoff_value_free(value)

    @property
    def user_info_size(self) -> int:
        """Bytes of the encoded userInfo; over 3072 a handoff fails (4611)."""
        return lib.handoff_activity_user_info_size(self._live())

    # ---- payload

    def encode(self) -> bytes:
        """The payload another device receives (a binary property list).
        HandoffError: MISSING_REQUIRED_KEY, USER_INFO_TOO_LARGE."""
        data = ctypes.POINTER(ctypes.c_uint8)()
        length = ctypes.c_size_t()
        lib.handoff_activity_encode(self._live(), ctypes.byref(data), ctypes.byref(length))
        return _ffi.take_bytes(data, length.value)

    @classmethod
    def decode(cls, payload: bytes) -> "UserActivity":
        """The activity of a payload (keeping the sender's id). HandoffError
        MALFORMED_DATA for anything else; hostile input is safe to pass."""
        if not isinstance(payload, (bytes, bytearray, memoryview)):
            raise TypeError(f"decode takes bytes, not {type(payload).__name__}")
        data = bytes(payload)
        return cls._owned(lib.handoff_activity_decode(data, len(data)))

    # ---- life

    def invalidate(self) -> None:
        """Ends the activity for good: withdrawn from other devices, never
        current again (Apple: invalidate). Twice is harmless."""
        lib.handoff_activity_invalidate(self._live())

    @property
    def is_invalidated(self) -> bool:
        return bool(lib.handoff_activity_is_invalidated(self._live()))

    # ---- continuation streams

    def get_continuation_streams(
            self, callback: Callable[["UserActivity", "socket.socket | None",
                                      "HandoffError | None"], Any]) -> None:
        """Opens a continuation stream to the device this activity was
        continued from (Apple: getContinuationStreams); call it on an
        activity received in ``continue_user_activity``, then or later.
        Each call opens another stream.

        ``callback(activity, stream, error)`` runs once, inside the
        continuing application's ``dispatch()``: ``stream`` a connected
        AF_UNIX stream socket (yours to close; closed by the binding if the
        callback raises) and ``error`` None, or ``stream`` None and
        ``error`` a HandoffError (4608 refused, 4609 unreachable, 4610 the
        other app did not answer). HandoffError INVALID_STATE at once when
        the activity does not support streams, was invalidated, or was not
        continued here from another device."""
        if not callable(callback):
            raise TypeError(f"callback must be callable, not {type(callback).__name__}")
        handle = self._live()
        number = next(_stream_request_numbers)
        _stream_requests[number] = callback
        try:
            lib.handoff_activity_get_continuation_streams(handle, _stream_arrived, number)
        except BaseException:
            del _stream_requests[number]
            raise

    @property
    def delegate(self) -> Any:
        """The activity's delegate (a UserActivityDelegate or any object
        with its methods), or None. The activity holds it strongly; keep
        the activity itself alive (as Apple asks) to hear from it."""
        return self._delegate

    @delegate.setter
    def delegate(self, delegate: Any) -> None:
        handle = self._live()
        if delegate is None:
            lib.handoff_activity_set_delegate(handle, None, None, _NO_DESTROY)
        else:
            struct = _DELEGATE_WITH_STREAMS if _takes_streams(delegate) else _DELEGATE
            lib.handoff_activity_set_delegate(handle, ctypes.byref(struct), None, _NO_DESTROY)
        self._delegate = delegate


# ---- trampolines (see _callbacks)

_NO_DESTROY = _ffi.NO_DESTROY


def _delegate_method(pointer: Any, name: str) -> Any:
    activity = _callbacks.activities.get(_ffi.address(pointer))
    if activity is None or activity.closed or activity._delegate is None:
        return None, None  # its Python object is gone or closed: nobody to tell
    return activity, getattr(activity._delegate, name, None)


@_callbacks.trampoline(_ffi.ActivityCallbackFn)
def _will_save(pointer: Any, user_data: Any) -> None:
    activity, method = _delegate_method(pointer, "user_activity_will_save")
    if method is not None:
        _callbacks.invoke(method, activity)


@_callbacks.trampoline(_ffi.ActivityCallbackFn)
def _was_continued(pointer: Any, user_data: Any) -> None:
    activity, method = _delegate_method(pointer, "user_activity_was_continued")
    if method is not None:
        _callbacks.invoke(method, activity)


@_callbacks.trampoline(_ffi.DidFailToHandOffFn)
def _did_fail_to_hand_off(pointer: Any, code: int, message: bytes | None, user_data: Any) -> None:
    activity, method = _delegate_method(pointer, "user_activity_did_fail_to_hand_off")
    if method is not None:
        error = HandoffError(code, (message or b"").decode("utf-8", "replace"))
        _callbacks.invoke(method, activity, error)


_HANDED_OVER_NOT = object()


def _hand_over_stream(fd: int, method: Callable[..., Any], activity: "UserActivity",
                      *after: Any) -> None:
    """Calls ``method(activity, stream, *after)`` with `fd` as a
    socket.socket that then owns it; closes it unless `method` returned
    normally, so the fd never leaks."""
    stream = None
    handed = False
    try:
        import socket  # not at import: it costs milliseconds
        stream = socket.socket(fileno=fd)
        result = _callbacks.invoke(method, activity, stream, *after, default=_HANDED_OVER_NOT)
        handed = result is not _HANDED_OVER_NOT
    finally:
        if not handed:
            if stream is not None:
                stream.close()
            else:
                os.close(fd)


@_callbacks.trampoline(_ffi.DidReceiveStreamFn)
def _did_receive_stream(pointer: Any, fd: int, user_data: Any) -> None:
    activity, method = _delegate_method(pointer, "user_activity_did_receive_stream")
    if method is None:
        os.close(fd)  # nobody left to take it: the other side sees it end
        return
    _hand_over_stream(fd, method, activity)


# get_continuation_streams requests waiting for their answer, by number (the
# user_data of the C call: a number, never a Python object; 0 is NULL)
_stream_requests: dict[int, Callable[..., Any]] = {}
_stream_request_numbers = itertools.count(1)


@_callbacks.trampoline(_ffi.StreamCallbackFn)
def _stream_arrived(pointer: Any, fd: int, code: int, message: bytes | None,
                    user_data: int | None) -> None:
    callback = _stream_requests.pop(user_data or 0, None)
    if callback is None:
        if fd >= 0:
            os.close(fd)
        return
    if fd < 0:
        error = HandoffError(code, (message or b"").decode("utf-8", "replace"))
        _callbacks.invoke(callback, UserActivity._lent(pointer), None, error)
        return
    try:
        activity = UserActivity._lent(pointer)
    except BaseException:
        os.close(fd)
        raise
    _hand_over_stream(fd, callback, activity, None)


_DELEGATE = _ffi.sized(_ffi.ActivityDelegate)
_DELEGATE.user_activity_will_save = _will_save
_DELEGATE.user_activity_was_continued = _was_continued
_DELEGATE.user_activity_did_fail_to_hand_off = _did_fail_to_hand_off
_DELEGATE_WITH_STREAMS = _ffi.sized(_ffi.ActivityDelegate)
_DELEGATE_WITH_STREAMS.user_activity_will_save = _will_save
_DELEGATE_WITH_STREAMS.user_activity_was_continued = _was_continued
_DELEGATE_WITH_STREAMS.user_activity_did_receive_stream = _did_receive_stream
_DELEGATE_WITH_STREAMS.user_activity_did_fail_to_hand_off = _did_fail_to_hand_off
