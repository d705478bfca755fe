# SPDX-License-Identifier: MIT OR Apache-2.0
"""The JSON lines a `handoff` process in the root writes, read as they come."""

import json
import queue
import threading
import time

WAIT = 60  # seconds, bound on waiting for one line of a process


def lines_of(stream):
    """A queue of the stream's lines (None at the end), read by a thread."""
    lines = queue.Queue()

    def read():
        for line in stream:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=read, daemon=True).start()
    return lines


def next_event(lines, name):
    """The next JSON line whose "event" is `name`."""
    return wait_event(lines, lambda event: event.get("event") == name, f"the {name!r} event")


def wait_event(lines, wanted, what, timeout=WAIT, seen=None):
    """The next JSON line for which `wanted` is true, within `timeout`
    seconds; every line read goes to `seen` (a list) when given, for the
    failure's message."""
    deadline = time.monotonic() + timeout
    seen = [] if seen is None else seen
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"timed out waiting for {what}; read: {''.join(seen)[-3000:]}"
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            continue
        assert line is not None, f"ended before {what}; read: {''.join(seen)[-3000:]}"
        seen.append(line)
        if line.strip().startswith("{"):
            event = json.loads(line)
            if wanted(event):
                return event
