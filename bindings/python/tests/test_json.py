# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo through JSON text (handoff/_json.py), the fast path of
UserActivity.user_info: a JSON-shaped userInfo crosses in one library call
each way; the library sees exactly the value the value-by-value path
builds, with every kind kept (an int stays an int, a float a float); and
whatever JSON could carry differently (a URL, a non-str key, NaN, a value
the library refuses) takes another path, with that path's result or error."""

import random

import pytest

from handoff import URL, UserActivity, _ffi, _json, values
from test_bplist import UNUSUAL, CountingLibrary, document_state
from test_values import ROUND_TRIPS, same

lib = _ffi.lib


def library_sees_the_same(value):
    """The JSON path's handoff_value equals the value-by-value one."""
    fast, slow = _json.new_value(value), values.to_value(value)
    assert fast is not None, value
    try:
        return lib.handoff_value_equal(fast, slow) == 1
    finally:
        lib.handoff_value_free(fast)
        lib.handoff_value_free(slow)


def read_both_ways(value):
    """(the JSON read, the value-by-value read) of the library's value."""
    handle = values.to_value(value)
    try:
        return _json.read(handle), values.from_value(handle)
    finally:
        lib.handoff_value_free(handle)


def counting(monkeypatch):
    counter = CountingLibrary(lib)
    monkeypatch.setattr(values, "lib", counter)
    monkeypatch.setattr(_json, "lib", counter)
    return counter.calls


def test_the_common_case_is_one_library_call_each_way(monkeypatch):
    state = document_state()
    activity = UserActivity("com.example.json.test")
    calls = counting(monkeypatch)
    activity.user_info = state
    assert calls == {"handoff_value_decode_json": 1}
    calls.clear()
    assert same(activity.user_info, state)
    assert calls == {"handoff_value_encode_json": 1, "handoff_value_free": 1}


def test_what_json_cannot_carry_takes_the_property_list(monkeypatch):
    state = dict(document_state(), thumbnail=b"\x89PNG", opened=URL("file:///tmp/a.md"))
    activity = UserActivity("com.example.json.test")
    calls = counting(monkeypatch)
    activity.user_info = state
    assert calls == {"handoff_value_decode": 1}  # not even tried as JSON
    calls.clear()
    back = activity.user_info
    assert same(back, state) and type(back["opened"]) is URL
    # Tried as JSON (the library says no at the first data), then the plist.
    assert calls == {"handoff_value_encode_json": 1, "handoff_value_encode": 1, "handoff_value_free": 1}


JSON_SHAPED = [r for r in ROUND_TRIPS if _json._shaped(r[1], 0) and r[0] != "infinity"]


def test_the_json_shaped_round_trips_are_most_of_them():
    assert {"null", "true", "zero", "int64 min", "real", "negative zero", "unicode", "tuple", "dict"} <= \
        {name for name, _, _ in JSON_SHAPED}


@pytest.mark.parametrize("name,value,expected", JSON_SHAPED, ids=[r[0] for r in JSON_SHAPED])
def test_every_json_kind_reaches_the_library_as_json_with_its_kind(name, value, expected):
    assert library_sees_the_same({"v": value})
    fast, slow = read_both_ways({"v": value})
    assert same(fast, slow) and same(fast, {"v": expected}), (fast, slow)


def test_floats_that_look_like_ints_stay_floats_and_ints_stay_ints():
    value = {"a": 3.0, "b": 3, "c": True, "d": 1e16, "e": 2 ** 53 + 1, "f": -0.0, "g": 5e-324}
    assert library_sees_the_same(value)
    assert same(values.take(values.new_value(value)), value)


@pytest.mark.parametrize("name,value", UNUSUAL, ids=[n for n, _ in UNUSUAL])
def test_the_unusual_ends_as_the_value_by_value_path_ends(name, value):
    """Either both paths make the same value, or both raise the same error."""
    def outcome(make):
        try:
            handle = make(value)
        except Exception as error:  # noqa: BLE001 (the comparison is the test)
            return type(error), str(error)
        try:
            return values.take(lib.handoff_value_copy(handle))
        finally:
            lib.handoff_value_free(handle)
    assert outcome(values.new_value) == outcome(values.to_value)


@pytest.mark.parametrize("value", [
    {"u": URL("https://example.com/")},  # json would write a plain string
    {1: "one"},                          # json would write the key "1"
    {"n": float("nan")},                 # not JSON
    {"i": float("inf")},
    {"big": 2 ** 64},                    # the library refuses it as JSON
    {"s": "\udc80"},                     # a lone surrogate
    {"z": "a\0b"},                       # NUL
    {"$class": 1},
], ids=["url", "int key", "nan", "inf", "int over 64 bits", "lone surrogate", "nul", "reserved key"])
def test_json_stays_out_of_the_way_where_it_would_differ(value):
    assert _json.new_value(value) is None


def test_a_value_containing_itself_or_nested_too_deep_is_not_json_shaped():
    loop = [1]
    loop.append(loop)
    deep = 0
    for _ in range(40):
        deep = [deep]
    assert not _json._shaped({"a": loop}, 0)
    assert not _json._shaped({"a": deep}, 0)


def random_json_value(rng, depth=0):
    kinds = ["none", "bool", "int", "float", "str"] + ["list", "tuple", "dict"] * (depth < 5)
    kind = rng.choice(kinds)
    if kind == "none":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice([0, -1, 255, 2 ** 31, -(2 ** 63), 2 ** 63 - 1, rng.randint(-(2 ** 63), 2 ** 63 - 1)])
    if kind == "float":
        return rng.choice([0.0, -0.0, 1.0, 0.1, 1e-7, 1e22, 5e-324, rng.uniform(-1e300, 1e300)])
    if kind == "str":
        alphabet = "abc XYZ\"\\/\n\t\x01\x1f-é圆\U0001F7E2\u0301\u2028"
        return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 14, 40])))
    if kind in ("list", "tuple"):
        items = [random_json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
        return items if kind == "list" else tuple(items)
    return {rng.choice(["k", "key", "é", "e\u0301", "圆", "", "\"", "a\\b"]) + str(rng.randrange(50)):
            random_json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def test_random_json_values_agree_with_the_value_by_value_path():
    rng = random.Random(23)
    for _ in range(400):
        value = {"v": random_json_value(rng)}
        assert library_sees_the_same(value), value
        fast, slow = read_both_ways(value)
        assert same(fast, slow), value


def test_the_binding_writes_and_reads_json_text_as_the_json_module_does():
    import json
    rng = random.Random(29)
    _json._codec()
    reference = json.JSONEncoder(allow_nan=False, check_circular=False, separators=(",", ":"))
    for _ in range(400):
        value = {"v": random_json_value(rng)}
        text = _json._encode(value)
        assert text == reference.encode(value)
        assert _json._decode(text) == json.loads(text)
    with pytest.raises(ValueError):
        _json._encode({"n": float("nan")})
    with pytest.raises(ValueError):
        _json._decode('{"a":1} x')


def test_a_mapping_other_than_a_dict_is_read_as_a_copy_and_a_non_mapping_refused():
    import types
    state = document_state()
    activity = UserActivity("com.example.json.test")
    activity.user_info = types.MappingProxyType(state)
    assert same(activity.user_info, state)
    with pytest.raises(TypeError, match="user_info must be a dict, not list"):
        activity.user_info = [("a", 1)]
