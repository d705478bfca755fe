# SPDX-License-Identifier: MIT OR Apache-2.0
"""userInfo values through JSON text, the fast path of ``UserActivity.user_info``.

Python parses and writes JSON in C (the ``json`` module's accelerator) but
property lists only in Python code, so a JSON-shaped value (str keys;
str, int, float, bool, None, list, tuple and dict values) crosses into the
library as JSON text (``handoff_value_decode_json``) and comes back as JSON
(``handoff_value_encode_json``). The library keeps the kinds: an int stays
an integer and a float a real both ways.

Anything else takes the property-list path (``_bplist``) or, for what that
refuses, the value-by-value path that raises the errors: ``dumps`` returns
None and ``loads`` returns ``_NOT_JSON`` whenever the JSON path could differ
from those (a ``URL``, which json would write as a plain string; a
non-str key, which json would turn into one; subclasses; NaN; deep or
self-containing values; anything the library refuses).
"""

from __future__ import annotations

import ctypes

from . import _ffi
from .errors import HandoffError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

lib = _ffi.lib

_SCALARS = frozenset((str, int, float, bool, type(None)))
# Deeper than any userInfo may nest (16): the other paths say why.
_MAX_DEPTH = 17
_NOT_JSON = object()

_encode = None  # json's C encoder and decoder, made on first use: importing
_decode = None  # json costs milliseconds that `import handoff` need not pay


def _codec() -> None:
    global _encode, _decode
    import json
    # ASCII out (non-ASCII as \u escapes) is the encoder's fastest path.
    encoder = json.JSONEncoder(allow_nan=False, check_circular=False, separators=(",", ":"))
    decoder = json.JSONDecoder()
    _encode, _decode = encoder.encode, decoder.decode
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii
        from json.scanner import c_make_scanner
    except ImportError:
        return
    if c_make_encoder is None or c_make_scanner is None:
        return  # (no C accelerator: JSONEncoder's pure-Python path)
    # What JSONEncoder.encode and JSONDecoder.decode do for a container,
    # without making the C encoder again on each call (json.dumps does)
    # nor matching whitespace the library never writes.
    try:
        iterencode = c_make_encoder(None, encoder.default, encode_basestring_ascii, None,
                                    ":", ",", False, False, False)
        scan = c_make_scanner(decoder)
    except TypeError:  # a Python whose accelerator takes other arguments
        return

    def encode(obj: Any) -> str:
        return "".join(iterencode(obj, 0))

    def decode(text: str) -> Any:
        value, end = scan(text, 0)
        if end != len(text):
            raise ValueError("text after the JSON value")
        return value

    _encode, _decode = encode, decode


def _shaped(obj: Any, depth: int, _scalars: frozenset = _SCALARS, type: type = type) -> bool:
    """Whether json writes exactly what the other paths would make of `obj`
    (containers whose every key is a str and every value a plain scalar or
    such a container). Depth-bounded, so a value containing itself is not.
    (The defaults make the names it looks up per item locals.)"""
    if depth > _MAX_DEPTH:
        return False
    kind = type(obj)
    if kind is dict:
        depth += 1
        for key, item in obj.items():
            if type(key) is not str or (type(item) not in _scalars and not _shaped(item, depth)):
                return False
        return True
    if kind is list or kind is tuple:
        depth += 1
        for item in obj:
            if type(item) not in _scalars and not _shaped(item, depth):
                return False
        return True
    return kind in _scalars


def new_value(obj: Any) -> Any:
    """A new handoff_value for `obj` through JSON, or None when `obj` is not
    JSON-shaped or the library refuses it (the other paths then decide)."""
    if not _shaped(obj, 0):
        return None
    if _encode is None:
        _codec()
    try:
        data = _encode(obj).encode("ascii")
    except ValueError:  # NaN or infinity
        return None
    try:
        return lib.handoff_value_decode_json(data, len(data))
    except HandoffError:
        return None


def read(value: Any) -> Any:
    """The Python native of a (borrowed) handoff_value through JSON, or
    _NOT_JSON when it holds what JSON cannot carry."""
    text = ctypes.POINTER(ctypes.c_uint8)()
    length = ctypes.c_size_t()
    try:
        lib.handoff_value_encode_json(value, ctypes.byref(text), ctypes.byref(length))
    except HandoffError:
        return _NOT_JSON
    if _decode is None:
        _codec()
    return _decode(_ffi.take_bytes(text, length.value).decode("utf-8"))
