#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What KWin's screen shows, as a PNG: `kwin_screenshot.py BUS_ADDRESS
OUT.png`. KWin's org.kde.KWin.ScreenShot2 (version 4) writes the raw
image into a pipe the caller passes; the system's Python with GObject
introspection (Gio) passes it; png_image.py writes the PNG. KWin
answers only trusted callers unless it runs with
KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1 (Tests/support/plasma.py)."""

import os
import sys
import threading

from gi.repository import Gio, GLib

import png_image  # beside this file

ARGB32 = (4, 5)  # QImage::Format_ARGB32 (premultiplied): B, G, R, A in memory


def write_png(path, width, height, stride, image_format, data):
    if image_format not in ARGB32:
        raise SystemExit(f"QImage format {image_format} is not handled")
    rows = []
    for y in range(height):
        row = data[y * stride:y * stride + width * 4]
        rgba = bytearray(len(row))
        rgba[0::4], rgba[1::4], rgba[2::4], rgba[3::4] = row[2::4], row[1::4], row[0::4], row[3::4]
        rows.append(rgba)
    png_image.write(path, width, height, rows)


def main(address, path):
    bus = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    read_end, write_end = os.pipe()
    chunks = []

    def drain():  # KWin writes after it replied: read while the call runs
        while block := os.read(read_end, 1 << 16):
            chunks.append(block)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    fds = Gio.UnixFDList.new()
    fds.append(write_end)  # a duplicate: the list closes it when freed
    reply, _ = bus.call_with_unix_fd_list_sync(
        "org.kde.KWin.ScreenShot2", "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2", "CaptureActiveScreen",
        GLib.Variant("(a{sv}h)", ({"include-cursor": GLib.Variant("b", False)}, 0)), GLib.VariantType("(a{sv})"),
        Gio.DBusCallFlags.NONE, 30000, fds, None)
    os.close(write_end)
    del fds
    reader.join(30)
    meta = reply.unpack()[0]
    write_png(path, meta["width"], meta["height"], meta["stride"], meta["format"], b"".join(chunks))


if __name__ == "__main__":
    main(*sys.argv[1:])
