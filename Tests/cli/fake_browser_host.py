#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A stand-in for `handoff browser-host` (the bridges' browser design), for
testing the WebExtension in a real browser before, and beside, the real host.

The browser starts it through the native-messaging manifest that
browser_support.py writes. It speaks the browsers' framing (a 32-bit
native-endian length, then UTF-8 JSON), answers `hello` and `status` with a
`status` naming one device, and logs to LOG (one JSON object a line):
  {"event": "start", "argv": [...], "pid": N}
  {"event": "message", "message": {...}, "pid": N}   each browser message
  {"event": "end", "why": "...", "pid": N}
Whatever a test writes as a JSON line to the Unix socket CONTROL (one
connection per line) is sent on to the extension (e.g. an `open`). A newer
host instance takes the socket over, so it reaches the live one.

Usage: fake_browser_host.py LOG CONTROL [browser's own arguments...]
"""

import json
import os
import socket
import struct
import sys
import threading

MAX_IN = 64 * 1024  # the design's bound on browser -> host messages

log_path, control_path = sys.argv[1], sys.argv[2]
out_lock = threading.Lock()
log_lock = threading.Lock()


def log(entry):
    entry["pid"] = os.getpid()
    with log_lock, open(log_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def send(message):
    data = json.dumps(message).encode()
    with out_lock:
        sys.stdout.buffer.write(struct.pack("=I", len(data)) + data)
        sys.stdout.buffer.flush()


def status():
    send({"type": "status", "agent": True, "devices": ["Test Laptop"]})


def serve_control():
    try:
        os.unlink(control_path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(control_path)
    server.listen(4)
    while True:
        conn, _ = server.accept()
        with conn:
            conn.settimeout(5)
            data = b""
            while not data.endswith(b"\n") and len(data) < MAX_IN:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
            try:
                message = json.loads(data)
                send(message)
                log({"event": "sent", "message": message})
                conn.sendall(b"ok\n")
            except (ValueError, OSError) as error:
                conn.sendall(f"error {error}\n".encode())


def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = sys.stdin.buffer.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main():
    log({"event": "start", "argv": sys.argv[3:]})
    threading.Thread(target=serve_control, daemon=True).start()
    while True:
        head = read_exactly(4)
        if head is None:
            log({"event": "end", "why": "eof"})
            return 0
        (length,) = struct.unpack("=I", head)
        if length > MAX_IN:
            log({"event": "end", "why": f"message of {length} bytes"})
            return 1
        body = read_exactly(length)
        if body is None:
            log({"event": "end", "why": "eof mid-message"})
            return 1
        try:
            message = json.loads(body)
        except ValueError:
            send({"type": "error", "error": "malformed JSON", "about": ""})
            continue
        log({"event": "message", "message": message})
        if isinstance(message, dict) and message.get("type") in ("hello", "status"):
            status()


if __name__ == "__main__":
    sys.exit(main())
