# SPDX-License-Identifier: MIT OR Apache-2.0
"""A person's pointer for a test, in a real KWin: a Wayland client that
speaks KWin's `org_kde_kwin_fake_input` (Plasma's fake-input.xml,
version 4: what KDE Connect and krfb use for remote input) over the
compositor's socket, written against the wire format itself so no
binding or compiler is needed.

KWin offers the interface only to executables whose desktop entry asks
for it (X-KDE-Wayland-Interfaces; Tests/support/plasma.py writes one for
the test's Python). KWin drops what a new device sends first: make one
for the session and move it once before anything counts (plasma.py
does). Standard library only."""

import os
import select
import socket
import struct
import time

INTERFACE = b"org_kde_kwin_fake_input"
BTN_LEFT = 0x110  # linux/input-event-codes.h
KEY_ENTER, KEY_DOWN = 28, 108
WAIT = 10  # seconds for the compositor's answer

# Request opcodes, in the order of fake-input.xml and wayland.xml.
AUTHENTICATE, BUTTON, POINTER_MOTION_ABSOLUTE, KEYBOARD_KEY = 0, 2, 9, 10
DISPLAY_SYNC, DISPLAY_GET_REGISTRY = 0, 1
REGISTRY_BIND = 0


def _string(text):
    data = text + b"\0"
    return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)


def _fixed(value):
    return struct.pack("=i", int(round(value * 256)))


class FakeInput:
    def __init__(self, runtime_dir, display):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self.sock.connect(os.path.join(runtime_dir, display))
        self.next_id = 2
        self.buffer = b""
        registry = self._new_id()
        self._send(1, DISPLAY_GET_REGISTRY, struct.pack("=I", registry))
        globals_ = {}
        self._roundtrip(lambda obj, op, body: obj == registry and op == 0 and self._global(body, globals_))
        if INTERFACE not in globals_:
            self.sock.close()
            raise AssertionError(f"KWin offers no {INTERFACE.decode()} (permission checks on?)")
        name, version = globals_[INTERFACE]
        self.input = self._new_id()
        self._send(registry, REGISTRY_BIND, struct.pack("=I", name) + _string(INTERFACE)
                   + struct.pack("=II", min(version, 4), self.input))
        self._send(self.input, AUTHENTICATE, _string(b"libhandoff tests") + _string(b"a test's pointer"))
        self._roundtrip()

    def _new_id(self):
        self.next_id += 1
        return self.next_id - 1

    def _send(self, obj, opcode, body=b""):
        self.sock.sendall(struct.pack("=II", obj, (8 + len(body)) << 16 | opcode) + body)

    @staticmethod
    def _global(body, found):
        name, length = struct.unpack_from("=II", body)
        interface = body[8:8 + length - 1]
        (version,) = struct.unpack_from("=I", body, 8 + length + (-length % 4))
        found[interface] = (name, version)

    def _roundtrip(self, on_event=lambda obj, op, body: None):
        """wl_display.sync: every event before its `done` goes to on_event."""
        callback = self._new_id()
        self._send(1, DISPLAY_SYNC, struct.pack("=I", callback))
        deadline = time.monotonic() + WAIT
        while True:
            while len(self.buffer) >= 8:
                obj, word = struct.unpack_from("=II", self.buffer)
                size, opcode = word >> 16, word & 0xFFFF
                if len(self.buffer) < size:
                    break
                body, self.buffer = self.buffer[8:size], self.buffer[size:]
                if obj == 1 and opcode == 0:  # wl_display.error
                    raise AssertionError(f"Wayland error: {body!r}")
                if obj == callback:
                    return
                on_event(obj, opcode, body)
            ready, _, _ = select.select([self.sock], [], [], max(0, deadline - time.monotonic()))
            chunk = self.sock.recv(65536) if ready else b""
            if not chunk:
                raise AssertionError("the compositor did not answer")
            self.buffer += chunk

    def move(self, x, y):
        """The pointer to (x, y), in the compositor's logical pixels."""
        self._send(self.input, POINTER_MOTION_ABSOLUTE, _fixed(x) + _fixed(y))
        self._roundtrip()

    def click(self, x, y, button=BTN_LEFT):
        """The pointer to (x, y) and a click there."""
        self.move(x, y)
        for state in (1, 0):
            self._send(self.input, BUTTON, struct.pack("=II", button, state))
            self._roundtrip()

    def key(self, code):
        """A key (a Linux key code) pressed and released, for the window
        that has the keyboard (a menu that popped up)."""
        for state in (1, 0):
            self._send(self.input, KEYBOARD_KEY, struct.pack("=II", code, state))
            self._roundtrip()

    def close(self):
        self.sock.close()
