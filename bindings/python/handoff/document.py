# SPDX-License-Identifier: MIT OR Apache-2.0
"""An open document and its activity (Apple: NSDocument's userActivity),
and the keys of documents in userInfo (docs/documents.md section 6)."""

from __future__ import annotations

import os

from . import _ffi
from ._ffi import lib
from ._handle import OwnedHandle
from .activity import UserActivity

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from .application import Application

#: The userInfo key of a document's file URL (Apple's NSUserActivityDocumentURLKey).
DOCUMENT_URL_KEY = "NSUserActivityDocumentURLKey"
#: In a continued activity: each local file URL's text to "same", "synced"
#: or "brought", as the receiving side found the document.
DOCUMENT_ORIGINS_KEY = "HandoffDocumentOrigins"


class Document(OwnedHandle):
    """``Document(app, activity_type, path)``: the activity of the document
    at `path`, its file URL under :data:`DOCUMENT_URL_KEY`, titled with the
    file's name, made current.

    It follows the file: renamed, saved by replacement (a temporary file
    renamed over it, as editors save) or deleted, the URL and title follow
    inside :meth:`Application.dispatch` on the main thread, woken by the
    application's fd (no thread, no polling). Use it as a context manager,
    or call :meth:`close`, which invalidates the activity. HandoffError
    NOT_FOUND when nothing is at `path`, INVALID_VALUE when it is not a
    regular file.
    """

    def __init__(self, app: "Application", activity_type: str, path: str | os.PathLike[str]) -> None:
        raw = os.fsencode(path)
        if b"\0" in raw:
            raise ValueError("path contains a NUL character, which the C interface cannot carry")
        self._adopt(lib.handoff_document_new(app._live(), _ffi.text_in(activity_type, "activity_type"), raw),
                    lib.handoff_document_free)
        self._app = app  # the document updates through it: keep it alive
        self._activity = UserActivity._lent(lib.handoff_document_activity(self._handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<handoff.Document closed>"
        return f"<handoff.Document {self._activity.title!r}>"

    @property
    def activity(self) -> UserActivity:
        """The document's activity: set its delegate or add userInfo entries
        (leave the URL key and the title to the document)."""
        self._live()
        return self._activity

    def edited(self) -> None:
        """The person changed the document: the activity needs a save (its
        save callbacks run before it is next sent)."""
        lib.handoff_document_edited(self._live())

    def saved(self) -> None:
        """The app saved it: no save pending, and the file looked at again
        (a save by replacement is followed before this returns on the main
        thread)."""
        lib.handoff_document_saved(self._live())
