# SPDX-License-Identifier: MIT OR Apache-2.0
"""Responders (Apple: UIResponder's userActivity support) and the
restoration handler that hands them a continued activity."""

from __future__ import annotations

import ctypes

from . import _callbacks, _ffi
from ._handle import OwnedHandle
from .activity import UserActivity
from .errors import HandoffError, Status

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

    from .application import Application

__all__ = ["Responder", "RestorationHandler"]

lib = _ffi.lib


class Responder(OwnedHandle):
    """An object whose state an activity captures and restores.

    Subclass it and override :meth:`update_user_activity_state` and
    :meth:`restore_user_activity_state`; call ``super().__init__(app)``.
    A responder stays registered with its application (which keeps it
    alive) until :meth:`close` or the application's close.
    """

    def __init__(self, application: "Application") -> None:
        from .application import Application
        if not isinstance(application, Application):
            raise TypeError(f"a Responder belongs to an Application, not "
                            f"{type(application).__name__}")
        self._adopt(lib.handoff_responder_new(application._live(), ctypes.byref(_CALLBACKS),
                                              None, _ffi.NO_DESTROY), lib.handoff_responder_free)
        self.application = application
        self._in_callback = 0
        application._responders.append(self)
        _callbacks.responders[_ffi.address(self._handle)] = self

    def update_user_activity_state(self, activity: UserActivity) -> None:
        """The activity is being saved: add this responder's state, e.g.
        ``activity.add_user_info_entries({...})``. Main thread."""

    def restore_user_activity_state(self, activity: UserActivity) -> None:
        """Restore this responder's state from a continued activity."""

    @property
    def user_activity(self) -> UserActivity | None:
        """The activity this responder contributes to (None: none).
        Several responders may share one."""
        try:
            return UserActivity._owned(lib.handoff_responder_copy_user_activity(self._live()))
        except HandoffError as error:
            if error.code == Status.NOT_FOUND:
                return None
            raise

    @user_activity.setter
    def user_activity(self, activity: UserActivity | None) -> None:
        if activity is not None and not isinstance(activity, UserActivity):
            raise TypeError(f"user_activity is a UserActivity or None, not "
                            f"{type(activity).__name__}")
        lib.handoff_responder_set_user_activity(
            self._live(), None if activity is None else activity._live())

    def close(self) -> None:
        """Unregisters and releases the responder (not from inside one of
        its own callbacks)."""
        if self._in_callback:
            raise HandoffError(Status.INVALID_STATE,
                               "a responder cannot close inside its own callback; close it "
                               "after the callback returns")
        application = getattr(self, "application", None)
        if application is not None and self in application._responders:
            application._responders.remove(self)
        super().close()


def _responder_call(pointer: Any, activity_pointer: Any, name: str) -> None:
    responder = _callbacks.responders.get(_ffi.address(pointer))
    if responder is None:
        return
    activity = UserActivity._lent(activity_pointer)
    responder._in_callback += 1
    try:
        _callbacks.invoke(getattr(responder, name), activity)
    finally:
        responder._in_callback -= 1


@_callbacks.trampoline(_ffi.ResponderCallbackFn)
def _update(pointer: Any, activity: Any, user_data: Any) -> None:
    _responder_call(pointer, activity, "update_user_activity_state")


@_callbacks.trampoline(_ffi.ResponderCallbackFn)
def _restore(pointer: Any, activity: Any, user_data: Any) -> None:
    _responder_call(pointer, activity, "restore_user_activity_state")


_CALLBACKS = _ffi.sized(_ffi.ResponderCallbacks)
_CALLBACKS.update_user_activity_state = _update
_CALLBACKS.restore_user_activity_state = _restore


class RestorationHandler(OwnedHandle):
    """Hands a continued activity to the responders that restore it (Apple:
    the restorationHandler of continueUserActivity). Call it now or keep it
    and call it later: at most once, on the application's main thread.
    Dropping it unused is fine."""

    def __init__(self) -> None:
        raise TypeError("restoration handlers come from continue_user_activity")

    @classmethod
    def _of(cls, pointer: Any, activity: UserActivity) -> "RestorationHandler":
        handler = cls.__new__(cls)
        handler._adopt(pointer, lib.handoff_restoration_handler_free)
        handler.activity = activity
        return handler

    def __call__(self, responders: Iterable[Responder]) -> None:
        """Calls restore_user_activity_state on each responder, in order.
        HandoffError INVALID_STATE on a second call, WRONG_THREAD off the
        main thread (then nothing is called)."""
        listed = list(responders)
        for responder in listed:
            if not isinstance(responder, Responder):
                raise TypeError(f"the restoration handler takes Responders, not "
                                f"{type(responder).__name__}")
        array = (_ffi.ResponderPtr * len(listed))(*[r._live() for r in listed])
        with _callbacks.calling_back():
            lib.handoff_restoration_handler_restore(self._live(), array, len(listed))

    restore = __call__
