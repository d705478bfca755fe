# SPDX-License-Identifier: MIT OR Apache-2.0
"""libhandoff for Python: Handoff (Apple's NSUserActivity continuation
between a person's devices) on Linux, over libhandoff.so through ctypes.

    import handoff

    manifest = handoff.Manifest("com.example.myapp", "TEAM1", ["com.example.myapp.edit"])
    app = handoff.Application(manifest, MyDelegate())
    app.start_continuity(handoff.Account.load())
    activity = handoff.UserActivity("com.example.myapp.edit")
    activity.user_info = {"document": "notes.txt", "line": 42}
    app.become_current(activity)
    app.run()

See bindings/python/README.md, and examples/python in the repository.
"""

from __future__ import annotations

from . import _ffi
from .account import Account, ContinuityMode, DeviceRole
from .activity import UserActivity, UserActivityDelegate
from .application import Application, ApplicationDelegate
from .document import DOCUMENT_ORIGINS_KEY, DOCUMENT_URL_KEY, Document
from .errors import USER_ACTIVITY_ERROR_RANGE, HandoffError, Status
from .manifest import Manifest
from .remote import RemoteActivity
from .responder import Responder, RestorationHandler
from .values import URL, decode_value, encode_value

__all__ = [
    "Account", "Application", "ApplicationDelegate", "ContinuityMode", "DeviceRole", "DOCUMENT_ORIGINS_KEY",
    "DOCUMENT_URL_KEY", "Document", "HandoffError", "Manifest",
    "RemoteActivity", "Responder", "RestorationHandler", "Status", "URL",
    "USER_ACTIVITY_ERROR_RANGE", "USER_INFO_BUDGET", "UserActivity", "UserActivityDelegate",
    "decode_value", "encode_value", "library_path", "library_version", "status_string",
]

__version__ = "0.4.0"

#: Encoded userInfo must stay within this many bytes (else 4611).
USER_INFO_BUDGET = _ffi.USER_INFO_BUDGET

#: Where the loaded libhandoff.so came from.
library_path: str = _ffi.library_path


def library_version() -> str:
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return _ffi.lib.handoff_version_string().decode("ascii")


def status_string(code: int) -> str:
    """The library's short description of a status code."""
    return _ffi.lib.handoff_status_string(int(code)).decode("utf-8")
