# SPDX-License-Identifier: MIT OR Apache-2.0
"""The "create shape" receiver on asyncio: libhandoff's fd sits in the event
loop next to the app's other coroutines (loop.add_reader, through
handoff.aio), so no thread and no blocking run() is needed.

    python3 examples/python/asyncio_receiver.py &
    python3 examples/python/create_shape_sender.py

Exits 0 once a shape is restored, 1 otherwise.
"""

from __future__ import annotations

import asyncio
import sys

from demo_network import arguments, handoff, start  # first: it finds the package
import handoff.aio  # noqa: E402
from shapes import CREATE_SHAPE, Canvas, manifest

LINGER = 2.0  # seconds to wait for the sender to withdraw, at most


class Receiver(handoff.ApplicationDelegate):
    """Continues the first shape offered; resolves `outcome` with it."""

    def __init__(self, outcome: "asyncio.Future[str]") -> None:
        self.outcome = outcome
        self.canvas: Canvas | None = None
        self.continued_id: str | None = None
        self.withdrawn = asyncio.Event()

    def activity_available(self, app: handoff.Application, remote: handoff.RemoteActivity) -> None:
        if remote.activity_type == CREATE_SHAPE and not self.outcome.done():
            print(f"receiver: {remote.device_name} offers \"{remote.title}\"; continuing it",
                  flush=True)
            app.continue_activity(remote)

    def continue_user_activity(self, app: handoff.Application, activity: handoff.UserActivity,
                               restoration_handler: handoff.RestorationHandler) -> bool:
        restoration_handler([self.canvas])
        if self.canvas.problem:
            self.outcome.set_exception(RuntimeError(self.canvas.problem))
            return False
        self.outcome.set_result(self.canvas.shapes[-1])
        self.continued_id = activity.activity_id
        return True

    def activity_withdrawn(self, app: handoff.Application, remote: handoff.RemoteActivity) -> None:
        if remote.id == self.continued_id:
            self.withdrawn.set()  # the sender heard us and stopped offering it

    def did_fail_to_continue_user_activity(self, app: handoff.Application, activity_type: str,
                                           error: handoff.HandoffError) -> None:
        self.outcome.set_exception(error)


async def heartbeat(beats: list[int]) -> None:
    """Stands for the rest of the app: it keeps running while we wait."""
    while True:
        await asyncio.sleep(0.1)
        beats[0] += 1


async def main() -> int:
    options = arguments("Continue a shape, on asyncio.", sending=False).parse_args()
    outcome: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    receiver = Receiver(outcome)
    beats = [0]
    with handoff.Application(manifest(), receiver) as app:
        receiver.canvas = Canvas(app)
        start(app, options, "Shapes receiver (asyncio)")
        print("receiver: waiting for a shape", flush=True)
        other_work = asyncio.create_task(heartbeat(beats))
        try:
            with handoff.aio.attached(app):  # the loop dispatches app's callbacks
                shape = await asyncio.wait_for(outcome, options.timeout)
                # The library tells the sender "continued" from its own
                # thread; stay until the sender stops offering the shape, so
                # closing the app does not cut that message off.
                try:
                    await asyncio.wait_for(receiver.withdrawn.wait(), LINGER)
                except asyncio.TimeoutError:
                    pass
        except (asyncio.TimeoutError, RuntimeError, handoff.HandoffError) as error:
            print(f"receiver: no shape: {error or 'timed out'}", file=sys.stderr)
            return 1
        finally:
            other_work.cancel()
    print(f"receiver: restored a {shape}; the loop ran {beats[0]} heartbeats meanwhile",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
