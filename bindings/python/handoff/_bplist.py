# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo values as binary property lists, at Python speed, so a whole
userInfo crosses into the library in one call each way instead of a few
ctypes calls per value (docs/PROTOCOL.md §1-§2).

Both directions lean on the library for the rules:

- ``write`` makes bytes for ``handoff_value_decode``, which checks them as
  it checks any input. It writes the common case only and returns None for
  anything unusual (a type it does not know, text with NUL or lone
  surrogates, an integer over 64 bits, a naive datetime, deep nesting or a
  cycle, the reserved key ``$class``, canonically equivalent keys): the
  caller then converts value by value as before, which raises the same
  errors as ever. Its bytes need not be canonical, only valid: objects are
  written children first (the top object last), references are 1 byte (2
  when there are 256 objects or more), null is the 0x00 token.
- ``read`` reads only what ``handoff_value_encode`` writes, the canonical
  encoding (§1.1): objects in depth-first pre-order, none shared. So it
  reads them in file order and never follows a reference or the offset
  table.

The loops are written out by hand (common kinds first, no method calls)
because this is the hot path of ``UserActivity.user_info``.
"""

from __future__ import annotations

import datetime
import struct
from itertools import accumulate

from .errors import HandoffError, Status

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

# Seconds from 1970-01-01 to 2001-01-01, the plist date epoch.
_EPOCH_2001 = 978307200.0
_DOUBLE = struct.Struct(">d")
_MARKED_DOUBLE = struct.Struct(">Bd")
_MARKED_U16 = struct.Struct(">BH")
_MARKED_U32 = struct.Struct(">BI")
_MARKED_I64 = struct.Struct(">Bq")

# Deeper than any userInfo may nest (16): left to the slow path, which
# reports it (and catches values that contain themselves).
_MAX_DEPTH = 18
_MAX_OBJECTS = 65535  # 2-byte references at most; beyond, the slow path


class _Unusual(Exception):
    """Not the common case: convert value by value instead."""


class _Wide(Exception):
    """A reference over 255: write again with 2-byte references."""


# ------------------------------------------------------------------ write

_SMALL_INTS = [bytes((0x10, n)) for n in range(256)]
_ASCII_MARKERS = [bytes((0x50 | n,)) for n in range(15)] + [bytes((0x5F, 0x10, n))
                                                             for n in range(15, 256)]
_TRUE, _FALSE, _NULL = b"\x09", b"\x08", b"\x00"

# Encoded keys by key: an app writes the same few keys again and again.
# Bounded; ASCII keys only (others need the equivalence check).
_KEYS: dict[str, bytes] = {}
_KEYS_MAX = 4096


def _count(marker: int, n: int) -> bytes:
    """An object's marker with its count (inline below 15)."""
    if n < 15:
        return bytes((marker | n,))
    if n < 256:
        return bytes((marker | 15, 0x10, n))
    if n < 65536:
        return bytes((marker | 15, 0x11)) + n.to_bytes(2, "big")
    return bytes((marker | 15, 0x12)) + n.to_bytes(4, "big")


def _text(s: str) -> bytes:
    """A string object (ASCII or UTF-16BE)."""
    if "\0" in s:
        raise _Unusual
    if s.isascii():
        n = len(s)
        return (_ASCII_MARKERS[n] if n < 256 else _count(0x50, n)) + s.encode()
    try:
        units = s.encode("utf-16-be")  # lone surrogates refuse to encode
    except UnicodeEncodeError:
        raise _Unusual from None
    return _count(0x60, len(units) // 2) + units


def _integer(n: int) -> bytes:
    if 0 <= n < 256:
        return _SMALL_INTS[n]
    if 0 <= n < 65536:
        return _MARKED_U16.pack(0x11, n)
    if 0 <= n < 4294967296:
        return _MARKED_U32.pack(0x12, n)
    if -9223372036854775808 <= n <= 9223372036854775807:
        return _MARKED_I64.pack(0x13, n)
    raise _Unusual


def _refs(numbers: list[int], wide: bool) -> bytes:
    if wide:
        return struct.pack(f">{len(numbers)}H", *numbers)
    try:
        return bytes(numbers)
    except ValueError:
        raise _Wide from None


def _put(obj: Any, out: list, wide: bool, depth: int) -> int:
    """Appends `obj`'s objects to `out`; its own number."""
    kind = type(obj)
    if kind is str:
        out.append(_text(obj))
    elif kind is int:
        out.append(_SMALL_INTS[obj] if 0 <= obj < 256 else _integer(obj))
    elif kind is dict:
        return _dictionary(obj, out, wide, depth + 1)
    elif kind is bool:
        out.append(_TRUE if obj else _FALSE)
    elif kind is float:
        out.append(_MARKED_DOUBLE.pack(0x23, obj))
    elif kind is list or kind is tuple:
        return _array(obj, out, wide, depth + 1)
    elif obj is None:
        out.append(_NULL)
    else:
        return _other(obj, out, wide, depth)
    return len(out) - 1


def _put_all(items: Iterable[Any], out: list, wide: bool, depth: int) -> list[int]:
    """_put of each item (the common kinds inline: this loop is the hot one)."""
    numbers = []
    for item in items:
        kind = type(item)
        if kind is str:
            chunk = (_ASCII_MARKERS[len(item)] + item.encode()
                     if len(item) < 15 and item.isascii() and "\0" not in item else _text(item))
        elif kind is int and 0 <= item < 256:
            chunk = _SMALL_INTS[item]
        elif kind is float:
            chunk = _MARKED_DOUBLE.pack(0x23, item)
        elif kind is bool:
            chunk = _TRUE if item else _FALSE
        else:
            numbers.append(_put(item, out, wide, depth))
            continue
        numbers.append(len(out))
        out.append(chunk)
    return numbers


def _array(items: list | tuple, out: list, wide: bool, depth: int) -> int:
    if depth > _MAX_DEPTH:
        raise _Unusual
    numbers = _put_all(items, out, wide, depth)
    out.append(_count(0xA0, len(numbers)) + _refs(numbers, wide))
    return len(out) - 1


def _dictionary(mapping: dict, out: list, wide: bool, depth: int) -> int:
    if depth > _MAX_DEPTH:
        raise _Unusual
    numbers = []
    known = _KEYS.get
    checked = False
    for key in mapping:
        encoded = known(key) if type(key) is str else None
        if encoded is None:
            encoded = _new_key(key)
            if not checked and not key.isascii():
                _check_equivalent_keys(mapping)
                checked = True
        numbers.append(len(out))
        out.append(encoded)
    numbers += _put_all(mapping.values(), out, wide, depth)
    out.append(_count(0xD0, len(mapping)) + _refs(numbers, wide))
    return len(out) - 1


def _new_key(key: object) -> bytes:
    if type(key) is not str or key == "$class":
        raise _Unusual
    encoded = _text(key)
    if key.isascii():
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        _KEYS[key] = encoded
    return encoded


def _check_equivalent_keys(mapping: dict) -> None:
    """Keys equal as Unicode (é and e + U+0301) are one key to the
    library, which keeps the last: the slow path does just that."""
    import unicodedata
    if len({unicodedata.normalize("NFC", k) for k in mapping}) != len(mapping):
        raise _Unusual


def _other(obj: Any, out: list, wide: bool, depth: int) -> int:
    """The rarer kinds, and subclasses of the common ones."""
    from .values import URL  # values imports this module
    if isinstance(obj, URL):
        text = _put(str(obj), out, wide, depth)
        return _tagged("NSURL", "NS.relative", text, out, wide)
    if isinstance(obj, bool):
        out.append(_TRUE if obj else _FALSE)
    elif isinstance(obj, int):
        out.append(_integer(int(obj)))
    elif isinstance(obj, float):
        out.append(_MARKED_DOUBLE.pack(0x23, obj))
    elif isinstance(obj, str):
        out.append(_text(str(obj)))
    elif isinstance(obj, (bytes, bytearray, memoryview)):
        data = bytes(obj)
        out.append(_count(0x40, len(data)) + data)
    elif isinstance(obj, datetime.datetime):
        if obj.tzinfo is None or obj.utcoffset() is None:
            raise _Unusual
        out.append(_MARKED_DOUBLE.pack(0x33, obj.timestamp() - _EPOCH_2001))
    elif isinstance(obj, (set, frozenset)):
        members = _array(list(obj), out, wide, depth + 1)
        return _tagged("NSSet", "NS.objects", members, out, wide)
    elif isinstance(obj, dict):
        return _dictionary(obj, out, wide, depth + 1)
    elif isinstance(obj, (list, tuple)):
        return _array(obj, out, wide, depth + 1)
    else:
        raise _Unusual
    return len(out) - 1


def _tagged(class_name: str, key: str, value: int, out: list, wide: bool) -> int:
    """{"$class": class_name, key: value} (docs/PROTOCOL.md §2)."""
    first = len(out)
    out += (b"\x56$class", _text(key), _text(class_name))
    out.append(b"\xd2" + _refs([first, first + 1, first + 2, value], wide))
    return len(out) - 1


def write(obj: Any) -> bytes | None:
    """`obj` as a binary property list for handoff_value_decode, or None
    when it is not the common case (see the module's doc)."""
    for wide in (False, True):
        out: list[bytes] = []
        try:
            top = _put(obj, out, wide, 0)
        except _Wide:
            continue
        except Exception:  # _Unusual, or whatever the slow path will report
            return None
        count = len(out)
        if count > _MAX_OBJECTS:
            return None
        offsets = list(accumulate(map(len, out), initial=8))
        table = offsets.pop()
        if table < 256:
            offset_size, packed = 1, bytes(offsets)
        elif table < 65536:
            offset_size, packed = 2, struct.pack(f">{count}H", *offsets)
        else:
            offset_size, packed = 4, struct.pack(f">{count}I", *offsets)
        trailer = struct.pack(">6xBBQQQ", offset_size, 2 if wide else 1, count, top, table)
        return b"".join((b"bplist00", *out, packed, trailer))
    return None


# ------------------------------------------------------------------- read

def read(data: bytes, hashable: bool = False) -> object:
    """The Python native of the library's canonical encoding of a value.
    Inside sets (`hashable`) arrays are tuples, and a dictionary raises
    TypeError (as values.from_value)."""
    # ASCII strings are sliced from this text, so never decoded one by one.
    text = data.decode("latin-1")
    value, _ = _read(data, text, 8, data[-25], hashable)
    return value


def _length(data: bytes, position: int, low: int) -> tuple[int, int]:
    """An object's count and where its contents start (after the marker)."""
    if low != 15:
        return low, position + 1
    size = 1 << (data[position + 1] & 0x0F)
    start = position + 2
    return int.from_bytes(data[start:start + size], "big"), start + size


def _read_all(data: bytes, text: str, position: int, n: int, ref_size: int,
              hashable: bool) -> tuple[list, int]:
    """`n` values in a row (the common kinds inline: this loop is the hot one)."""
    items: list[Any] = []
    append = items.append
    for _ in range(n):
        marker = data[position]
        if 0x50 <= marker < 0x5F:  # a short ASCII string
            start = position + 1
            position = start + marker - 0x50
            append(text[start:position])
        elif marker == 0x10:  # an integer below 256
            append(data[position + 1])
            position += 2
        elif marker == 0x5F and data[position + 1] == 0x10:  # ASCII, 15 to 255
            start = position + 3
            position = start + data[position + 2]
            append(text[start:position])
        elif marker == 0x23:
            append(_DOUBLE.unpack_from(data, position + 1)[0])
            position += 9
        elif marker == 0x09 or marker == 0x08:
            append(marker == 0x09)
            position += 1
        else:
            value, position = _read(data, text, position, ref_size, hashable)
            append(value)
    return items, position


def _read(data: bytes, text: str, position: int, ref_size: int,
          hashable: bool) -> tuple[Any, int]:
    """The value at `position`, and where the next object starts."""
    marker = data[position]
    high = marker >> 4
    if high == 0xD:
        return _read_dictionary(data, text, position, ref_size, hashable)
    if high == 0xA:
        n, position = _length(data, position, marker & 0x0F)
        items, position = _read_all(data, text, position + n * ref_size, n, ref_size, hashable)
        return (tuple(items) if hashable else items), position
    if high == 0x5:
        n, start = _length(data, position, marker & 0x0F)
        return text[start:start + n], start + n
    if high == 0x1:
        end = position + 1 + (1 << (marker & 0x0F))
        return int.from_bytes(data[position + 1:end], "big", signed=(marker == 0x13)), end
    if marker == 0x23:
        return _DOUBLE.unpack_from(data, position + 1)[0], position + 9
    if marker == 0x09 or marker == 0x08:
        return marker == 0x09, position + 1
    if high == 0x6:
        n, start = _length(data, position, marker & 0x0F)
        return data[start:start + 2 * n].decode("utf-16-be"), start + 2 * n
    if high == 0x4:
        n, start = _length(data, position, marker & 0x0F)
        return data[start:start + n], start + n
    if marker == 0x33:
        from .values import _datetime
        return _datetime(_DOUBLE.unpack_from(data, position + 1)[0] + _EPOCH_2001), position + 9
    if marker == 0x00:
        return None, position + 1
    raise HandoffError(Status.MALFORMED_DATA,
                       f"unexpected marker 0x{marker:02x} in the library's encoding")


def _read_dictionary(data: bytes, text: str, position: int, ref_size: int,
                     hashable: bool) -> tuple[object, int]:
    n, position = _length(data, position, data[position] & 0x0F)
    keys, position = _read_all(data, text, position + 2 * n * ref_size, n, ref_size, False)
    if n and keys[0] == "$class":  # sorts first of the tagged values' keys
        return _read_tagged(data, text, position, ref_size)
    if hashable:
        raise TypeError("a set holds a dictionary, which has no hashable Python form")
    values, position = _read_all(data, text, position, n, ref_size, False)
    return dict(zip(keys, values)), position


def _read_tagged(data: bytes, text: str, position: int, ref_size: int) -> tuple[object, int]:
    """null, set and URL (docs/PROTOCOL.md §2): the class comes first."""
    class_name, position = _read(data, text, position, ref_size, False)
    if class_name == "NSNull":
        return None, position
    if class_name == "NSSet":
        members, position = _read(data, text, position, ref_size, True)
        return frozenset(members), position
    if class_name == "NSURL":
        from .values import URL
        url, position = _read(data, text, position, ref_size, False)
        return str.__new__(URL, url), position
    raise HandoffError(Status.MALFORMED_DATA,
                       f"unknown tagged class {class_name!r} in the library's encoding")
