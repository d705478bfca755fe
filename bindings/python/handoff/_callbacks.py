# SPDX-License-Identifier: MIT OR Apache-2.0
"""How C calls Python back.

Every C callback type has one trampoline, a CFUNCTYPE object created at
import and kept for the life of the process (module globals), so C can
never call a collected function. No callback carries Python objects
through `user_data`: the library hands back the same handle the host
created, so a trampoline finds the Python object by the handle's address
in the weak tables below.

An exception raised by Python code a callback runs is never swallowed:

- an ``Exception`` is reported through ``sys.unraisablehook`` (as Python
  reports exceptions it cannot raise, e.g. in ``__del__``), and the
  callback returns its defined result (``False`` / nothing);
- a ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``,
  ``SystemExit``) stops the running loop and is raised again by the
  ``dispatch()`` / ``run()`` / restoration call that ran the callback.
"""

from __future__ import annotations

import sys
import threading
import weakref
from contextlib import contextmanager

from . import _ffi

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

# address of a C handle -> the live Python object that owns a reference to it
activities: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
applications: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
responders: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


class UnraisableHookArgs:
    """What ``sys.unraisablehook`` receives (the attributes Python documents)."""

    def __init__(self, exc: BaseException, err_msg: str, obj: Any) -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = err_msg
        self.object = obj


def report(exc: BaseException, err_msg: str, obj: Any = None) -> None:
    """Reports an exception that cannot propagate, as Python does."""
    args = UnraisableHookArgs(exc, err_msg, obj)
    hook = sys.unraisablehook
    if hook is not sys.__unraisablehook__:
        try:
            hook(args)
            return
        except BaseException as hook_error:  # a broken hook: say so, then print
            print(f"Exception in sys.unraisablehook: {hook_error!r}", file=sys.stderr)
    # The default hook accepts only its own argument type: print as it does.
    print(f"{err_msg}: {obj!r}" if obj is not None else err_msg, file=sys.stderr)
    import traceback  # not at import: it costs milliseconds
    traceback.print_exception(args.exc_type, exc, args.exc_traceback, file=sys.stderr)


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.pending: BaseException | None = None
        # (application, inside run()) for each C call running callbacks here
        self.running: list[tuple[Any, bool]] = []


_state = _ThreadState()


def _stop_running_loop() -> None:
    # Only a run() needs stopping; a stop outside run() would end the next.
    if _state.running:
        app, in_run = _state.running[-1]
        if in_run and app._handle:
            _ffi.lib.handoff_application_stop(app._handle)


def is_running(app: Any) -> bool:
    """Whether `app` is dispatching callbacks on this thread right now."""
    return any(entry[0] is app for entry in _state.running)


def invoke(method: Callable[..., Any], *args: Any, default: Any = None) -> Any:
    """Calls Python code on C's behalf: its result, or `default` when it
    raised (reported, or kept to raise after the C call; see above)."""
    try:
        return method(*args)
    except Exception as exc:
        report(exc, "Exception ignored in a libhandoff callback", method)
    except BaseException as exc:
        if _state.pending is None:
            _state.pending = exc
            _stop_running_loop()
        else:
            report(exc, "Exception ignored in a libhandoff callback (another is pending)", method)
    return default


def trampoline(function_type: Any, default: Any = None) -> Callable[[Callable], Any]:
    """Makes `body` a C callback of `function_type` that never lets an
    exception reach ctypes (which would leave the result undefined)."""
    def make(body: Callable[..., Any]) -> Any:
        def entry(*args: Any) -> Any:
            return invoke(body, *args, default=default)
        entry.__name__ = entry.__qualname__ = body.__name__
        return function_type(entry)
    return make


def raise_pending() -> None:
    """Raises the BaseException a callback left pending on this thread."""
    exc, _state.pending = _state.pending, None
    if exc is not None:
        raise exc


@contextmanager
def running(app: Any, in_run: bool = False) -> Iterator[None]:
    """Marks `app` as dispatching on this thread for the duration of a C
    call that runs callbacks; raises what they left pending afterwards."""
    _state.running.append((app, in_run))
    try:
        yield
    finally:
        _state.running.pop()
    raise_pending()


@contextmanager
def calling_back() -> Iterator[None]:
    """For a C call that runs callbacks outside any loop (restoration)."""
    yield
    raise_pending()
