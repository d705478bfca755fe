# SPDX-License-Identifier: MIT OR Apache-2.0
"""The application: the app's side of Handoff, its delegate and main loop."""

from __future__ import annotations

import ctypes
import math
import os
import time
import types

from . import _callbacks, _continuity, _ffi
from ._handle import OwnedHandle
from .account import Account, ContinuityMode, DeviceRole
from .activity import UserActivity
from .errors import HandoffError, Status
from .manifest import Manifest
from .remote import RemoteActivity
from .responder import Responder, RestorationHandler

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Mapping

__all__ = ["Application", "ApplicationDelegate"]

lib = _ffi.lib

# handoff_application_run is called in slices this long, so Python's signal
# handlers (Ctrl-C) run between them.
_RUN_SLICE_MS = 200


class ApplicationDelegate:
    """The application's Handoff callbacks (Apple: the app delegate).

    Subclass and override what you need, or pass any object with some of
    these methods. Only the methods you provide are connected: a missing
    ``open_webpage``, say, lets the library open the page with xdg-open.
    All run inside :meth:`Application.dispatch` on the main thread. For each
    ``will_continue_user_activity``, exactly one of ``continue_user_activity``
    or ``did_fail_to_continue_user_activity`` follows.
    """

    def will_continue_user_activity(self, app: "Application", activity_type: str) -> bool:
        """The person chose to continue an activity of this type; its payload
        is on its way. Return True if the app shows its own progress."""
        return False

    def continue_user_activity(self, app: "Application", activity: UserActivity,
                               restoration_handler: RestorationHandler) -> bool:
        """The activity arrived: restore it, typically with
        ``restoration_handler([responder, ...])`` (now or later, once).
        Return True if handled; the sender then hears it was continued."""
        return False

    def did_fail_to_continue_user_activity(self, app: "Application", activity_type: str,
                                           error: HandoffError) -> None:
        """The activity could not be continued; error.code is 4608-4611."""

    def did_update_user_activity(self, app: "Application", activity: UserActivity) -> None:
        """A save updated an activity the app holds."""

    def activity_available(self, app: "Application", remote: RemoteActivity) -> None:
        """Another device offers an activity this app can continue (or open
        as a web page): show a Handoff indicator."""

    def activity_updated(self, app: "Application", remote: RemoteActivity) -> None:
        """An offered activity's details changed."""

    def activity_withdrawn(self, app: "Application", remote: RemoteActivity) -> None:
        """An offered activity is gone: hide its indicator."""

    def open_webpage(self, app: "Application", url: str, remote: RemoteActivity) -> None:
        """The person continued a web-only activity. Not provided: the
        library runs ``xdg-open URL``."""


def _provides(delegate: Any, name: str) -> bool:
    """Whether `delegate` has its own `name` (not ApplicationDelegate's)."""
    method = getattr(delegate, name, None)
    if not callable(method):
        return False
    return getattr(method, "__func__", None) is not getattr(ApplicationDelegate, name)


class Application(OwnedHandle):
    """One per host process (Apple: the application): the manifest, the
    current activity, the responders, and the main loop.

    The thread that creates it is its *main thread*: every callback runs
    there, inside :meth:`dispatch` (or :meth:`run`). Plug :meth:`fileno`
    into your loop (select, selectors, asyncio's ``add_reader`` via
    :mod:`handoff.aio`, GLib, Qt) or call :meth:`run`.
    """

    def __init__(self, manifest: Manifest, delegate: Any = None) -> None:
        if not isinstance(manifest, Manifest):
            raise TypeError(f"manifest is a Manifest, not {type(manifest).__name__}")
        struct = _ffi.sized(_ffi.ApplicationDelegate)
        for field, trampoline in _DELEGATE_FIELDS.items():
            if field not in _WIRED_IF_PROVIDED or _provides(delegate, field):
                setattr(struct, field, trampoline)
        self._adopt(lib.handoff_application_new(manifest._live(), ctypes.byref(struct), None,
                                                _ffi.NO_DESTROY), lib.handoff_application_free)
        self.manifest = manifest  # the library holds its own copy
        self._bundle_identifier = manifest.bundle_identifier
        self._delegate = delegate
        self._responders: list[Responder] = []
        self._remote: dict[str, RemoteActivity] = {}
        _callbacks.applications[_ffi.address(self._handle)] = self

    @property
    def delegate(self) -> Any:
        """The delegate given at creation (None: no callbacks but the
        availability events that keep :attr:`remote_activities`)."""
        return self._delegate

    def __repr__(self) -> str:
        if self.closed:
            return "<Application (closed)>"
        return f"<Application {self._bundle_identifier} fd={self.fileno()}>"

    def close(self) -> None:
        """Withdraws what the app advertised, closes its responders and
        releases it. Main thread, not from inside one of its callbacks."""
        if _callbacks.is_running(self):
            raise HandoffError(Status.INVALID_STATE,
                               "an application cannot close inside its own callbacks or "
                               "run(); close it after dispatch() or run() returns")
        for responder in list(self._responders):
            responder.close()
        super().close()

    # ---- continuity

    def start_continuity(self, account: Account, *, device_id: str | None = None,
                         device_name: str | None = None, role: DeviceRole = DeviceRole.FULL,
                         beacon_port: int | None = None, multicast: bool = True,
                         peers: Iterable[str] = (), channel_address: str | None = None,
                         fetch_timeout: float | None = None,
                         connect_timeout: float | None = None,
                         connection_reuse: float | None = None,
                         mode: ContinuityMode = ContinuityMode.AUTO) -> None:
        """Starts Handoff with the account's other devices: beacons announce
        the current activity, a TLS 1.3 channel answers fetches, and what
        other devices offer arrives as availability events. Once.

        device_id: 32 hex digits (None: the person's device, the id of the
        device file `handoff device` keeps in $XDG_CONFIG_HOME/handoff,
        created on first use; apps of one device do not hand off to each
        other, so two processes that must each need their own id or
        XDG_CONFIG_HOME); device_name: shown on the other devices (None: the
        device file's name, or the host name with a device_id); role: FULL
        takes the device file's role; beacon_port: UDP port of
        the beacons (None: 52370; each process on a host needs its own);
        multicast: False sends only to `peers`, "host:port" strings such as
        "127.0.0.1:52371", "[::1]:52371" or "ada.local:52370" (a name is
        resolved at start and every 60 s; with a beacon port of its own the
        engine also reaches the person's tailnet devices); channel_address: where the TLS
        channel listens, "host:port" (None: "[::]:0", every IPv6 and IPv4
        address on one free port, IPv4 alone on a host without IPv6;
        "127.0.0.1:0" keeps it on loopback); fetch_timeout: seconds the main
        thread has to hand over an activity (None: 5); connect_timeout:
        seconds to connect to a device, and as many again to authenticate it
        (None: 3); connection_reuse: seconds an idle connection is kept for
        the next handoff (None: 10, 0: never); mode: where continuity runs (AUTO: the
        per-user handoff agent when it serves this user and account and none
        of device_id, device_name, role SEND_ONLY, beacon_port, multicast
        False, peers or channel_address is given, else EMBEDDED; AGENT: the
        agent or an error; EMBEDDED: an engine in this process). AUTO
        without a device-level option follows the agent: it moves to the
        agent when one starts and back to an engine when it stops, by
        itself. See :attr:`continuity_mode` for where it runs now.

        HandoffError INVALID_ARGUMENT (malformed peer, address or id; a
        device-level option with mode AGENT), IO (a socket could not be
        opened, e.g. the port is taken), INVALID_STATE (already started; mode
        AGENT and the agent serves another account), CONNECTION_UNAVAILABLE
        (mode AGENT and no agent serves this user: the message names its
        socket).
        """
        struct, keep = _continuity.options(
            account, device_id=device_id, device_name=device_name, role=role,
            beacon_port=beacon_port, multicast=multicast, peers=peers,
            channel_address=channel_address, fetch_timeout=fetch_timeout,
            connect_timeout=connect_timeout, connection_reuse=connection_reuse, mode=mode)
        lib.handoff_application_start_continuity(self._live(), ctypes.byref(struct))
        del keep

    @property
    def continuity_mode(self) -> ContinuityMode:
        """Where continuity runs now: AGENT or EMBEDDED (in AUTO mode it
        changes as the app follows the agent).
        HandoffError INVALID_STATE before :meth:`start_continuity`."""
        out = ctypes.c_int()
        lib.handoff_application_get_continuity_mode(self._live(), ctypes.byref(out))
        return ContinuityMode(out.value)

    # ---- the main loop

    def fileno(self) -> int:
        """The pollable fd: readable while callbacks are queued or a timer is
        due. Owned by the application: never close or read it."""
        return lib.handoff_application_get_fd(self._live())

    def next_timeout(self) -> float | None:
        """Seconds until dispatch has work (0: now), None: nothing scheduled."""
        ms = lib.handoff_application_next_timeout(self._live())
        return None if ms < 0 else ms / 1000

    def dispatch(self) -> None:
        """Runs the queued callbacks and due timers, on the main thread.
        HandoffError WRONG_THREAD elsewhere, INVALID_STATE inside a callback.
        Re-raises a KeyboardInterrupt or SystemExit a callback raised."""
        handle = self._live()
        with _callbacks.running(self):
            lib.handoff_application_dispatch(handle)

    def run(self, timeout: float | None = None) -> bool:
        """Dispatches on the main thread until :meth:`stop` (True) or until
        `timeout` seconds pass (False; None: no limit)."""
        handle = self._live()
        deadline = None if timeout is None else time.monotonic() + timeout
        with _callbacks.running(self, in_run=True):
            while True:
                slice_ms = _RUN_SLICE_MS
                if deadline is not None:
                    left = deadline - time.monotonic()
                    slice_ms = max(0, min(slice_ms, math.ceil(left * 1000)))
                try:
                    lib.handoff_application_run(handle, slice_ms)
                    return True
                except HandoffError as error:
                    if error.code != Status.TIMED_OUT:
                        raise
                if deadline is not None and time.monotonic() >= deadline:
                    return False

    def stop(self) -> None:
        """Ends a running :meth:`run` (one asked for while none runs ends the
        next at once). Any thread, including callbacks."""
        lib.handoff_application_stop(self._live())

    # ---- the current activity

    def become_current(self, activity: UserActivity) -> None:
        """Makes `activity` the current one, offered to other devices while
        eligible and unexpired. HandoffError INVALID_STATE if invalidated."""
        lib.handoff_application_become_current(self._live(), _activity(activity))

    def resign_current(self, activity: UserActivity) -> None:
        """Stops offering `activity` if it is current."""
        lib.handoff_application_resign_current(self._live(), _activity(activity))

    @property
    def current_activity(self) -> UserActivity | None:
        try:
            return UserActivity._owned(lib.handoff_application_copy_current_activity(self._live()))
        except HandoffError as error:
            if error.code == Status.NOT_FOUND:
                return None
            raise

    # ---- documents

    def start_accessing(self, url: str) -> str:
        """The path to open for a file URL received (Apple:
        startAccessingSecurityScopedResource): outside a Flatpak sandbox
        the URL's own path; inside one the path the document portal gives
        this app, which the agent asks for (blocking until it answers), for
        a document it delivered to this app only (HandoffError PERMISSION
        otherwise; INVALID_STATE without an agent). HandoffError
        INVALID_ARGUMENT for anything but a file URL. Balance it with
        :meth:`stop_accessing`."""
        out = ctypes.c_void_p()
        lib.handoff_url_start_accessing(self._live(), _ffi.text_in(url, "url"), ctypes.byref(out))
        try:
            return os.fsdecode(ctypes.string_at(out.value))
        finally:
            lib.handoff_free(out)

    def stop_accessing(self, url: str) -> None:
        """Ends what :meth:`start_accessing` began: nothing outside a
        sandbox; inside one the last stop of a URL takes the app's access
        back (HandoffError INVALID_STATE for a URL not being accessed)."""
        lib.handoff_url_stop_accessing(self._live(), _ffi.text_in(url, "url"))

    # ---- other devices' activities

    @property
    def remote_activities(self) -> Mapping[str, RemoteActivity]:
        """What other devices offer now, by id, as the availability events
        told (a read-only live view)."""
        return types.MappingProxyType(self._remote)

    def continue_activity(self, remote: RemoteActivity | str) -> None:
        """Continues an activity another device offers (C:
        handoff_application_continue): will_continue_user_activity follows at
        the next dispatch, then continue_user_activity or
        did_fail_to_continue_user_activity (open_webpage for a web-only one). HandoffError NOT_FOUND when it is no longer offered."""
        if isinstance(remote, RemoteActivity):
            activity_id = remote.id
        elif isinstance(remote, str):
            activity_id = remote
        else:
            raise TypeError(f"continue_activity takes a RemoteActivity or its id, not "
                            f"{type(remote).__name__}")
        lib.handoff_application_continue(self._live(), _ffi.text_in(activity_id, "activity id"))

    # ---- saved activities (the history, docs/history.md)

    def delete_saved_activities(self, ids: Iterable[str], done: Callable[[HandoffError | None], None] | None = None) -> None:
        """Deletes this app's saved activities with these persistent
        identifiers from the device's history (C:
        handoff_application_delete_saved_activities; Apple's
        deleteSavedUserActivities(withPersistentIdentifiers:)). ``done(None)``
        runs once on the main thread (in dispatch) after the deletion, or
        ``done(error)``: HandoffError CONNECTION_UNAVAILABLE when no agent
        keeps a history for this app. HandoffError INVALID_ARGUMENT (and no
        call to done) for more than 512 ids or one empty or over 4096 bytes."""
        if isinstance(ids, (str, bytes)):
            raise TypeError("delete_saved_activities takes a collection of str, not a single str")
        encoded = [_ffi.text_in(i, "a persistent identifier") for i in ids]
        array = (ctypes.c_char_p * len(encoded))(*encoded)
        key = _pending_deletions.add(done)
        try:
            lib.handoff_application_delete_saved_activities(self._live(), array, len(encoded), _deletion_done, key)
        except BaseException:
            _pending_deletions.take(key)
            raise

    def delete_all_saved_activities(self, done: Callable[[HandoffError | None], None] | None = None) -> None:
        """Deletes every saved activity of this app from the device's
        history (C: handoff_application_delete_all_saved_activities; Apple's
        deleteAllSavedUserActivities); ``done`` as for delete_saved_activities."""
        key = _pending_deletions.add(done)
        try:
            lib.handoff_application_delete_all_saved_activities(self._live(), _deletion_done, key)
        except BaseException:
            _pending_deletions.take(key)
            raise

    @property
    def activation_token(self) -> str | None:
        """The activation token of the continuation whose callback runs now
        (C: handoff_application_get_activation_token), or None: read it in
        will_continue_user_activity, continue_user_activity,
        did_fail_to_continue_user_activity or open_webpage, on the main
        thread, to raise the window (Wayland xdg-activation, X11 startup
        id; README, "Raising your window"). Present when the person chose
        the activity in the agent's notification and the notification
        server gave a token; None at any other time."""
        return _ffi.text_out(lib.handoff_application_get_activation_token(self._live()))

    @property
    def responders(self) -> tuple[Responder, ...]:
        return tuple(self._responders)


def _activity(activity: Any) -> Any:
    if not isinstance(activity, UserActivity):
        raise TypeError(f"expected a UserActivity, not {type(activity).__name__}")
    return activity._live()


# ---- trampolines (see _callbacks)

def _app(pointer: Any) -> Application | None:
    return _callbacks.applications.get(_ffi.address(pointer))


def _call_delegate(app: Application | None, name: str, *args: Any, default: Any = None) -> Any:
    if app is None or app._delegate is None:
        return default
    method = getattr(app._delegate, name, None)
    if method is None:
        return default
    return _callbacks.invoke(method, app, *args, default=default)


@_callbacks.trampoline(_ffi.WillContinueFn, default=0)
def _will_continue(pointer: Any, activity_type: bytes, user_data: Any) -> int:
    return 1 if _call_delegate(_app(pointer), "will_continue_user_activity",
                               activity_type.decode("utf-8"), default=False) else 0


@_callbacks.trampoline(_ffi.ContinueActivityFn, default=0)
def _continue_activity(pointer: Any, activity_pointer: Any, handler: Any, user_data: Any) -> int:
    app = _app(pointer)
    if app is None:
        lib.handoff_restoration_handler_free(handler)
        return 0
    activity = UserActivity._lent(activity_pointer)
    restoration_handler = RestorationHandler._of(handler, activity)  # ours to free
    return 1 if _call_delegate(app, "continue_user_activity", activity, restoration_handler,
                               default=False) else 0


@_callbacks.trampoline(_ffi.DidFailToContinueFn)
def _did_fail(pointer: Any, activity_type: bytes, code: int, message: bytes,
              user_data: Any) -> None:
    error = HandoffError(code, message.decode("utf-8"))
    _call_delegate(_app(pointer), "did_fail_to_continue_user_activity",
                   activity_type.decode("utf-8"), error)


@_callbacks.trampoline(_ffi.DidUpdateFn)
def _did_update(pointer: Any, activity: Any, user_data: Any) -> None:
    _call_delegate(_app(pointer), "did_update_user_activity", UserActivity._lent(activity))


@_callbacks.trampoline(_ffi.RemoteActivityFn)
def _available(pointer: Any, remote_pointer: Any, user_data: Any) -> None:
    app, remote = _app(pointer), RemoteActivity._snapshot(remote_pointer)
    if app is not None:
        app._remote[remote.id] = remote
    _call_delegate(app, "activity_available", remote)


@_callbacks.trampoline(_ffi.RemoteActivityFn)
def _updated(pointer: Any, remote_pointer: Any, user_data: Any) -> None:
    app, remote = _app(pointer), RemoteActivity._snapshot(remote_pointer)
    if app is not None:
        app._remote[remote.id] = remote
    _call_delegate(app, "activity_updated", remote)


@_callbacks.trampoline(_ffi.RemoteActivityFn)
def _withdrawn(pointer: Any, remote_pointer: Any, user_data: Any) -> None:
    app, remote = _app(pointer), RemoteActivity._snapshot(remote_pointer)
    if app is not None:
        app._remote.pop(remote.id, None)
    _call_delegate(app, "activity_withdrawn", remote)


@_callbacks.trampoline(_ffi.OpenWebpageFn)
def _open_webpage(pointer: Any, url: bytes, remote_pointer: Any, user_data: Any) -> None:
    _call_delegate(_app(pointer), "open_webpage", url.decode("utf-8"),
                   RemoteActivity._snapshot(remote_pointer))


_DELEGATE_FIELDS = {
    "will_continue_user_activity": _will_continue,
    "continue_user_activity": _continue_activity,
    "did_fail_to_continue_user_activity": _did_fail,
    "did_update_user_activity": _did_update,
    "activity_available": _available,
    "activity_updated": _updated,
    "activity_withdrawn": _withdrawn,
    "open_webpage": _open_webpage,
}

# Fields wired only when the delegate provides the method of the same name
# (the C fields carry the method names); the availability events are always
# wired, to keep remote_activities current.
_WIRED_IF_PROVIDED = frozenset({"will_continue_user_activity", "continue_user_activity",
                                "did_fail_to_continue_user_activity", "did_update_user_activity",
                                "open_webpage"})


class _PendingDeletions:
    """The done callbacks of deletions in flight, by the key passed to C as
    their context (a number, never a Python object's address)."""

    def __init__(self) -> None:
        self._next = 0
        self._waiting: dict[int, Callable[[HandoffError | None], None] | None] = {}

    def add(self, done: Callable[[HandoffError | None], None] | None) -> int:
        self._next += 1
        self._waiting[self._next] = done
        return self._next

    def take(self, key: int) -> Callable[[HandoffError | None], None] | None:
        return self._waiting.pop(key, None)


_pending_deletions = _PendingDeletions()


@_ffi.CompletionFn
def _deletion_done(context: int | None, status: int) -> None:
    done = _pending_deletions.take(context or 0)
    if done is None:
        return
    done(None if status == 0 else _ffi.last_error("handoff_application_delete_saved_activities", status))
