# SPDX-License-Identifier: MIT OR Apache-2.0
"""URLs read as libhandoff 0.1.0 read them (Foundation's URL(string:)).

The library reads URLs itself since it stopped linking Foundation
(URLReference in HandoffModel). url_vectors.jsonl holds 420 texts and what
the 0.1.0 library, Foundation inside, made of them: the text of a URL value
(`handoff_value_new_url`: invalid characters percent-encoded, null when
refused) and the web page URL an activity kept (`handoff_activity_set_
webpage_url`: http or https with a host), or the status refusing it. The
texts are the odd cases of URLReferenceTests and a sample of 850,000
mutated URLs (every kind of outcome) on which both libraries agreed.

    HANDOFF_LIBRARY=/path/to/libhandoff.so python3 -m pytest -q Tests/python
"""

import ctypes
import json
import os
import pathlib

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = pathlib.Path(__file__).with_name("url_vectors.jsonl")


@pytest.fixture(scope="module")
def lib():
    path = os.environ.get("HANDOFF_LIBRARY") or REPO_ROOT / "build" / "lib" / "libhandoff.so"
    lib = ctypes.CDLL(str(path))
    signatures = {
        "handoff_value_new_url": (ctypes.c_void_p, [ctypes.c_char_p]),
        "handoff_value_get_url": (ctypes.c_char_p, [ctypes.c_void_p]),
        "handoff_value_free": (None, [ctypes.c_void_p]),
        "handoff_activity_new": (ctypes.c_void_p, [ctypes.c_char_p]),
        "handoff_activity_free": (None, [ctypes.c_void_p]),
        "handoff_activity_set_webpage_url": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
        "handoff_activity_get_webpage_url": (ctypes.c_char_p, [ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        getattr(lib, name).restype = restype
        getattr(lib, name).argtypes = argtypes
    return lib


def vectors():
    with VECTORS.open(encoding="ascii") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_there_are_vectors_of_every_outcome():
    rows = vectors()
    assert len(rows) == 420
    assert any(value is None for _, value, _ in rows)
    assert any(value is not None and value != text for text, value, _ in rows)
    assert any(page.startswith("refused") for _, _, page in rows)
    assert any(page == text for text, _, page in rows)


def test_urls_are_read_as_before(lib):
    activity = lib.handoff_activity_new(b"com.example.urls")
    try:
        for text, value, page in vectors():
            raw = text.encode("utf-8")
            v = lib.handoff_value_new_url(raw)
            got = lib.handoff_value_get_url(v).decode("utf-8") if v else None
            if v:
                lib.handoff_value_free(v)
            assert got == value, text
            status = lib.handoff_activity_set_webpage_url(activity, raw)
            kept = lib.handoff_activity_get_webpage_url(activity)
            assert (f"refused {status}" if status else (kept.decode("utf-8") if kept else "<none>")) == page, text
    finally:
        lib.handoff_activity_free(activity)
