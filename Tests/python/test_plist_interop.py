# SPDX-License-Identifier: MIT OR Apache-2.0
"""Interoperability of libhandoff's property lists with Python's plistlib.

Standard library only (ctypes + plistlib) plus pytest. The library is the one
named by the HANDOFF_LIBRARY environment variable, else build/lib/libhandoff.so
in the repository this file belongs to.

    HANDOFF_LIBRARY=/path/to/libhandoff.so python3 -m pytest -q Tests/python
"""

import ctypes
import datetime
import inspect
import math
import os
import pathlib
import plistlib

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_LIBRARY = REPO_ROOT / "build" / "lib" / "libhandoff.so"

# handoff.h constants.
HANDOFF_OK = 0
HANDOFF_E_INVALID_ARGUMENT = 1
HANDOFF_E_INVALID_VALUE = 2
HANDOFF_E_TYPE_MISMATCH = 3
HANDOFF_E_NOT_FOUND = 4
HANDOFF_E_MALFORMED_DATA = 5
HANDOFF_E_IO = 6

KIND_NULL, KIND_BOOLEAN, KIND_INTEGER, KIND_REAL, KIND_STRING = 0, 1, 2, 3, 4
KIND_DATA, KIND_DATE, KIND_URL, KIND_ARRAY, KIND_DICTIONARY, KIND_SET = 5, 6, 7, 8, 9, 10

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)

# plistlib gained aware_datetime= in Python 3.13; before that it reads and
# writes naive datetimes that mean UTC.
LOADS_HAS_AWARE = "aware_datetime" in inspect.signature(plistlib.loads).parameters


# --------------------------------------------------------------------------
# Loading the library
# --------------------------------------------------------------------------

def _library_path():
    return pathlib.Path(os.environ.get("HANDOFF_LIBRARY") or DEFAULT_LIBRARY)


c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_size_t = ctypes.c_size_t
c_int64 = ctypes.c_int64
c_double = ctypes.c_double
c_uint8_p = ctypes.POINTER(ctypes.c_uint8)

_SIGNATURES = {
    # name: (restype, argtypes)
    "handoff_last_error_code": (c_int, []),
    "handoff_last_error_message": (c_char_p, []),
    "handoff_free": (None, [c_void_p]),
    "handoff_value_new_null": (c_void_p, []),
    "handoff_value_new_boolean": (c_void_p, [c_int]),
    "handoff_value_new_integer": (c_void_p, [c_int64]),
    "handoff_value_new_real": (c_void_p, [c_double]),
    "handoff_value_new_string": (c_void_p, [c_char_p]),
    "handoff_value_new_data": (c_void_p, [c_char_p, c_size_t]),
    "handoff_value_new_date": (c_void_p, [c_double]),
    "handoff_value_new_url": (c_void_p, [c_char_p]),
    "handoff_value_new_array": (c_void_p, []),
    "handoff_value_new_dictionary": (c_void_p, []),
    "handoff_value_new_set": (c_void_p, []),
    "handoff_value_free": (None, [c_void_p]),
    "handoff_value_get_kind": (c_int, [c_void_p]),
    "handoff_value_get_boolean": (c_int, [c_void_p, ctypes.POINTER(c_int)]),
    "handoff_value_get_integer": (c_int, [c_void_p, ctypes.POINTER(c_int64)]),
    "handoff_value_get_real": (c_int, [c_void_p, ctypes.POINTER(c_double)]),
    "handoff_value_get_date": (c_int, [c_void_p, ctypes.POINTER(c_double)]),
    "handoff_value_get_string": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
    "handoff_value_get_data": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
    "handoff_value_get_url": (c_char_p, [c_void_p]),
    "handoff_value_count": (c_size_t, [c_void_p]),
    "handoff_value_array_append": (c_int, [c_void_p, c_void_p]),
    "handoff_value_dictionary_set": (c_int, [c_void_p, c_char_p, c_void_p]),
    "handoff_value_set_add": (c_int, [c_void_p, c_void_p]),
    "handoff_value_array_get": (c_void_p, [c_void_p, c_size_t]),
    "handoff_value_dictionary_get": (c_void_p, [c_void_p, c_char_p]),
    "handoff_value_dictionary_key_at": (c_char_p, [c_void_p, c_size_t]),
    "handoff_value_dictionary_value_at": (c_void_p, [c_void_p, c_size_t]),
    "handoff_value_set_member_at": (c_void_p, [c_void_p, c_size_t]),
    "handoff_value_encode": (c_int, [c_void_p, ctypes.POINTER(c_uint8_p), ctypes.POINTER(c_size_t)]),
    "handoff_value_decode": (c_void_p, [c_char_p, c_size_t]),
    "handoff_activity_new": (c_void_p, [c_char_p]),
    "handoff_activity_free": (None, [c_void_p]),
    "handoff_activity_get_type": (c_char_p, [c_void_p]),
    "handoff_activity_get_id": (c_char_p, [c_void_p]),
    "handoff_activity_set_title": (c_int, [c_void_p, c_char_p]),
    "handoff_activity_set_user_info": (c_int, [c_void_p, c_void_p]),
    "handoff_activity_encode": (c_int, [c_void_p, ctypes.POINTER(c_uint8_p), ctypes.POINTER(c_size_t)]),
    "handoff_activity_decode": (c_void_p, [c_char_p, c_size_t]),
    "handoff_activity_get_title": (c_char_p, [c_void_p]),
    "handoff_activity_copy_user_info": (c_void_p, [c_void_p]),
    "handoff_manifest_load": (c_void_p, [c_char_p]),
    "handoff_manifest_load_data": (c_void_p, [c_char_p, c_size_t]),
    "handoff_manifest_free": (None, [c_void_p]),
    "handoff_manifest_get_bundle_identifier": (c_char_p, [c_void_p]),
    "handoff_manifest_get_team_identifier": (c_char_p, [c_void_p]),
    "handoff_manifest_activity_type_count": (c_size_t, [c_void_p]),
    "handoff_manifest_activity_type_at": (c_char_p, [c_void_p, c_size_t]),
    "handoff_manifest_warning_count": (c_size_t, [c_void_p]),
    "handoff_manifest_warning_at": (c_char_p, [c_void_p, c_size_t]),
    "handoff_manifest_declares": (c_int, [c_void_p, c_char_p]),
}


@pytest.fixture(scope="session")
def lib():
    path = _library_path()
    if not path.exists():
        pytest.fail(f"libhandoff not found at {path}; build it or set HANDOFF_LIBRARY")
    library = ctypes.CDLL(str(path))
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    return library


# --------------------------------------------------------------------------
# Helpers: Python <-> handoff_value
# --------------------------------------------------------------------------

class URL(str):
    """A URL value (a str subclass so it compares with plain strings)."""


class SetValue:
    """A set value: members compared as a multiset, order ignored."""

    def __init__(self, members):
        self.members = list(members)

    def __eq__(self, other):
        if not isinstance(other, SetValue) or len(self.members) != len(other.members):
            return False
        rest = list(other.members)
        for m in self.members:
            for i, o in enumerate(rest):
                if _same(m, o):
                    del rest[i]
                    break
            else:
                return False
        return True

    def __repr__(self):
        return f"SetValue({self.members!r})"


def _same(a, b):
    """Equality that tells bool from int and int from float, like the library."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def as_utc(value):
    """A datetime from plistlib as an aware UTC datetime."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def plist_loads(data):
    if LOADS_HAS_AWARE:
        return plistlib.loads(data, aware_datetime=True)
    return plistlib.loads(data)


def _naive_utc(obj):
    """Aware datetimes made naive UTC, which every plistlib writes as UTC."""
    if isinstance(obj, datetime.datetime):
        return obj.astimezone(UTC).replace(tzinfo=None) if obj.tzinfo else obj
    if isinstance(obj, dict):
        return {k: _naive_utc(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_naive_utc(v) for v in obj]
    return obj


def plist_dumps_binary(obj):
    return plistlib.dumps(_naive_utc(obj), fmt=plistlib.FMT_BINARY, sort_keys=True)


def last_error(lib):
    message = lib.handoff_last_error_message()
    return lib.handoff_last_error_code(), (message or b"").decode("utf-8", "replace")


def check(lib, status):
    assert status == HANDOFF_OK, last_error(lib)


def new_value(lib, obj):
    """An owned handoff_value made from a Python object."""
    if obj is None:
        v = lib.handoff_value_new_null()
    elif isinstance(obj, bool):
        v = lib.handoff_value_new_boolean(1 if obj else 0)
    elif isinstance(obj, int):
        v = lib.handoff_value_new_integer(obj)
    elif isinstance(obj, float):
        v = lib.handoff_value_new_real(obj)
    elif isinstance(obj, URL):
        v = lib.handoff_value_new_url(str(obj).encode())
    elif isinstance(obj, str):
        v = lib.handoff_value_new_string(obj.encode())
    elif isinstance(obj, bytes):
        v = lib.handoff_value_new_data(obj, len(obj))
    elif isinstance(obj, datetime.datetime):
        v = lib.handoff_value_new_date(obj.timestamp())
    elif isinstance(obj, list):
        v = lib.handoff_value_new_array()
        for item in obj:
            child = new_value(lib, item)
            try:
                check(lib, lib.handoff_value_array_append(v, child))
            finally:
                lib.handoff_value_free(child)
    elif isinstance(obj, SetValue):
        v = lib.handoff_value_new_set()
        for item in obj.members:
            child = new_value(lib, item)
            try:
                check(lib, lib.handoff_value_set_add(v, child))
            finally:
                lib.handoff_value_free(child)
    elif isinstance(obj, dict):
        v = lib.handoff_value_new_dictionary()
        for key, item in obj.items():
            child = new_value(lib, item)
            try:
                check(lib, lib.handoff_value_dictionary_set(v, key.encode(), child))
            finally:
                lib.handoff_value_free(child)
    else:
        raise TypeError(type(obj))
    assert v, last_error(lib)
    return v


def to_python(lib, v):
    """A borrowed or owned handoff_value read back through the C getters."""
    assert v
    kind = lib.handoff_value_get_kind(v)
    if kind == KIND_NULL:
        return None
    if kind == KIND_BOOLEAN:
        out = c_int(-1)
        check(lib, lib.handoff_value_get_boolean(v, ctypes.byref(out)))
        assert out.value in (0, 1)
        return bool(out.value)
    if kind == KIND_INTEGER:
        out = c_int64()
        check(lib, lib.handoff_value_get_integer(v, ctypes.byref(out)))
        return out.value
    if kind == KIND_REAL:
        out = c_double()
        check(lib, lib.handoff_value_get_real(v, ctypes.byref(out)))
        return out.value
    if kind == KIND_STRING:
        length = c_size_t()
        p = lib.handoff_value_get_string(v, ctypes.byref(length))
        assert p, last_error(lib)
        raw = ctypes.string_at(p, length.value + 1)
        assert raw[-1:] == b"\0", "string is not NUL-terminated"
        return raw[:-1].decode("utf-8")
    if kind == KIND_DATA:
        length = c_size_t()
        p = lib.handoff_value_get_data(v, ctypes.byref(length))
        assert p, "data pointer is NULL"
        return ctypes.string_at(p, length.value)
    if kind == KIND_DATE:
        out = c_double()
        check(lib, lib.handoff_value_get_date(v, ctypes.byref(out)))
        return EPOCH + datetime.timedelta(seconds=out.value)
    if kind == KIND_URL:
        p = lib.handoff_value_get_url(v)
        assert p is not None, last_error(lib)
        return URL(p.decode("utf-8"))
    if kind == KIND_ARRAY:
        return [to_python(lib, lib.handoff_value_array_get(v, i))
                for i in range(lib.handoff_value_count(v))]
    if kind == KIND_DICTIONARY:
        out = {}
        for i in range(lib.handoff_value_count(v)):
            key = lib.handoff_value_dictionary_key_at(v, i)
            assert key is not None, last_error(lib)
            out[key.decode("utf-8")] = to_python(lib, lib.handoff_value_dictionary_value_at(v, i))
        return out
    if kind == KIND_SET:
        return SetValue(to_python(lib, lib.handoff_value_set_member_at(v, i))
                        for i in range(lib.handoff_value_count(v)))
    raise AssertionError(f"unknown kind {kind}")


def encode_value(lib, v):
    buffer = c_uint8_p()
    length = c_size_t()
    check(lib, lib.handoff_value_encode(v, ctypes.byref(buffer), ctypes.byref(length)))
    try:
        return ctypes.string_at(buffer, length.value)
    finally:
        lib.handoff_free(buffer)


def decode_value(lib, data):
    """The decoded value as Python, or raises DecodeError(code)."""
    v = lib.handoff_value_decode(data, len(data))
    if not v:
        raise DecodeError(*last_error(lib))
    try:
        return to_python(lib, v)
    finally:
        lib.handoff_value_free(v)


class DecodeError(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _unix(dt):
    return dt.timestamp()


# --------------------------------------------------------------------------
# (a) C encodes, plistlib reads
# --------------------------------------------------------------------------

SAMPLE_DATE = datetime.datetime(2023, 11, 14, 22, 13, 20, 500000, tzinfo=UTC)


def test_c_encoding_read_by_plistlib(lib):
    source = {
        "bool.true": True,
        "bool.false": False,
        "int": 42,
        "int.negative": -7,
        "int.min": INT64_MIN,
        "int.max": INT64_MAX,
        "real": 2.5,
        "real.inf": float("inf"),
        "string": "caf\u00e9 \u2615 \U0001F600",
        "string.empty": "",
        "data": b"\x00\x01\x00\xff",
        "data.empty": b"",
        "date": SAMPLE_DATE,
        "array": [1, "two", 3.0, [False]],
        "nested": {"inner": {"leaf": "deep"}, "n": 1},
        "null": None,
        "set": SetValue([1, "two"]),
        "url": URL("https://example.com/path?q=1"),
    }
    v = new_value(lib, source)
    try:
        data = encode_value(lib, v)
    finally:
        lib.handoff_value_free(v)
    assert data.startswith(b"bplist00")

    loaded = plist_loads(data)
    assert isinstance(loaded, dict)
    assert set(loaded) == set(source)
    for key in ("bool.true", "bool.false", "int", "int.negative", "int.min", "int.max",
                "real", "real.inf", "string", "string.empty", "data", "data.empty",
                "array", "nested"):
        assert _same(loaded[key], source[key]), (key, loaded[key])
    assert isinstance(loaded["date"], datetime.datetime)
    assert abs((as_utc(loaded["date"]) - SAMPLE_DATE).total_seconds()) < 1e-3

    assert loaded["null"] == {"$class": "NSNull"}
    assert loaded["url"] == {"$class": "NSURL", "NS.relative": "https://example.com/path?q=1"}
    tagged_set = loaded["set"]
    assert set(tagged_set) == {"$class", "NS.objects"}
    assert tagged_set["$class"] == "NSSet"
    assert isinstance(tagged_set["NS.objects"], list)
    assert SetValue(tagged_set["NS.objects"]) == SetValue([1, "two"])


def test_c_encoding_of_top_level_tagged_values(lib):
    for obj, expected in [
        (None, {"$class": "NSNull"}),
        (URL("x-app://open/1"), {"$class": "NSURL", "NS.relative": "x-app://open/1"}),
    ]:
        v = new_value(lib, obj)
        try:
            assert plist_loads(encode_value(lib, v)) == expected
        finally:
            lib.handoff_value_free(v)
    v = new_value(lib, SetValue([]))
    try:
        assert plist_loads(encode_value(lib, v)) == {"$class": "NSSet", "NS.objects": []}
    finally:
        lib.handoff_value_free(v)


# --------------------------------------------------------------------------
# (b) plistlib encodes, C reads
# --------------------------------------------------------------------------

def test_plistlib_encoding_read_by_c(lib):
    source = {
        "int": 123456789,
        "int.negative": -5,
        "int.min": INT64_MIN,
        "int.max": INT64_MAX,
        "float": 3.25,
        "float.negative": -1e-300,
        "true": True,
        "false": False,
        "str": "h\u00e9llo w\u00f6rld \u2713 \U0001F680",
        "str.ascii": "plain",
        "str.nul": "a\x00b",
        "bytes": bytes(range(256)),
        "bytes.empty": b"",
        "date": SAMPLE_DATE,
        "list": [1, [2, [3, "x"]], {"k": "v"}],
        "dict": {"a": {"b": {"c": 1.5}}},
        "null": {"$class": "NSNull"},
        "set": {"$class": "NSSet", "NS.objects": [1, "two", 1.5]},
        "url": {"$class": "NSURL", "NS.relative": "https://example.com/p?q=\u00e9"},
    }
    data = plist_dumps_binary(source)
    v = lib.handoff_value_decode(data, len(data))
    assert v, last_error(lib)
    try:
        assert lib.handoff_value_get_kind(v) == KIND_DICTIONARY
        assert lib.handoff_value_count(v) == len(source)

        def get(key):
            child = lib.handoff_value_dictionary_get(v, key.encode())
            assert child, (key, last_error(lib))
            return child

        for key in ("int", "int.negative", "int.min", "int.max"):
            assert lib.handoff_value_get_kind(get(key)) == KIND_INTEGER
            assert to_python(lib, get(key)) == source[key]
        for key in ("float", "float.negative"):
            assert lib.handoff_value_get_kind(get(key)) == KIND_REAL
            assert to_python(lib, get(key)) == source[key]
        assert lib.handoff_value_get_kind(get("true")) == KIND_BOOLEAN
        assert to_python(lib, get("true")) is True
        assert to_python(lib, get("false")) is False
        for key in ("str", "str.ascii", "str.nul"):
            assert lib.handoff_value_get_kind(get(key)) == KIND_STRING
            assert to_python(lib, get(key)) == source[key]
        length = c_size_t()
        lib.handoff_value_get_string(get("str.nul"), ctypes.byref(length))
        assert length.value == 3  # a decoded string may hold NUL bytes
        assert to_python(lib, get("bytes")) == source["bytes"]
        assert lib.handoff_value_get_kind(get("bytes.empty")) == KIND_DATA
        assert to_python(lib, get("bytes.empty")) == b""
        assert lib.handoff_value_get_kind(get("date")) == KIND_DATE
        seconds = c_double()
        check(lib, lib.handoff_value_get_date(get("date"), ctypes.byref(seconds)))
        assert abs(seconds.value - _unix(SAMPLE_DATE)) < 1e-3
        assert _same(to_python(lib, get("list")), source["list"])
        assert _same(to_python(lib, get("dict")), source["dict"])

        assert lib.handoff_value_get_kind(get("null")) == KIND_NULL
        assert lib.handoff_value_get_kind(get("set")) == KIND_SET
        assert to_python(lib, get("set")) == SetValue([1, "two", 1.5])
        assert lib.handoff_value_get_kind(get("url")) == KIND_URL
        url = lib.handoff_value_get_url(get("url")).decode()
        assert url in ("https://example.com/p?q=\u00e9", "https://example.com/p?q=%C3%A9")
    finally:
        lib.handoff_value_free(v)


def test_plistlib_round_trip_through_c(lib):
    """plistlib -> C decode -> C encode -> plistlib gives the same data."""
    source = {
        "n": [1, 2, {"deep": [True, False, 0]}],
        "s": "\u00fcber",
        "b": b"\x00\xff",
        "d": SAMPLE_DATE,
        "u": {"$class": "NSURL", "NS.relative": "https://example.org/"},
        "z": {"$class": "NSNull"},
    }
    data = plist_dumps_binary(source)
    v = lib.handoff_value_decode(data, len(data))
    assert v, last_error(lib)
    try:
        again = plist_loads(encode_value(lib, v))
    finally:
        lib.handoff_value_free(v)
    again["d"] = as_utc(again["d"])
    assert abs((again.pop("d") - SAMPLE_DATE).total_seconds()) < 1e-3
    expected = dict(source)
    del expected["d"]
    assert _same(again, expected)


def test_plistlib_binary_null_token_is_accepted_or_refused_cleanly(lib):
    # plistlib cannot write the binary null token (0x00); hand-make one:
    # an array holding one null object.
    data = (b"bplist00" + b"\xa1\x01" + b"\x00" + bytes([8, 10])
            + bytes(6) + bytes([1, 1]) + (2).to_bytes(8, "big") + (0).to_bytes(8, "big")
            + (11).to_bytes(8, "big"))
    try:
        value = decode_value(lib, data)
    except DecodeError as error:
        assert error.code == HANDOFF_E_MALFORMED_DATA
    else:
        assert value == [None]


def test_canonically_equivalent_keys_are_not_merged_silently(lib):
    # Two keys plistlib keeps apart: precomposed and decomposed e-acute.
    data = plist_dumps_binary({"\u00e9": 1, "e\u0301": 2})
    try:
        value = decode_value(lib, data)
    except DecodeError as error:
        assert error.code == HANDOFF_E_MALFORMED_DATA
    else:
        assert value == {"\u00e9": 1, "e\u0301": 2}


@pytest.mark.parametrize("bad", [
    {"$class": "NSBogus"},
    {"$class": 5},
    {"$class": "NSURL", "NS.relative": "no scheme"},
    {"$class": "NSURL", "NS.relative": 7},
    {"$class": "NSURL"},
    {"$class": "NSSet", "NS.objects": "not a list"},
    {"$class": "NSSet"},
    {"$class": "NSNull", "extra": 1},
    {"outer": {"$class": "NSBogus"}},
    {"k": {"$class": "NSURL", "NS.relative": ""}},
], ids=lambda bad: repr(bad)[:40])
def test_bad_tagged_objects_are_malformed(lib, bad):
    data = plist_dumps_binary(bad)
    with pytest.raises(DecodeError) as info:
        decode_value(lib, data)
    assert info.value.code == HANDOFF_E_MALFORMED_DATA
    assert info.value.message


# --------------------------------------------------------------------------
# (c) an activity payload read by plistlib
# --------------------------------------------------------------------------

def _encode_activity(lib, activity_type, title, user_info):
    """(payload bytes, activity id) of a new activity."""
    activity = lib.handoff_activity_new(activity_type.encode())
    assert activity, last_error(lib)
    try:
        check(lib, lib.handoff_activity_set_title(activity, title.encode()))
        info = new_value(lib, user_info)
        try:
            check(lib, lib.handoff_activity_set_user_info(activity, info))
        finally:
            lib.handoff_value_free(info)
        buffer = c_uint8_p()
        length = c_size_t()
        check(lib, lib.handoff_activity_encode(activity, ctypes.byref(buffer), ctypes.byref(length)))
        try:
            data = ctypes.string_at(buffer, length.value)
        finally:
            lib.handoff_free(buffer)
        return data, lib.handoff_activity_get_id(activity).decode()
    finally:
        lib.handoff_activity_free(activity)


def test_activity_payload_read_by_plistlib(lib):
    data, activity_id = _encode_activity(
        lib, "com.example.interop.edit", "R\u00e9sum\u00e9 draft",
        {"page": 3, "doc": "abc", "where": URL("https://example.com/d")})

    assert data.startswith(b"bplist00")
    payload = plist_loads(data)
    assert isinstance(payload, dict)
    for key in ("version", "activityID", "activityType", "userInfo", "title"):
        assert key in payload, (key, sorted(payload))
    assert isinstance(payload["version"], int) and not isinstance(payload["version"], bool)
    assert payload["version"] >= 1
    assert payload["activityID"] == activity_id
    assert payload["activityType"] == "com.example.interop.edit"
    assert payload["title"] == "R\u00e9sum\u00e9 draft"
    assert payload["userInfo"] == {
        "page": 3,
        "doc": "abc",
        "where": {"$class": "NSURL", "NS.relative": "https://example.com/d"},
    }


def test_activity_payload_rewritten_by_plistlib_decodes(lib):
    data, activity_id = _encode_activity(lib, "com.example.interop.edit", "old", {"n": 1})
    payload = plist_loads(data)
    payload["title"] = "new \u2713"
    payload["userInfo"] = {"n": 2, "s": "x"}
    rewritten = plist_dumps_binary(payload)
    activity = lib.handoff_activity_decode(rewritten, len(rewritten))
    assert activity, last_error(lib)
    try:
        assert lib.handoff_activity_get_id(activity).decode() == activity_id
        assert lib.handoff_activity_get_title(activity).decode() == "new \u2713"
        info = lib.handoff_activity_copy_user_info(activity)
        assert info, last_error(lib)
        try:
            assert to_python(lib, info) == {"n": 2, "s": "x"}
        finally:
            lib.handoff_value_free(info)
    finally:
        lib.handoff_activity_free(activity)


def test_activity_payload_with_oversized_user_info_is_refused(lib):
    data, _ = _encode_activity(lib, "com.example.interop.edit", "t", {"n": 1})
    payload = plist_loads(data)
    payload["userInfo"] = {"blob": bytes(4000)}
    oversized = plist_dumps_binary(payload)
    assert not lib.handoff_activity_decode(oversized, len(oversized))
    assert last_error(lib)[0] == 4611  # HANDOFF_E_USER_INFO_TOO_LARGE


# --------------------------------------------------------------------------
# (d) integers beyond int64 are refused
# --------------------------------------------------------------------------

@pytest.mark.parametrize("big", [2**64 - 1, 2**63])
def test_integer_beyond_int64_is_malformed(lib, big):
    for document in (big, {"big": big}, [1, big]):
        data = plistlib.dumps(document, fmt=plistlib.FMT_BINARY)
        with pytest.raises(DecodeError) as info:
            decode_value(lib, data)
        assert info.value.code == HANDOFF_E_MALFORMED_DATA == 5


def test_int64_extremes_written_by_plistlib_are_accepted(lib):
    for n in (INT64_MIN, INT64_MAX, -1, 0, 255, 2**32):
        data = plistlib.dumps({"n": n}, fmt=plistlib.FMT_BINARY)
        assert decode_value(lib, data) == {"n": n}


# --------------------------------------------------------------------------
# (e) Info.plist written by plistlib
# --------------------------------------------------------------------------

def _load_manifest(lib, path):
    manifest = lib.handoff_manifest_load(str(path).encode())
    assert manifest, last_error(lib)
    try:
        count = lib.handoff_manifest_activity_type_count(manifest)
        return {
            "bundle": lib.handoff_manifest_get_bundle_identifier(manifest).decode(),
            "team": lib.handoff_manifest_get_team_identifier(manifest).decode(),
            "types": [lib.handoff_manifest_activity_type_at(manifest, i).decode()
                      for i in range(count)],
            "declares_edit": lib.handoff_manifest_declares(manifest, b"com.example.py.edit"),
            "declares_other": lib.handoff_manifest_declares(manifest, b"com.example.py.other"),
            "warnings": [lib.handoff_manifest_warning_at(manifest, i).decode()
                         for i in range(lib.handoff_manifest_warning_count(manifest))],
        }
    finally:
        lib.handoff_manifest_free(manifest)


INFO_PLIST = {
    "CFBundleIdentifier": "com.example.py",
    "CFBundleName": "Py App",
    "CFBundleVersion": "1.0",
    "HandoffTeamIdentifier": "PYTEAM1234",
    "NSUserActivityTypes": ["com.example.py.edit", "com.example.py.view"],
    "LSRequiresIPhoneOS": False,
}


@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY], ids=["xml", "binary"])
def test_info_plist_written_by_plistlib_loads(lib, tmp_path, fmt):
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps(INFO_PLIST, fmt=fmt))
    loaded = _load_manifest(lib, path)
    assert loaded["bundle"] == "com.example.py"
    assert loaded["team"] == "PYTEAM1234"
    assert loaded["types"] == ["com.example.py.edit", "com.example.py.view"]
    assert loaded["declares_edit"] == 1
    assert loaded["declares_other"] == 0


def test_info_plist_with_app_identifier_prefix(lib, tmp_path):
    plist = {k: v for k, v in INFO_PLIST.items() if k != "HandoffTeamIdentifier"}
    plist["AppIdentifierPrefix"] = "ABCDE12345."
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps(plist, fmt=plistlib.FMT_XML))
    assert _load_manifest(lib, path)["team"] == "ABCDE12345"


def test_info_plist_errors(lib, tmp_path):
    no_team = {k: v for k, v in INFO_PLIST.items() if k != "HandoffTeamIdentifier"}
    path = tmp_path / "NoTeam.plist"
    path.write_bytes(plistlib.dumps(no_team, fmt=plistlib.FMT_XML))
    assert not lib.handoff_manifest_load(str(path).encode())
    assert last_error(lib)[0] == HANDOFF_E_MALFORMED_DATA

    # An entry that cannot be a type is skipped; the manifest still loads.
    bad_types = dict(INFO_PLIST, NSUserActivityTypes=["com.example.py.edit", 5, ""])
    path = tmp_path / "BadTypes.plist"
    path.write_bytes(plistlib.dumps(bad_types, fmt=plistlib.FMT_BINARY))
    assert _load_manifest(lib, path)["types"] == ["com.example.py.edit"]

    not_array = dict(INFO_PLIST, NSUserActivityTypes="com.example.py.edit")
    path = tmp_path / "NotArray.plist"
    path.write_bytes(plistlib.dumps(not_array, fmt=plistlib.FMT_BINARY))
    # NSUserActivityTypes not an array: loaded, with no types and a
    # warning that says why (as a bad entry is skipped, README).
    loaded = _load_manifest(lib, path)
    assert loaded["types"] == [] and loaded["bundle"] == "com.example.py", loaded
    assert any("NSUserActivityTypes is the string" in w and str(path) in w for w in loaded["warnings"]), loaded

    assert not lib.handoff_manifest_load(str(tmp_path / "missing.plist").encode())
    assert last_error(lib)[0] == HANDOFF_E_IO


# --------------------------------------------------------------------------
# Real apps' Info.plists, as plistlib writes them in both forms
# --------------------------------------------------------------------------

SOUP_CHEF = {
    "CFBundleIdentifier": "com.example.soupchef",
    "CFBundleName": "Soup Chef",
    "CFBundleVersion": "214",
    "AppIdentifierPrefix": "A1B2C3D4E5.",
    "LSRequiresIPhoneOS": True,
    "MinimumOSVersion": 16.4,
    "BuildDate": datetime.datetime(2024, 5, 1, 12, 0, 0),
    "IconHash": b"\x00\x01\xfe\xff",
    # Apple's docs list intent class names here; apps use short names too.
    "NSUserActivityTypes": ["OrderSoupIntent", "INSendMessageIntent", "ReadArticle",
                            "com.example.soupchef.view-menu"],
    "UIApplicationSceneManifest": {
        "UIApplicationSupportsMultipleScenes": False,
        "UISceneConfigurations": {"UIWindowSceneSessionRoleApplication": [
            {"UISceneConfigurationName": "Default Configuration",
             "UISceneDelegateClassName": "SoupChef.SceneDelegate"}]},
    },
    "UIDeviceFamily": [1, 2],
}


@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY], ids=["xml", "binary"])
def test_intent_app_info_plist_loads(lib, tmp_path, fmt):
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps(SOUP_CHEF, fmt=fmt))
    manifest = lib.handoff_manifest_load(str(path).encode())
    assert manifest, last_error(lib)
    try:
        count = lib.handoff_manifest_activity_type_count(manifest)
        types = [lib.handoff_manifest_activity_type_at(manifest, i).decode() for i in range(count)]
        assert types == SOUP_CHEF["NSUserActivityTypes"]
        assert lib.handoff_manifest_get_team_identifier(manifest).decode() == "A1B2C3D4E5"
        assert lib.handoff_manifest_declares(manifest, b"INSendMessageIntent") == 1
        assert lib.handoff_manifest_declares(manifest, b"insendmessageintent") == 0
    finally:
        lib.handoff_manifest_free(manifest)


def test_source_info_plist_is_named_as_such(lib, tmp_path):
    source = dict(SOUP_CHEF, CFBundleIdentifier="$(PRODUCT_BUNDLE_IDENTIFIER)",
                  AppIdentifierPrefix="$(AppIdentifierPrefix)")
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps(source, fmt=plistlib.FMT_XML))
    assert not lib.handoff_manifest_load(str(path).encode())
    code, message = last_error(lib)
    assert code == HANDOFF_E_MALFORMED_DATA
    assert "unexpanded Xcode build variable" in message and "source Info.plist" in message, message
    assert "HandoffTeamIdentifier" in message


# 215 bytes: an activity type written as a UTF-16 string of 52 code units
# (104 bytes) that runs past the end of the objects into the offset table.
# FoundationEssentials' PropertyListDecoder trapped on it (SIGILL), killing
# the host process.
TRAP_INFO_PLIST = bytes.fromhex(
    "62706c6973743030d30102030405065f1012434642756e646c654964656e7469666965725f1015"
    "48616e646f66665465616d4964656e7469666965725f10134e5355736572416374697669747954"
    "797065735f1010636f6d2e6578616d706c652e747261705a41314232433344344535a1076f1034"
    "0063006f006d002e006500780061006d0070006c0065002e00f600660066006e0065006e007900"
    "79007900790079007900790079007900790079080f243c52657072000000000000010100000000"
    "00000008000000000000000000000000000000af")


def test_the_215_byte_trap_is_malformed(lib):
    assert len(TRAP_INFO_PLIST) == 215
    with pytest.raises(Exception):
        plistlib.loads(TRAP_INFO_PLIST)  # plistlib refuses it too
    assert not lib.handoff_manifest_load_data(TRAP_INFO_PLIST, len(TRAP_INFO_PLIST))
    code, message = last_error(lib)
    assert code == HANDOFF_E_MALFORMED_DATA
    assert "offset" in message and "Expected to decode" not in message, message


@pytest.mark.parametrize("document", [
    b'<?xml version="1.0"?><plist version="1.0"><dict/></plist>junk',
    b'<plist version="1.0><dict/></plist>',
    b'<!DOCTYPE plist [<!ENTITY e "x">]><plist><string>&e;</string></plist>',
])
def test_xml_that_plistlib_refuses_is_malformed(lib, document):
    with pytest.raises(Exception):
        plistlib.loads(document)
    assert not lib.handoff_manifest_load_data(document, len(document))
    code, message = last_error(lib)
    assert code == HANDOFF_E_MALFORMED_DATA
    assert "line " in message, message


# --------------------------------------------------------------------------
# The budget is the userInfo's canonical size, whatever the wire shares
# --------------------------------------------------------------------------

def _shared_payload(lib, user_info):
    data, _ = _encode_activity(lib, "com.example.interop.edit", "t", {"n": 1})
    payload = plist_loads(data)
    payload["userInfo"] = user_info
    return plist_dumps_binary(payload)  # plistlib shares equal scalars


def test_budget_counts_the_canonical_user_info_not_the_wire(lib):
    # 100 copies of one 60-byte string: plistlib writes it once.
    small_on_wire = {"items": ["x" * 60] * 100}
    payload = _shared_payload(lib, small_on_wire)
    assert len(payload) < 1500
    assert not lib.handoff_activity_decode(payload, len(payload))
    code, message = last_error(lib)
    assert code == 4611, message
    # 40 copies fit: canonically 40 * (62 + 1 + 1) + ... < 3072.
    fits = _shared_payload(lib, {"items": ["x" * 60] * 40})
    activity = lib.handoff_activity_decode(fits, len(fits))
    assert activity, last_error(lib)
    lib.handoff_activity_free(activity)


def test_shared_reference_bomb_is_refused_with_4611(lib):
    # userInfo {"a": outer}; outer = 1000 references to middle; middle =
    # 1000 references to one 4 KB string: 4 GB once expanded.
    def be(value, size):
        return value.to_bytes(size, "big")

    def marker(high, count):
        return bytes([high | count]) if count < 15 else bytes([high | 0x0F, 0x11]) + be(count, 2)

    def ascii(text):
        return marker(0x50, len(text)) + text.encode()

    keys = ["activityID", "activityType", "userInfo", "version"]
    objects = [None] + [ascii(k) for k in keys]
    objects += [ascii("0F8FAD5B-D9CB-469F-A165-70867728950E"), ascii("com.example.bomb"), None, bytes([0x10, 1])]
    user_info = 7
    objects[user_info] = marker(0xD0, 1) + be(9, 2) + be(10, 2)
    objects += [ascii("a"), marker(0xA0, 1000) + be(11, 2) * 1000,
                marker(0xA0, 1000) + be(12, 2) * 1000, ascii("x" * 4096)]
    objects[0] = marker(0xD0, 4) + b"".join(be(i, 2) for i in (1, 2, 3, 4)) + b"".join(be(i, 2) for i in (5, 6, 7, 8))
    body = b"bplist00"
    offsets = []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    body += b"".join(be(o, 4) for o in offsets)
    body += bytes(6) + bytes([4, 2]) + be(len(objects), 8) + be(0, 8) + be(table, 8)
    assert len(body) < 9000
    assert not lib.handoff_activity_decode(body, len(body))
    assert last_error(lib)[0] == 4611
