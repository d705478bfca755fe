# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo through binary property lists (handoff/_bplist.py): a whole
userInfo crosses in one library call each way, the library sees exactly
the value the value-by-value path builds, and whatever is unusual goes
value by value (so its errors are the ones test_values.py checks)."""

import collections
import datetime
import math
import random
import sys
from pathlib import Path

import pytest

from handoff import URL, UserActivity, _bplist, _ffi, encode_value, values
from test_values import ROUND_TRIPS, same

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from user_info import document_state  # noqa: E402  (the bench's dictionary)

lib = _ffi.lib
UTC = datetime.timezone.utc


def library_sees_the_same(value):
    """The property-list path's handoff_value (the library reading
    _bplist.write's bytes) equals the value-by-value one."""
    data = _bplist.write(value)
    fast, slow = lib.handoff_value_decode(data, len(data)), values.to_value(value)
    try:
        return lib.handoff_value_equal(fast, slow) == 1
    finally:
        lib.handoff_value_free(fast)
        lib.handoff_value_free(slow)


def read_both_ways(value):
    """(_bplist.read of the library's encoding, value-by-value read) of the
    library's value for `value`."""
    handle = values.to_value(value)
    try:
        return _bplist.read(encode_value(value)), values.from_value(handle)
    finally:
        lib.handoff_value_free(handle)


class CountingLibrary:
    """Stands in for values.lib: counts the C functions called through it."""

    def __init__(self, real):
        self.real = real
        self.calls = collections.Counter()

    def __getattr__(self, name):
        function = getattr(self.real, name)

        def counted(*args):
            self.calls[name] += 1
            return function(*args)
        return counted


# (One library call each way, and which: test_json.py, for JSON-shaped
# values and for the rest, which come here.)


@pytest.mark.parametrize("name,value,expected", ROUND_TRIPS, ids=[r[0] for r in ROUND_TRIPS])
def test_every_kind_is_written_for_the_library(name, value, expected):
    assert _bplist.write(value) is not None
    assert library_sees_the_same(value)
    fast, slow = read_both_ways(value)
    assert same(fast, slow) and same(fast, expected), (fast, slow, expected)


def sized_values():
    """Values around every size where the encoding changes form."""
    for n in (0, 14, 15, 255, 256, 65535, 65536, 70000):
        yield f"ascii {n}", "a" * n
        yield f"utf-16 {n}", "é" * n
        yield f"data {n}", bytes(range(256)) * (n // 256) + bytes(n % 256)
    yield "emoji", "\U0001F7E2" * 20  # surrogate pairs
    for n in (255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -1, -256, 2 ** 63 - 1, -(2 ** 63)):
        yield f"integer {n}", n
    for n in (14, 15, 255, 256, 300):
        yield f"array of {n}", list(range(n))
        yield f"dictionary of {n}", {f"k{i}": i for i in range(n)}
        yield f"set of {n}", set(range(n))
    yield "references past 255", [[i, str(i)] for i in range(200)]  # 2-byte references
    yield "offsets past 65535", ["x" * 5000 for _ in range(20)]  # 4-byte offsets
    yield "nested 15 deep", [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]


@pytest.mark.parametrize("name,value", list(sized_values()), ids=[n for n, _ in sized_values()])
def test_sizes_that_change_the_encoding(name, value):
    assert _bplist.write(value) is not None
    assert library_sees_the_same(value)
    fast, slow = read_both_ways(value)
    assert same(fast, slow)


def random_value(rng, depth=0, hashable=False):
    kinds = ["none", "bool", "int", "float", "str", "bytes", "date", "url", "set", "tuple"]
    if not hashable:
        kinds += ["list", "dict"] * (depth < 4)
    kind = rng.choice(kinds if depth < 5 else kinds[:8])
    if kind == "none":
        return None
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "int":
        return rng.choice([0, 1, 255, 256, 70000, -5, 2 ** 40, -(2 ** 63), 2 ** 63 - 1,
                           rng.randint(-(2 ** 63), 2 ** 63 - 1)])
    if kind == "float":
        return rng.choice([0.0, -0.0, 1.5, math.inf, -math.inf, rng.uniform(-1e300, 1e300)])
    if kind == "str":
        alphabet = "abc XYZ-_/é圆\U0001F7E2\u0301"
        return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 3, 14, 15, 40])))
    if kind == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 15, 100])))
    if kind == "date":
        return datetime.datetime.fromtimestamp(rng.uniform(-3e9, 3e9), UTC)
    if kind == "url":
        return URL(rng.choice(["https://example.com/a?b=1#c", "mailto:kim@example.org",
                               "file:///tmp/x%20y"]))
    if kind == "set":
        return frozenset(random_value(rng, depth + 1, True) for _ in range(rng.randint(0, 4)))
    if kind == "tuple":
        return tuple(random_value(rng, depth + 1, hashable) for _ in range(rng.randint(0, 4)))
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    return {f"key-{rng.randrange(1000)}{rng.choice(['', 'é', '圆'])}": random_value(rng, depth + 1)
            for _ in range(rng.randint(0, 6))}


def test_random_values_agree_with_the_value_by_value_path():
    rng = random.Random(17)
    for _ in range(400):
        value = {"v": random_value(rng)}
        assert _bplist.write(value) is not None, value
        assert library_sees_the_same(value), value
        fast, slow = read_both_ways(value)
        assert same(fast, slow), value


class Shape:
    pass


def deep(levels):
    value = 0
    for _ in range(levels):
        value = [value]
    return value


def loop():
    items = [1]
    items.append(items)
    return items


UNUSUAL = [
    ("non-str key", {1: "x"}),
    ("reserved key", {"$class": "NSNull"}),
    ("reserved key nested", {"a": [{"$class": "NSURL", "NS.relative": "https://a/"}]}),
    ("NUL in a string", {"a": "x\0y"}),
    ("NUL in a key", {"a\0": 1}),
    ("lone surrogate", {"a": "\udc80"}),
    ("integer over 64 bits", {"a": 2 ** 63}),
    ("integer under 64 bits", {"a": -(2 ** 63) - 1}),
    ("naive datetime", {"a": datetime.datetime(2024, 1, 1)}),
    ("a value containing itself", {"a": loop()}),
    ("nested too deep", {"a": deep(30)}),
    ("canonically equivalent keys", {"\u00e9": 1, "e\u0301": 2}),
    ("an object", {"a": Shape()}),
    ("a date, not a datetime", {"a": datetime.date(2024, 1, 1)}),
    ("a mapping that is not a dict", {"a": collections.ChainMap({"b": 1})}),
]


@pytest.mark.parametrize("name,value", UNUSUAL, ids=[n for n, _ in UNUSUAL])
def test_the_unusual_goes_value_by_value(name, value):
    assert _bplist.write(value) is None


def test_equivalent_keys_still_collapse_into_one():
    activity = UserActivity("com.example.bplist.test")
    activity.user_info = {"\u00e9": 1, "e\u0301": 2, "plain": 3}
    assert len(activity.user_info) == 2 and activity.user_info["plain"] == 3


def test_subclasses_of_the_common_kinds_are_written_as_their_base():
    class Text(str):
        pass

    class Number(int):
        pass

    class Table(dict):
        pass

    value = {"t": Text("x"), "n": Number(7), "d": Table(a=1), "c": collections.OrderedDict(b=2)}
    assert _bplist.write(value) is not None
    assert library_sees_the_same(value)
    assert values.take(values.new_value(value)) == {"t": "x", "n": 7, "d": {"a": 1}, "c": {"b": 2}}


def test_the_key_cache_is_bounded():
    for start in range(0, 3 * _bplist._KEYS_MAX, 500):
        _bplist.write({f"key {i}": i for i in range(start, start + 500)})
    assert 0 < len(_bplist._KEYS) <= _bplist._KEYS_MAX


def test_read_takes_the_library_encoding_of_sets_in_sets():
    value = {"s": {frozenset({(1, "a"), None}), URL("https://x.example/"), (True, 2.5)}}
    assert _bplist.read(encode_value(value)) == values.take(values.to_value(value))
    with pytest.raises(TypeError, match="hashable"):
        _bplist.read(encode_value({"a": 1}), hashable=True)
