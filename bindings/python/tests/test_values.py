# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo values both ways: every Python native into the library and
back, with its exact type; the library's bplist readable by plistlib; and
bad input refused with a clear error."""

import datetime
import math
import plistlib
import random

import pytest

import handoff
from handoff import URL, HandoffError, Status, UserActivity, _ffi, decode_value, encode_value
from handoff.values import take

UTC = datetime.timezone.utc

# (value in, value out): the out value must equal, with the same type.
ROUND_TRIPS = [
    ("null", None, None),
    ("true", True, True),
    ("false", False, False),
    ("zero", 0, 0),
    ("int64 max", 2 ** 63 - 1, 2 ** 63 - 1),
    ("int64 min", -(2 ** 63), -(2 ** 63)),
    ("real", 2.5, 2.5),
    ("negative zero", -0.0, -0.0),
    ("infinity", math.inf, math.inf),
    ("string", "circle", "circle"),
    ("unicode", "Kreis ○ 圆 \U0001F7E2", "Kreis ○ 圆 \U0001F7E2"),
    ("empty string", "", ""),
    ("bytes", b"\x00\x01\xfe\xff", b"\x00\x01\xfe\xff"),
    ("empty bytes", b"", b""),
    ("bytearray", bytearray(b"ab"), b"ab"),
    ("memoryview", memoryview(b"cd"), b"cd"),
    ("date", datetime.datetime(2024, 2, 29, 12, 30, 15, 123456, tzinfo=UTC),
     datetime.datetime(2024, 2, 29, 12, 30, 15, 123456, tzinfo=UTC)),
    ("date before 1970", datetime.datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC),
     datetime.datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC)),
    ("url", URL("https://example.com/shapes?id=1#top"), URL("https://example.com/shapes?id=1#top")),
    ("list", [1, "two", 3.0], [1, "two", 3.0]),
    ("tuple", (1, 2), [1, 2]),
    ("empty list", [], []),
    ("dict", {"a": {"b": [None]}}, {"a": {"b": [None]}}),
    ("empty dict", {}, {}),
    ("set", {"x", "y"}, frozenset({"x", "y"})),
    ("frozenset", frozenset({1, 2}), frozenset({1, 2})),
    ("empty set", set(), frozenset()),
    ("set of arrays and sets", {(1, 2), frozenset({3})}, frozenset({(1, 2), frozenset({3})})),
]


def same(a, b):
    """Equal, with the same type all the way down (1 is not True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("name,value,expected", ROUND_TRIPS, ids=[r[0] for r in ROUND_TRIPS])
def test_through_a_user_info(name, value, expected):
    activity = UserActivity("com.example.values.test")
    activity.user_info = {"v": value}
    back = activity.user_info["v"]
    assert same(back, expected), (back, expected)


@pytest.mark.parametrize("name,value,expected", ROUND_TRIPS, ids=[r[0] for r in ROUND_TRIPS])
def test_through_the_binary_encoding(name, value, expected):
    assert same(decode_value(encode_value(value)), expected)


def test_through_an_activity_payload():
    activity = UserActivity("com.example.values.test")
    everything = {name: value for name, value, _ in ROUND_TRIPS}
    activity.user_info = everything
    received = UserActivity.decode(activity.encode()).user_info
    for name, _, expected in ROUND_TRIPS:
        assert same(received[name], expected), name


def test_nan_survives():
    assert math.isnan(decode_value(encode_value(math.nan)))


def test_bool_and_int_stay_apart():
    back = decode_value(encode_value([True, 1, False, 0, 1.0]))
    assert [type(x) for x in back] == [bool, int, bool, int, float]


def test_a_url_comes_back_as_url_and_a_string_as_str():
    back = decode_value(encode_value([URL("https://a.example/"), "https://a.example/"]))
    assert type(back[0]) is URL and type(back[1]) is str
    assert back[0].parts().netloc == "a.example"
    assert repr(back[0]) == "URL('https://a.example/')"


def test_dates_come_back_aware_in_utc():
    local = datetime.timezone(datetime.timedelta(hours=-7))
    when = datetime.datetime(2030, 1, 1, 5, 0, tzinfo=local)
    back = decode_value(encode_value(when))
    assert back == when and back.tzinfo is UTC and back.hour == 12


def test_plain_values_are_a_plist_plistlib_reads():
    value = {"s": "x", "i": 7, "r": 0.5, "b": True, "d": b"\x01", "a": [1, {"k": "v"}]}
    assert plistlib.loads(encode_value(value)) == value
    assert encode_value(value).startswith(b"bplist00")


def test_plistlib_output_decodes():
    data = plistlib.dumps({"shape-type": "circle", "activity-version": 1},
                          fmt=plistlib.FMT_BINARY)
    assert decode_value(data) == {"shape-type": "circle", "activity-version": 1}


def test_canonically_equivalent_keys_are_one_key():
    activity = UserActivity("com.example.values.test")
    activity.user_info = {"\u00e9": 1, "e\u0301": 2}
    assert len(activity.user_info) == 1


def test_strings_with_nul_decode_in_full():
    data = plistlib.dumps("a\x00b", fmt=plistlib.FMT_BINARY)
    assert decode_value(data) == "a\x00b"


def test_a_set_holding_a_dictionary_has_no_python_form():
    lib = _ffi.lib
    container, member = lib.handoff_value_new_set(), lib.handoff_value_new_dictionary()
    lib.handoff_value_set_add(container, member)
    lib.handoff_value_free(member)
    with pytest.raises(TypeError, match="hashable"):
        take(container)


# ---- refused

class Shape:
    pass


@pytest.mark.parametrize("bad,kind", [
    (Shape(), "Shape"), (object(), "object"), (1 + 2j, "complex"),
    (datetime.date(2024, 1, 1), "date"), (b"x".decode, "builtin_function_or_method"),
])
def test_other_types_are_refused_saying_where(bad, kind):
    activity = UserActivity("com.example.values.test")
    activity.user_info = {"kept": 1}
    with pytest.raises(TypeError) as caught:
        activity.user_info = {"shapes": [1, {"inner": bad}]}
    message = str(caught.value)
    assert f"user_info['shapes'][1]['inner']: {kind} is not a userInfo value" in message
    assert "handoff.URL" in message  # and what would do
    assert activity.user_info == {"kept": 1}  # nothing changed


def test_non_str_keys_are_refused():
    with pytest.raises(TypeError, match="dictionary key 1 is a int; userInfo keys are str"):
        encode_value({1: "x"})


def test_user_info_must_be_a_mapping():
    activity = UserActivity("com.example.values.test")
    with pytest.raises(TypeError, match="user_info must be a dict, not list"):
        activity.user_info = [("a", 1)]


def test_integers_beyond_64_bits_overflow():
    with pytest.raises(OverflowError, match="does not fit a 64-bit signed integer"):
        encode_value({"n": 2 ** 63})
    with pytest.raises(OverflowError):
        encode_value(-(2 ** 63) - 1)


def test_naive_datetimes_are_refused():
    with pytest.raises(ValueError, match="naive datetime"):
        encode_value(datetime.datetime(2024, 1, 1))


def test_a_value_that_contains_itself_is_refused():
    loop = [1]
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        encode_value({"loop": loop})
    shared = [1]
    assert decode_value(encode_value([shared, shared])) == [[1], [1]]  # sharing is fine


def test_nul_in_strings_and_keys_is_refused():
    with pytest.raises(ValueError, match="NUL"):
        encode_value("a\x00b")
    with pytest.raises(ValueError, match="NUL"):
        encode_value({"a\x00": 1})


def test_lone_surrogates_are_refused():
    with pytest.raises(ValueError, match="not valid Unicode"):
        encode_value("\udc80")


def test_the_library_refuses_too_deep_nesting_and_reserved_keys():
    deep = 0
    for _ in range(17):
        deep = [deep]
    with pytest.raises(HandoffError) as caught:
        encode_value(deep)
    assert caught.value.code == Status.INVALID_VALUE and "16" in caught.value.message
    with pytest.raises(HandoffError, match=r"\$class"):
        encode_value({"$class": "x"})


def test_urls_are_checked_when_made():
    with pytest.raises(HandoffError) as caught:
        URL("not a url")
    assert caught.value.code == Status.INVALID_VALUE
    with pytest.raises(TypeError):
        URL(42)


# ---- hostile bytes

def test_malformed_bytes_raise_malformed_data():
    for data in (b"", b"bplist00", b"bplist00" + b"\xff" * 40, b"<plist>", b"\x00" * 100):
        with pytest.raises(HandoffError) as caught:
            decode_value(data)
        assert caught.value.code == Status.MALFORMED_DATA, data


def test_corrupted_encodings_never_crash():
    good = encode_value({"a": [1, 2.5, "s", b"d", {"x": None}], "u": URL("https://e.example/")})
    rng = random.Random(6)
    outcomes = set()
    for _ in range(500):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data[:rng.randint(0, len(data))]) if rng.random() < 0.3 else bytes(data)
        try:
            decode_value(data)
            outcomes.add("decoded")
        except HandoffError as error:
            assert error.code == Status.MALFORMED_DATA
            outcomes.add("refused")
        except TypeError:
            outcomes.add("no python form")  # a set holding a dictionary
    assert "refused" in outcomes


def test_a_date_beyond_python_range_raises_value_error():
    lib = _ffi.lib
    with pytest.raises(HandoffError, match="outside what Python's datetime can hold") as caught:
        take(lib.handoff_value_new_date(1e18))
    assert caught.value.code == Status.MALFORMED_DATA


@pytest.mark.parametrize("seconds_since_2001", [1e18, -1e18, -63113904001.0, 252423993600.0])
def test_a_binary_plist_date_beyond_python_range_raises_handoff_error(seconds_since_2001):
    # A userInfo that another implementation may send: a plist date is any
    # 64-bit float; Python's datetime holds years 1 to 9999 only.
    import struct
    objects = [bytes([0xD1, 1, 2]), bytes([0x51]) + b"d", bytes([0x33]) + struct.pack(">d", seconds_since_2001)]
    body = b"bplist00"
    offsets = []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    body += bytes(offsets)
    body += bytes(6) + bytes([1, 1]) + len(objects).to_bytes(8, "big") + bytes(8) + table.to_bytes(8, "big")
    with pytest.raises(HandoffError) as caught:
        decode_value(body)
    assert caught.value.code == Status.MALFORMED_DATA
    assert "datetime" in caught.value.message
    # The same bytes, a date in range, decode to an aware datetime.
    good = body.replace(struct.pack(">d", seconds_since_2001), struct.pack(">d", 0.0))
    assert decode_value(good) == {"d": datetime.datetime(2001, 1, 1, tzinfo=UTC)}


def test_decode_takes_bytes():
    with pytest.raises(TypeError, match="decode_value takes bytes"):
        decode_value("bplist00")
    assert handoff.USER_INFO_BUDGET == 3072
