# SPDX-License-Identifier: MIT OR Apache-2.0
"""asyncio integration: the application's fd in the event loop.

    async def main():
        app = handoff.Application(manifest, delegate)
        with handoff.aio.attached(app):
            await something()        # callbacks run as the loop sees the fd

The loop calls ``app.dispatch()`` whenever the fd is readable (callbacks
queued or a timer due), on the loop's thread, which must be the thread that
created the application. An exception out of dispatch goes where asyncio
sends callback exceptions (the loop's exception handler; KeyboardInterrupt
and SystemExit end ``run_until_complete``).
"""

from __future__ import annotations

import asyncio
import contextlib

from .application import Application

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Iterator

__all__ = ["attach", "detach", "attached"]


def attach(app: Application, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Starts dispatching `app` from `loop` (default: the running loop)."""
    (loop or asyncio.get_running_loop()).add_reader(app.fileno(), app.dispatch)


def detach(app: Application, loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Stops dispatching `app` from `loop`. Do it before closing the app."""
    (loop or asyncio.get_running_loop()).remove_reader(app.fileno())


@contextlib.contextmanager
def attached(app: Application,
             loop: asyncio.AbstractEventLoop | None = None) -> Iterator[Application]:
    """attach() for the duration of a ``with`` block."""
    loop = loop or asyncio.get_running_loop()
    attach(app, loop)
    try:
        yield app
    finally:
        detach(app, loop)

