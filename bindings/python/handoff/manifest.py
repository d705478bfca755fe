# SPDX-License-Identifier: MIT OR Apache-2.0
"""Manifests: who the app is and which activity types it continues."""

from __future__ import annotations

import os

from . import _ffi
from ._handle import OwnedHandle

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Iterable, Union
    PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Manifest"]

lib = _ffi.lib



class Manifest(OwnedHandle):
    """An app's bundle identifier, team identifier (only apps of one team
    continue each other's activities) and the activity types it can continue
    (Apple: NSUserActivityTypes).

    ``Manifest("com.example.app", "TEAM1", ["com.example.app.edit"])``, or
    from the app's Info.plist with :meth:`from_info_plist`.
    """

    def __init__(self, bundle_identifier: str, team_identifier: str,
                 activity_types: Iterable[str] = ()) -> None:
        self._adopt(lib.handoff_manifest_new(
            _ffi.text_in(bundle_identifier, "bundle_identifier"),
            _ffi.text_in(team_identifier, "team_identifier")), lib.handoff_manifest_free)
        if isinstance(activity_types, str):
            raise TypeError("activity_types takes a collection of str, not a single str")
        for activity_type in activity_types:
            self.declare(activity_type)

    @classmethod
    def _of(cls, handle: object) -> "Manifest":
        manifest = cls.__new__(cls)
        manifest._adopt(handle, lib.handoff_manifest_free)
        return manifest

    @classmethod
    def from_info_plist(cls, path: PathLike) -> "Manifest":
        """Loads an Info.plist (XML or binary): CFBundleIdentifier,
        NSUserActivityTypes, the CFBundleDocumentTypes entries carrying
        NSUbiquitousDocumentUserActivityType (their types are declared
        too), and the team from HandoffTeamIdentifier (else
        AppIdentifierPrefix). An NSUserActivityTypes entry that cannot be a
        type is skipped, an NSUserActivityTypes that is not an array declares
        none, and a key repeated in one dictionary keeps its last value: each
        listed in :attr:`warnings`. HandoffError IO or
        MALFORMED_DATA."""
        fspath = os.fspath(path)
        encoded = fspath if isinstance(fspath, bytes) else _ffi.text_in(fspath, "path")
        return cls._of(lib.handoff_manifest_load(encoded))

    @classmethod
    def from_info_plist_bytes(cls, data: bytes) -> "Manifest":
        """As from_info_plist, from the file's bytes."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"from_info_plist_bytes takes bytes, not {type(data).__name__}")
        data = bytes(data)
        return cls._of(lib.handoff_manifest_load_data(data, len(data)))

    def declare(self, activity_type: str) -> None:
        """Declares a type the app can continue; twice is harmless. Any
        1-255-byte string without control characters, matched exactly
        ("com.example.app.edit", "INSendMessageIntent", "ReadArticle");
        HandoffError INVALID_VALUE otherwise."""
        lib.handoff_manifest_declare_activity_type(self._live(),
                                                   _ffi.text_in(activity_type, "activity_type"))

    def declares(self, activity_type: str) -> bool:
        return bool(lib.handoff_manifest_declares(self._live(),
                                                  _ffi.text_in(activity_type, "activity_type")))

    def __contains__(self, activity_type: object) -> bool:
        return isinstance(activity_type, str) and self.declares(activity_type)

    @property
    def bundle_identifier(self) -> str:
        return lib.handoff_manifest_get_bundle_identifier(self._live()).decode("utf-8")

    @property
    def team_identifier(self) -> str:
        return lib.handoff_manifest_get_team_identifier(self._live()).decode("utf-8")

    @property
    def activity_types(self) -> tuple[str, ...]:
        """The declared types, in declaration order."""
        handle = self._live()
        return tuple(lib.handoff_manifest_activity_type_at(handle, i).decode("utf-8")
                     for i in range(lib.handoff_manifest_activity_type_count(handle)))

    def declare_web_domain(self, domain: str) -> None:
        """Claims a web domain the app opens (Apple's associated domains):
        "example.com" (that host only) or "*.example.com" (every host under
        it, not example.com itself). A browsing-web activity
        (NSUserActivityTypeBrowsingWeb) whose page is on it is then
        continuable by the app, whatever its team. Twice is harmless;
        HandoffError INVALID_VALUE for anything but a host name, or a 33rd
        domain."""
        lib.handoff_manifest_declare_web_domain(self._live(), _ffi.text_in(domain, "domain"))

    @property
    def web_domains(self) -> tuple[str, ...]:
        """The claimed web domains, in claim order, lowercase."""
        handle = self._live()
        return tuple(lib.handoff_manifest_web_domain_at(handle, i).decode("utf-8")
                     for i in range(lib.handoff_manifest_web_domain_count(handle)))

    @property
    def warnings(self) -> list[str]:
        """What loading the Info.plist skipped and why: one message per key
        repeated in one dictionary (the last value is used), then one for an
        NSUserActivityTypes that is not an array, or one per entry of it that
        cannot be a type (not a string, empty, over 255 bytes, control
        characters), naming the file, the entry and what was found. Empty
        for a manifest built in code."""
        handle = self._live()
        return [lib.handoff_manifest_warning_at(handle, i).decode("utf-8")
                for i in range(lib.handoff_manifest_warning_count(handle))]

    def __repr__(self) -> str:
        if self.closed:
            return "<Manifest (closed)>"
        return (f"<Manifest {self.bundle_identifier} team={self.team_identifier} "
                f"types={list(self.activity_types)}>")
