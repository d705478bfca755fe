# SPDX-License-Identifier: MIT OR Apache-2.0
"""The base of every class that owns a libhandoff handle."""

from __future__ import annotations

import weakref

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable


class OwnedHandle:
    """Owns one reference to a C handle: released by close(), by the end of
    a ``with`` block, or when the object is collected (or the interpreter
    exits), whichever comes first. A closed object raises ValueError."""

    _handle: Any = None
    _finalizer: weakref.finalize | None = None

    def _adopt(self, handle: Any, free: Callable[[Any], None]) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, free, handle)

    @property
    def closed(self) -> bool:
        """True once close() released the handle."""
        return not self._handle

    def close(self) -> None:
        """Releases the handle now. Closing twice is harmless."""
        if self._finalizer is not None:
            self._finalizer()
        self._handle = None

    def _live(self) -> Any:
        """The handle, or ValueError when closed."""
        if not self._handle:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._handle

    def __enter__(self: Any) -> Any:
        self._live()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
