# SPDX-License-Identifier: MIT OR Apache-2.0
"""The raw layer against the header: every function declared with the
header's arity, the struct layouts as the C compiler lays them out, and
errcheck turning failures into HandoffError with the library's message."""

import ctypes
import re
import subprocess

import pytest

from conftest import REPO, compile_c
from handoff import HandoffError, Status, _ffi, status_string, library_version

HEADER = REPO / "include" / "handoff.h"


def header_prototypes():
    """{function name: parameter count} of every HANDOFF_API function."""
    text = re.sub(r"/\*.*?\*/", " ", HEADER.read_text(), flags=re.S)
    text = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)  # preprocessor lines
    found = {}
    for match in re.finditer(r"HANDOFF_API\s+[^;(]*?\b(handoff_\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*;",
                             text, flags=re.S):
        name, params = match.group(1), match.group(2).strip()
        depth, count = 0, 0 if params in ("", "void") else 1
        for ch in params:
            depth += ch == "("
            depth -= ch == ")"
            count += ch == "," and depth == 0
        found[name] = count
    return found


def test_the_header_parses_into_many_functions():
    prototypes = header_prototypes()
    assert len(prototypes) >= 100
    assert prototypes["handoff_activity_set_delegate"] == 4  # a function-pointer parameter
    assert prototypes["handoff_version_number"] == 0


def test_every_header_function_is_declared_with_its_arity():
    prototypes = header_prototypes()
    assert sorted(_ffi.DECLARED) == sorted(prototypes), (
        "missing: %s; not in the header: %s" % (
            sorted(set(prototypes) - set(_ffi.DECLARED)),
            sorted(set(_ffi.DECLARED) - set(prototypes))))
    for name, count in prototypes.items():
        restype, argtypes, _ = _ffi.DECLARED[name]
        assert len(argtypes) == count, name
        function = getattr(_ffi.lib, name)
        assert function.argtypes == argtypes and function.restype == restype, name


def test_functions_that_can_fail_have_an_errcheck():
    for name, (restype, argtypes, errcheck) in _ffi.DECLARED.items():
        pointer_result = isinstance(restype, type) and issubclass(restype, ctypes._Pointer)
        if re.search(r"_(new\w*|copy\w*|load\w*|decode|from_\w+)$", name) and pointer_result:
            assert errcheck is _ffi.NOT_NULL, name


def c_layout(tmp_path):
    binary = compile_c(REPO / "bindings" / "python" / "tests" / "c" / "layout.c",
                       tmp_path / "layout", f"-I{REPO / 'include'}")
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    layout = {}
    for line in out.splitlines():
        struct, field, number = line.split()
        layout.setdefault(struct, {})[field] = int(number)
    return layout


def test_struct_layouts_match_the_c_compiler(tmp_path):
    layout = c_layout(tmp_path)
    for struct_name, struct_type in _ffi.STRUCTS.items():
        c = dict(layout[struct_name])
        assert ctypes.sizeof(struct_type) == c.pop("<size>"), struct_name
        assert ctypes.sizeof(struct_type) == c.pop("<init-size>"), struct_name
        assert _ffi.sized(struct_type).size == ctypes.sizeof(struct_type)
        python_fields = {name: getattr(struct_type, name).offset for name, _ in struct_type._fields_}
        assert python_fields == c, struct_name
    enums = layout["enum"]
    assert enums["HANDOFF_VALUE_SET"] == _ffi.VALUE_SET
    assert enums["HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS"] == \
        _ffi.FLAG_SUPPORTS_CONTINUATION_STREAMS
    assert enums["HANDOFF_DEVICE_ROLE_SEND_ONLY"] == _ffi.DEVICE_ROLE_SEND_ONLY
    assert enums["HANDOFF_CONTINUITY_MODE_AGENT"] == _ffi.CONTINUITY_MODE_AGENT
    assert enums["HANDOFF_CONTINUITY_MODE_EMBEDDED"] == _ffi.CONTINUITY_MODE_EMBEDDED
    assert enums["sizeof-enum"] == ctypes.sizeof(ctypes.c_int)


def test_status_codes_match_the_header():
    text = HEADER.read_text()
    for status in Status:
        if status is Status.OK:
            assert re.search(r"\bHANDOFF_OK = 0\b", text)
        else:
            assert re.search(r"\bHANDOFF_E_%s = %d\b" % (status.name, status.value), text), status
    assert f"#define HANDOFF_USER_INFO_BUDGET {_ffi.USER_INFO_BUDGET}" in text


def test_errcheck_raises_with_the_library_code_and_message():
    with pytest.raises(HandoffError) as caught:
        _ffi.lib.handoff_activity_new(b"bad\ttype")
    error = caught.value
    assert error.code == Status.INVALID_VALUE and error.status is Status.INVALID_VALUE
    assert error.function == "handoff_activity_new"
    assert "control character" in error.message, error.message
    assert "handoff_activity_new" in str(error) and "INVALID_VALUE 2" in str(error)
    assert not error.is_user_activity_error


def test_errcheck_of_a_status_function_uses_the_returned_code():
    activity = _ffi.lib.handoff_activity_new(b"com.example.ffi.test")
    try:
        with pytest.raises(HandoffError) as caught:
            _ffi.lib.handoff_activity_set_webpage_url(activity, b"ftp://example.com/")
        assert caught.value.code == Status.INVALID_VALUE
        assert caught.value.message  # the library says what to do
    finally:
        _ffi.lib.handoff_activity_free(activity)


def test_wrong_handle_types_are_refused_by_ctypes():
    manifest = _ffi.lib.handoff_manifest_new(b"com.example.ffi", b"TEAM1")
    try:
        with pytest.raises(ctypes.ArgumentError):
            _ffi.lib.handoff_activity_get_type(manifest)  # a manifest is not an activity
    finally:
        _ffi.lib.handoff_manifest_free(manifest)


def test_version_and_status_strings():
    assert library_version() == "%d.%d.%d" % tuple(
        int(re.search(r"#define HANDOFF_VERSION_%s (\d+)" % part, HEADER.read_text()).group(1))
        for part in ("MAJOR", "MINOR", "PATCH"))
    assert status_string(4611) == "userInfo too large"
    assert status_string(999999) == "unknown status"
    assert HandoffError(4611, "m").is_user_activity_error
    assert HandoffError(77777, "m").status == 77777  # unknown codes stay ints
