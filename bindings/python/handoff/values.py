# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo values: Python natives to libhandoff values and back.

==========================  ===========================  ====================
Python (in)                 libhandoff                   Python (out)
==========================  ===========================  ====================
``None``                    null                         ``None``
``bool``                    boolean                      ``bool``
``int`` (64-bit signed)     integer                      ``int``
``float``                   real                         ``float``
``str``                     string                       ``str``
``bytes``, ``bytearray``,   data                         ``bytes``
``memoryview``
``datetime`` (aware)        date                         ``datetime`` in UTC
:class:`URL`                URL                          :class:`URL`
``list``, ``tuple``         array                        ``list`` (``tuple``
                                                         inside a set)
``dict`` (``str`` keys)     dictionary                   ``dict``
``set``, ``frozenset``      set                          ``frozenset``
==========================  ===========================  ====================

Anything else is refused with a TypeError naming where it sits. A naive
``datetime`` is refused too (ValueError): it names no instant. A date from
the library that Python's ``datetime`` cannot hold (before year 1 or after
9999, not finite) raises HandoffError (MALFORMED_DATA), like any other value
the binding cannot take in.
"""

from __future__ import annotations

import ctypes
import datetime
import math
from collections.abc import Mapping

from . import _bplist, _ffi, _json
from .errors import HandoffError, Status

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Dict
    from urllib.parse import SplitResult
    UserInfo = Dict[str, Any]
else:
    UserInfo = dict  # for annotations at run time

__all__ = ["URL", "UserInfo", "encode_value", "decode_value"]

lib = _ffi.lib


_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_ALLOWED = ("None, bool, int, float, str, bytes, datetime, handoff.URL, list, tuple, "
            "dict, set or frozenset")


class URL(str):
    """A URL userInfo value: an absolute URL with a scheme.

    A ``str`` subclass, so it prints and compares as its text; what makes
    it a URL (rather than a string) on the other device is its type. The
    library checks it when it is made: ``URL("not a url")`` raises
    HandoffError.
    """

    __slots__ = ()

    def __new__(cls, text: str) -> "URL":
        value = lib.handoff_value_new_url(_ffi.text_in(text, "URL"))
        lib.handoff_value_free(value)
        return super().__new__(cls, text)

    def parts(self) -> SplitResult:
        """The URL's parts (urllib.parse.urlsplit)."""
        from urllib.parse import urlsplit  # not at import: it costs milliseconds
        return urlsplit(self)

    def __repr__(self) -> str:
        return f"URL({str.__repr__(self)})"


# ------------------------------------------------------------- to C

def _where(path: str) -> str:
    return path or "the value"


def to_value(obj: Any, path: str = "", _seen: frozenset = frozenset()) -> Any:
    """A new handoff_value for `obj`, owned by the caller (free it with
    handoff_value_free). `path` names the spot for error messages."""
    if obj is None:
        return lib.handoff_value_new_null()
    if isinstance(obj, bool):
        return lib.handoff_value_new_boolean(1 if obj else 0)
    if isinstance(obj, int):
        # (not `in range(...)`: for an int subclass that walks the range)
        if not _INT64_MIN <= obj <= _INT64_MAX:
            raise OverflowError(f"{_where(path)}: {obj} does not fit a 64-bit signed integer")
        return lib.handoff_value_new_integer(obj)
    if isinstance(obj, float):
        return lib.handoff_value_new_real(obj)
    if isinstance(obj, URL):
        return lib.handoff_value_new_url(_ffi.text_in(obj, _where(path)))
    if isinstance(obj, str):
        return lib.handoff_value_new_string(_ffi.text_in(obj, _where(path)))
    if isinstance(obj, (bytes, bytearray, memoryview)):
        data = bytes(obj)
        return lib.handoff_value_new_data(data, len(data))
    if isinstance(obj, datetime.datetime):
        if obj.tzinfo is None or obj.utcoffset() is None:
            raise ValueError(f"{_where(path)}: a naive datetime names no instant; give it a "
                             "tzinfo, e.g. datetime.now(timezone.utc)")
        return lib.handoff_value_new_date(obj.timestamp())
    if isinstance(obj, (list, tuple, dict, set, frozenset)):
        if id(obj) in _seen:
            raise ValueError(f"{_where(path)}: the value contains itself")
        return _container(obj, path, _seen | {id(obj)})
    raise TypeError(f"{_where(path)}: {type(obj).__name__} is not a userInfo value; "
                    f"use {_ALLOWED}")


def _container(obj: Any, path: str, seen: frozenset) -> Any:
    if isinstance(obj, dict):
        container = lib.handoff_value_new_dictionary()
    elif isinstance(obj, (set, frozenset)):
        container = lib.handoff_value_new_set()
    else:
        container = lib.handoff_value_new_array()
    try:
        if isinstance(obj, dict):
            for key, item in obj.items():
                if not isinstance(key, str):
                    raise TypeError(f"{_where(path)}: dictionary key {key!r} is a "
                                    f"{type(key).__name__}; userInfo keys are str")
                child_path = f"{path}[{key!r}]"
                _add(lib.handoff_value_dictionary_set, container, child_path, item, seen,
                     _ffi.text_in(key, f"{_where(path)}: key {key!r}"))
        elif isinstance(obj, (set, frozenset)):
            for item in obj:
                _add(lib.handoff_value_set_add, container, f"{path}{{{item!r}}}", item, seen)
        else:
            for index, item in enumerate(obj):
                _add(lib.handoff_value_array_append, container, f"{path}[{index}]", item, seen)
    except BaseException:
        lib.handoff_value_free(container)
        raise
    return container


def _add(add: Any, container: Any, path: str, item: Any, seen: frozenset, *key: bytes) -> None:
    child = to_value(item, path, seen)
    try:
        add(container, *key, child)
    finally:
        lib.handoff_value_free(child)


def new_value(obj: Any, what: str = "") -> Any:
    """to_value, in one call into the library for the common cases: `obj`
    as JSON text when it is JSON-shaped, else written as a binary property
    list, which the library reads (and checks). Anything else goes value by
    value, which raises the errors."""
    value = _json.new_value(obj)
    if value is not None:
        return value
    data = _bplist.write(obj)
    if data is not None:
        try:
            return lib.handoff_value_decode(data, len(data))
        except HandoffError:
            pass  # refused: the slow path says why in its own words
    return to_value(obj, what)


def dictionary_value(mapping: Mapping[str, Any], what: str) -> Any:
    """A new dictionary handoff_value for a userInfo mapping."""
    if type(mapping) is not dict:  # (a dict is read as it is: nothing keeps or changes it)
        if not isinstance(mapping, Mapping):
            raise TypeError(f"{what} must be a dict, not {type(mapping).__name__}")
        mapping = dict(mapping)
    return new_value(mapping, what)


# ------------------------------------------------------------- from C

def from_value(value: Any, hashable: bool = False) -> Any:
    """The Python native for a (borrowed) handoff_value. Inside sets
    (`hashable`), arrays become tuples; a dictionary there has no
    hashable Python form and raises TypeError."""
    kind = lib.handoff_value_get_kind(value)
    if kind == _ffi.VALUE_NULL:
        return None
    if kind == _ffi.VALUE_BOOLEAN:
        out = ctypes.c_int()
        lib.handoff_value_get_boolean(value, ctypes.byref(out))
        return bool(out.value)
    if kind == _ffi.VALUE_INTEGER:
        out64 = ctypes.c_int64()
        lib.handoff_value_get_integer(value, ctypes.byref(out64))
        return out64.value
    if kind == _ffi.VALUE_REAL:
        real = ctypes.c_double()
        lib.handoff_value_get_real(value, ctypes.byref(real))
        return real.value
    if kind == _ffi.VALUE_STRING:
        length = ctypes.c_size_t()
        text = lib.handoff_value_get_string(value, ctypes.byref(length))
        return ctypes.string_at(text, length.value).decode("utf-8")
    if kind == _ffi.VALUE_DATA:
        length = ctypes.c_size_t()
        data = lib.handoff_value_get_data(value, ctypes.byref(length))
        return ctypes.string_at(data, length.value) if length.value else b""
    if kind == _ffi.VALUE_DATE:
        seconds = ctypes.c_double()
        lib.handoff_value_get_date(value, ctypes.byref(seconds))
        return _datetime(seconds.value)
    if kind == _ffi.VALUE_URL:
        return str.__new__(URL, lib.handoff_value_get_url(value).decode("utf-8"))
    count = lib.handoff_value_count(value)
    if kind == _ffi.VALUE_ARRAY:
        items = [from_value(lib.handoff_value_array_get(value, i), hashable) for i in range(count)]
        return tuple(items) if hashable else items
    if kind == _ffi.VALUE_SET:
        return frozenset(from_value(lib.handoff_value_set_member_at(value, i), True)
                         for i in range(count))
    if kind == _ffi.VALUE_DICTIONARY:
        if hashable:
            raise TypeError("a set holds a dictionary, which has no hashable Python form")
        return {lib.handoff_value_dictionary_key_at(value, i).decode("utf-8"):
                from_value(lib.handoff_value_dictionary_value_at(value, i))
                for i in range(count)}
    raise TypeError(f"libhandoff returned a value of unknown kind {kind}")


def _datetime(seconds: float) -> datetime.datetime:
    """An aware UTC datetime; HandoffError (MALFORMED_DATA) when Python's
    datetime cannot hold the date (a plist date is any 64-bit float)."""
    try:
        if not math.isfinite(seconds):
            raise ValueError
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise HandoffError(
            Status.MALFORMED_DATA,
            f"a date {seconds!r} s from 1970 lies outside what Python's datetime can hold "
            "(years 1 to 9999); the sender's date cannot be represented in Python") from None


def take(value: Any, hashable: bool = False) -> Any:
    """from_value for an owned handoff_value, which it then frees: in one
    call into the library, read from its JSON text or, when JSON cannot
    carry it, its binary property list, unless the library cannot encode it
    (nesting too deep for userInfo)."""
    try:
        if not hashable:
            native = _json.read(value)
            if native is not _json._NOT_JSON:
                return native
        data = ctypes.POINTER(ctypes.c_uint8)()
        length = ctypes.c_size_t()
        try:
            lib.handoff_value_encode(value, ctypes.byref(data), ctypes.byref(length))
        except HandoffError:
            return from_value(value, hashable)
        return _bplist.read(_ffi.take_bytes(data, length.value), hashable)
    finally:
        lib.handoff_value_free(value)


# ------------------------------------------------------------- bytes

def encode_value(obj: Any) -> bytes:
    """`obj` as the library's binary property list (``bplist00``), the
    encoding userInfo travels in (null, set and URL as docs/PROTOCOL.md
    tags them)."""
    value = new_value(obj)
    try:
        data = ctypes.POINTER(ctypes.c_uint8)()
        length = ctypes.c_size_t()
        lib.handoff_value_encode(value, ctypes.byref(data), ctypes.byref(length))
        return _ffi.take_bytes(data, length.value)
    finally:
        lib.handoff_value_free(value)


def decode_value(data: bytes) -> Any:
    """The Python native for a binary property list of userInfo types.
    Raises HandoffError (MALFORMED_DATA) for anything else; hostile input
    is safe to pass."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"decode_value takes bytes, not {type(data).__name__}")
    data = bytes(data)
    return take(lib.handoff_value_decode(data, len(data)))
