# SPDX-License-Identifier: MIT OR Apache-2.0
"""Accounts: the key a person's devices share, and this device's role."""

from __future__ import annotations

import ctypes
import enum
import os

from . import _ffi
from ._handle import OwnedHandle

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Union
    PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Account", "DeviceRole"]

lib = _ffi.lib



class DeviceRole(enum.IntEnum):
    """A full device sends and receives; a send-only one (Apple: watchOS)
    offers its activities but is never offered any."""

    FULL = _ffi.DEVICE_ROLE_FULL
    SEND_ONLY = _ffi.DEVICE_ROLE_SEND_ONLY


class ContinuityMode(enum.IntEnum):
    """Where an application's continuity runs (handoff_continuity_mode):
    AUTO chooses the per-user handoff agent when it serves this user and
    account and no device-level option is given, else EMBEDDED; AGENT is the
    agent or an error; EMBEDDED is an engine in this process."""

    AUTO = _ffi.CONTINUITY_MODE_AUTO
    AGENT = _ffi.CONTINUITY_MODE_AGENT
    EMBEDDED = _ffi.CONTINUITY_MODE_EMBEDDED


def _directory(directory: PathLike | None) -> bytes | None:
    if directory is None:
        return None
    path = os.fspath(directory)
    return path if isinstance(path, bytes) else _ffi.text_in(path, "directory")


class Account(OwnedHandle):
    """The account a person's devices share (Apple: the iCloud account's
    Handoff keys). Only devices holding the same account see and continue
    each other's activities.

    Make one with :meth:`create`, join one with :meth:`from_pairing_code`,
    or :meth:`load` the one saved on this device.
    """

    def __init__(self) -> None:
        raise TypeError("use Account.create(), Account.load(), Account.from_pairing_code() "
                        "or Account.from_key()")

    @classmethod
    def _of(cls, handle: object) -> "Account":
        account = cls.__new__(cls)
        account._adopt(handle, lib.handoff_account_free)
        return account

    @classmethod
    def create(cls) -> "Account":
        """A new account with a fresh random key."""
        return cls._of(lib.handoff_account_new())

    @classmethod
    def from_pairing_code(cls, code: str) -> "Account":
        """The account of another device's pairing code (case, dashes and
        spaces do not matter). HandoffError INVALID_VALUE says what is wrong."""
        return cls._of(lib.handoff_account_from_pairing_code(_ffi.text_in(code, "code")))

    @classmethod
    def from_key(cls, key: bytes) -> "Account":
        """The account of a raw 32-byte key, for hosts that keep the key."""
        if not isinstance(key, (bytes, bytearray, memoryview)):
            raise TypeError(f"key is 32 bytes, not {type(key).__name__}")
        key = bytes(key)
        return cls._of(lib.handoff_account_from_key(key, len(key)))

    @classmethod
    def load(cls, directory: PathLike | None = None) -> "Account":
        """The account saved in `directory` (None: $XDG_CONFIG_HOME/handoff,
        else ~/.config/handoff). HandoffError NOT_FOUND (none yet),
        PERMISSION (the file is readable by others: chmod 600 it),
        MALFORMED_DATA or IO."""
        return cls._of(lib.handoff_account_load(_directory(directory)))

    def save(self, directory: PathLike | None = None) -> None:
        """Saves it (mode 0600, in a 0700 directory, atomically)."""
        lib.handoff_account_save(self._live(), _directory(directory))

    @property
    def pairing_code(self) -> str:
        """The secret to type on another device: show it only to the person."""
        code = lib.handoff_account_copy_pairing_code(self._live())
        try:
            return ctypes.string_at(code).decode("utf-8")
        finally:
            lib.handoff_free(code)

    @property
    def id(self) -> str:
        """A public fingerprint (16 hex digits) that reveals nothing of the key."""
        return lib.handoff_account_get_id(self._live()).decode("utf-8")

    def __repr__(self) -> str:
        return "<Account (closed)>" if self.closed else f"<Account {self.id}>"
