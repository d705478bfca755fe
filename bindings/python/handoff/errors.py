# SPDX-License-Identifier: MIT OR Apache-2.0
"""Errors: the library's status codes, and the exception that carries them."""

from __future__ import annotations

import enum

__all__ = ["HandoffError", "Status", "USER_ACTIVITY_ERROR_RANGE"]


class Status(enum.IntEnum):
    """handoff.h's status codes. 4608-4611 keep Apple's numbers
    (NSUserActivity*Error); the small ones are the library's own."""

    OK = 0
    INVALID_ARGUMENT = 1
    INVALID_VALUE = 2
    TYPE_MISMATCH = 3
    NOT_FOUND = 4
    MALFORMED_DATA = 5
    IO = 6
    MISSING_REQUIRED_KEY = 7
    INVALID_STATE = 8
    WRONG_THREAD = 9
    TIMED_OUT = 10
    PERMISSION = 11
    HANDOFF_FAILED = 4608
    CONNECTION_UNAVAILABLE = 4609
    REMOTE_APPLICATION_TIMED_OUT = 4610
    USER_INFO_TOO_LARGE = 4611


#: Apple's user-activity error range: a code in it is a Handoff failure to
#: show the person, not a programming error.
USER_ACTIVITY_ERROR_RANGE = range(4608, 4864)


class HandoffError(Exception):
    """A libhandoff call failed.

    ``code`` is the status (Apple's number for 4608-4863), ``message`` the
    library's explanation (what went wrong and what to do), ``function``
    the C function that failed, when known.
    """

    def __init__(self, code: int, message: str, function: str | None = None) -> None:
        self.code = int(code)
        self.message = message
        self.function = function
        super().__init__(code, message)

    @property
    def status(self) -> Status | int:
        """The code as a :class:`Status` member (a plain int when unknown)."""
        try:
            return Status(self.code)
        except ValueError:
            return self.code

    @property
    def is_user_activity_error(self) -> bool:
        """True for Apple's user-activity errors (4608-4863)."""
        return self.code in USER_ACTIVITY_ERROR_RANGE

    def __str__(self) -> str:
        status = self.status
        name = status.name if isinstance(status, Status) else "unknown status"
        where = f"{self.function}: " if self.function else ""
        return f"{where}{self.message} [{name} {self.code}]"
