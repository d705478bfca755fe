# SPDX-License-Identifier: MIT OR Apache-2.0
"""8-bit RGBA PNG images as the tests' screenshots need them: written
from rows of pixels, and read back (what this module writes: filter 0 on
every row) as rows of bytes, to find what changed on screen between two
of them. Standard library only (zlib)."""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write(path, width, height, rows):
    """`rows`: `height` byte strings of width × RGBA."""
    data = b"".join(b"\0" + bytes(row) for row in rows)
    with open(path, "wb") as out:
        out.write(SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
                  + _chunk(b"IDAT", zlib.compress(data, 6)) + _chunk(b"IEND", b""))


class Image:
    """A PNG written by `write`: its size and rows of RGBA bytes."""

    def __init__(self, path):
        data = open(path, "rb").read()
        assert data.startswith(SIGNATURE), f"{path} is not a PNG"
        offset, compressed = len(SIGNATURE), b""
        while offset < len(data):
            (length,) = struct.unpack_from(">I", data, offset)
            kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
            offset += 12 + length
            if kind == b"IHDR":
                self.width, self.height = struct.unpack_from(">II", body)
            elif kind == b"IDAT":
                compressed += body
        raw = zlib.decompress(compressed)
        stride = self.width * 4 + 1
        assert all(raw[y * stride] == 0 for y in range(self.height)), "only filter 0 is read"
        self.rows = [raw[y * stride + 1:(y + 1) * stride] for y in range(self.height)]

    def pixel(self, x, y):
        return tuple(self.rows[y][x * 4:x * 4 + 4])

    def changed(self, other, box):
        """The bounding box (left, top, right, bottom; inclusive) of the
        pixels inside `box` that differ from `other`'s, or None."""
        left, top, right, bottom = box
        xs, ys = [], []
        for y in range(top, bottom + 1):
            a, b = self.rows[y], other.rows[y]
            if a[left * 4:(right + 1) * 4] == b[left * 4:(right + 1) * 4]:
                continue
            for x in range(left, right + 1):
                if a[x * 4:x * 4 + 4] != b[x * 4:x * 4 + 4]:
                    xs.append(x)
                    ys.append(y)
        return (min(xs), min(ys), max(xs), max(ys)) if xs else None
