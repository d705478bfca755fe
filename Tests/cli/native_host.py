# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff browser-host` driven as a browser drives it (docs/browser.md):
native-messaging frames on its stdin and stdout, read by a thread, with
bounded waits. Killed with the test (children.track)."""

import json
import queue
import struct
import subprocess
import threading
import time

import children  # Tests/support
from cli_support import TOOL, WAIT


def frame(message):
    """One frame: a dict as JSON, or bytes as they are."""
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack("<I", len(body)) + body


class BrowserHost:
    def __init__(self, device, env, *args):
        self.proc = subprocess.Popen([*device.prefix, str(TOOL), "browser-host", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        children.track(self.proc)
        self.replies = queue.Queue()
        self.seen = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(l.decode(errors="replace").rstrip() for l in self.proc.stderr),
                         daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            header = out.read(4)
            if len(header) < 4:
                self.replies.put(None)
                return
            (n,) = struct.unpack("<I", header)
            self.replies.put(json.loads(out.read(n)))

    def send(self, message):
        try:
            self.proc.stdin.write(frame(message))
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc.wait(timeout=WAIT)
            raise AssertionError(f"the host ended ({self.proc.returncode}); its log {self.stderr}") from None

    def next(self, type_, timeout=WAIT, **fields):
        """The next reply of this type with these fields (others are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                reply = self.replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {type_} {fields} from the host; seen {self.seen}; its log {self.stderr}")
            if reply is None:
                raise AssertionError(f"the host closed its output; seen {self.seen}; its log {self.stderr}")
            self.seen.append(reply)
            if reply.get("type") == type_ and all(reply.get(k) == v for k, v in fields.items()):
                return reply

    def close(self):
        """The browser goes away: stdin closes; the host's exit status."""
        self.proc.stdin.close()
        return self.proc.wait(timeout=WAIT)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
