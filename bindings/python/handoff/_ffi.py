# SPDX-License-Identifier: MIT OR Apache-2.0
"""The C interface of libhandoff, declared for ctypes: one line per function
of include/handoff.h (argument types, result type, and an errcheck that
raises HandoffError with the library's code and message), and the structs
the header defines. The layouts live here and nowhere else.

This module is the raw layer: pointers in, pointers out, no ownership
handling. The rest of the package builds the Pythonic API on it.
"""

from __future__ import annotations

import ctypes
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int64,
                    c_size_t, c_uint, c_uint8, c_void_p)

from . import _library
from .errors import HandoffError

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Callable

lib, library_path = _library.load()


# ---------------------------------------------------------------- handles

class _Opaque(Structure):
    """Base of the opaque handle types: never dereferenced."""


class Value(_Opaque): pass                    # handoff_value
class Activity(_Opaque): pass                 # handoff_activity
class Manifest(_Opaque): pass                 # handoff_manifest
class Application(_Opaque): pass              # handoff_application
class Responder(_Opaque): pass                # handoff_responder
class RestorationHandler(_Opaque): pass       # handoff_restoration_handler
class RemoteActivity(_Opaque): pass           # handoff_remote_activity
class Account(_Opaque): pass                  # handoff_account
class Document(_Opaque): pass                 # handoff_document


ValuePtr = POINTER(Value)
ActivityPtr = POINTER(Activity)
ManifestPtr = POINTER(Manifest)
ApplicationPtr = POINTER(Application)
ResponderPtr = POINTER(Responder)
RestorationHandlerPtr = POINTER(RestorationHandler)
RemoteActivityPtr = POINTER(RemoteActivity)
AccountPtr = POINTER(Account)
DocumentPtr = POINTER(Document)


def address(pointer: Any) -> int | None:
    """The address a handle pointer holds (None for NULL): the key that
    finds the Python object wrapping it."""
    return ctypes.cast(pointer, c_void_p).value


# ---------------------------------------------------------------- constants

USER_INFO_BUDGET = 3072

VALUE_NULL, VALUE_BOOLEAN, VALUE_INTEGER, VALUE_REAL, VALUE_STRING = 0, 1, 2, 3, 4
VALUE_DATA, VALUE_DATE, VALUE_URL, VALUE_ARRAY, VALUE_DICTIONARY, VALUE_SET = 5, 6, 7, 8, 9, 10

FLAG_ELIGIBLE_FOR_HANDOFF = 0
FLAG_ELIGIBLE_FOR_SEARCH = 1
FLAG_ELIGIBLE_FOR_PUBLIC_INDEXING = 2
FLAG_ELIGIBLE_FOR_PREDICTION = 3
FLAG_NEEDS_SAVE = 4
FLAG_SUPPORTS_CONTINUATION_STREAMS = 5

DEVICE_ROLE_FULL = 0
DEVICE_ROLE_SEND_ONLY = 1

CONTINUITY_MODE_AUTO = 0
CONTINUITY_MODE_AGENT = 1
CONTINUITY_MODE_EMBEDDED = 2


# ---------------------------------------------------------------- callbacks

DestroyFn = CFUNCTYPE(None, c_void_p)
# done(context, status) of handoff_application_delete_saved_activities
CompletionFn = CFUNCTYPE(None, c_void_p, c_int)
#: A NULL destroy callback: this binding passes nothing through user_data.
NO_DESTROY = DestroyFn()

ActivityCallbackFn = CFUNCTYPE(None, ActivityPtr, c_void_p)
DidReceiveStreamFn = CFUNCTYPE(None, ActivityPtr, c_int, c_void_p)
DidFailToHandOffFn = CFUNCTYPE(None, ActivityPtr, c_int, c_char_p, c_void_p)
StreamCallbackFn = CFUNCTYPE(None, ActivityPtr, c_int, c_int, c_char_p, c_void_p)
ResponderCallbackFn = CFUNCTYPE(None, ResponderPtr, ActivityPtr, c_void_p)

WillContinueFn = CFUNCTYPE(c_int, ApplicationPtr, c_char_p, c_void_p)
ContinueActivityFn = CFUNCTYPE(c_int, ApplicationPtr, ActivityPtr, RestorationHandlerPtr, c_void_p)
DidFailToContinueFn = CFUNCTYPE(None, ApplicationPtr, c_char_p, c_int, c_char_p, c_void_p)
DidUpdateFn = CFUNCTYPE(None, ApplicationPtr, ActivityPtr, c_void_p)
RemoteActivityFn = CFUNCTYPE(None, ApplicationPtr, RemoteActivityPtr, c_void_p)
OpenWebpageFn = CFUNCTYPE(None, ApplicationPtr, c_char_p, RemoteActivityPtr, c_void_p)


# ---------------------------------------------------------------- structs
# Each growable struct starts with its size; sized() fills it in, as the
# header's *_INIT macros do.

class ActivityDelegate(Structure):
    """handoff_activity_delegate"""
    _fields_ = [
        ("size", c_size_t),
        ("user_activity_will_save", ActivityCallbackFn),
        ("user_activity_was_continued", ActivityCallbackFn),
        ("user_activity_did_receive_stream", DidReceiveStreamFn),
        ("user_activity_did_fail_to_hand_off", DidFailToHandOffFn),
    ]


class ResponderCallbacks(Structure):
    """handoff_responder_callbacks"""
    _fields_ = [
        ("size", c_size_t),
        ("update_user_activity_state", ResponderCallbackFn),
        ("restore_user_activity_state", ResponderCallbackFn),
    ]


class ApplicationDelegate(Structure):
    """handoff_application_delegate"""
    _fields_ = [
        ("size", c_size_t),
        ("will_continue_user_activity", WillContinueFn),
        ("continue_user_activity", ContinueActivityFn),
        ("did_fail_to_continue_user_activity", DidFailToContinueFn),
        ("did_update_user_activity", DidUpdateFn),
        ("activity_available", RemoteActivityFn),
        ("activity_updated", RemoteActivityFn),
        ("activity_withdrawn", RemoteActivityFn),
        ("open_webpage", OpenWebpageFn),
    ]


class ContinuityOptions(Structure):
    """handoff_continuity_options"""
    _fields_ = [
        ("size", c_size_t),
        ("account", AccountPtr),
        ("device_id", c_char_p),
        ("device_name", c_char_p),
        ("role", c_int),
        ("beacon_port", c_int),
        ("disable_multicast", c_int),
        ("peers", POINTER(c_char_p)),
        ("peer_count", c_size_t),
        ("channel_address", c_char_p),
        ("fetch_timeout_ms", c_int),
        ("connect_timeout_ms", c_int),
        ("connection_reuse_ms", c_int),
        ("mode", c_int),
    ]


STRUCTS = {
    "handoff_activity_delegate": ActivityDelegate,
    "handoff_responder_callbacks": ResponderCallbacks,
    "handoff_application_delegate": ApplicationDelegate,
    "handoff_continuity_options": ContinuityOptions,
}


def sized(struct_type: type[Structure]) -> Any:
    """A zeroed struct with its `size` field set (the _INIT macro)."""
    s = struct_type()
    s.size = ctypes.sizeof(struct_type)
    return s


# ---------------------------------------------------------------- errors

def last_error(function: str | None = None, code: int | None = None) -> HandoffError:
    """The calling thread's last failure as a HandoffError."""
    message = lib.handoff_last_error_message().decode("utf-8", "replace")
    return HandoffError(lib.handoff_last_error_code() if code is None else code, message, function)


def _check_status(result: int, function: Any, arguments: tuple) -> int:
    if result != 0:
        raise last_error(function.__name__, result)
    return result


def _check_not_null(result: Any, function: Any, arguments: tuple) -> Any:
    if not result:
        raise last_error(function.__name__)
    return result


STATUS = _check_status
NOT_NULL = _check_not_null
OPTIONAL = None  # NULL means "absent", not a failure

DECLARED: dict[str, tuple[Any, list, Any]] = {}


def _declare(name: str, restype: Any, argtypes: list, errcheck: Callable | None = None) -> None:
    try:
        function = getattr(lib, name)
    except AttributeError:
        raise ImportError(f"{library_path} has no {name}: it is older than this binding; "
                          "rebuild or reinstall libhandoff") from None
    function.restype = restype
    function.argtypes = argtypes
    if errcheck is not None:
        function.errcheck = errcheck
    DECLARED[name] = (restype, argtypes, errcheck)


c_size_t_p = POINTER(c_size_t)
c_int_p = POINTER(c_int)
bytes_out = POINTER(POINTER(c_uint8))
strings = POINTER(c_char_p)

# Version
_declare("handoff_version_number", c_uint, [])
_declare("handoff_version_string", c_char_p, [], NOT_NULL)

# Status codes and errors
_declare("handoff_status_string", c_char_p, [c_int], NOT_NULL)
_declare("handoff_last_error_message", c_char_p, [])
_declare("handoff_last_error_code", c_int, [])
_declare("handoff_free", None, [c_void_p])

# Values
_declare("handoff_value_new_null", ValuePtr, [], NOT_NULL)
_declare("handoff_value_new_boolean", ValuePtr, [c_int], NOT_NULL)
_declare("handoff_value_new_integer", ValuePtr, [c_int64], NOT_NULL)
_declare("handoff_value_new_real", ValuePtr, [c_double], NOT_NULL)
_declare("handoff_value_new_string", ValuePtr, [c_char_p], NOT_NULL)
_declare("handoff_value_new_data", ValuePtr, [c_char_p, c_size_t], NOT_NULL)
_declare("handoff_value_new_date", ValuePtr, [c_double], NOT_NULL)
_declare("handoff_value_new_url", ValuePtr, [c_char_p], NOT_NULL)
_declare("handoff_value_new_array", ValuePtr, [], NOT_NULL)
_declare("handoff_value_new_dictionary", ValuePtr, [], NOT_NULL)
_declare("handoff_value_new_set", ValuePtr, [], NOT_NULL)
_declare("handoff_value_copy", ValuePtr, [ValuePtr], NOT_NULL)
_declare("handoff_value_free", None, [ValuePtr])
_declare("handoff_value_get_kind", c_int, [ValuePtr])
_declare("handoff_value_equal", c_int, [ValuePtr, ValuePtr])
_declare("handoff_value_get_boolean", c_int, [ValuePtr, c_int_p], STATUS)
_declare("handoff_value_get_integer", c_int, [ValuePtr, POINTER(c_int64)], STATUS)
_declare("handoff_value_get_real", c_int, [ValuePtr, POINTER(c_double)], STATUS)
_declare("handoff_value_get_date", c_int, [ValuePtr, POINTER(c_double)], STATUS)
# Strings and data may hold NUL bytes: read them with their length.
_declare("handoff_value_get_string", c_void_p, [ValuePtr, c_size_t_p], NOT_NULL)
_declare("handoff_value_get_data", c_void_p, [ValuePtr, c_size_t_p], NOT_NULL)
_declare("handoff_value_get_url", c_char_p, [ValuePtr], NOT_NULL)
_declare("handoff_value_count", c_size_t, [ValuePtr])
_declare("handoff_value_array_append", c_int, [ValuePtr, ValuePtr], STATUS)
_declare("handoff_value_dictionary_set", c_int, [ValuePtr, c_char_p, ValuePtr], STATUS)
_declare("handoff_value_set_add", c_int, [ValuePtr, ValuePtr], STATUS)
_declare("handoff_value_dictionary_remove", c_int, [ValuePtr, c_char_p], STATUS)
_declare("handoff_value_array_get", ValuePtr, [ValuePtr, c_size_t], NOT_NULL)
_declare("handoff_value_dictionary_get", ValuePtr, [ValuePtr, c_char_p], NOT_NULL)
_declare("handoff_value_dictionary_key_at", c_char_p, [ValuePtr, c_size_t], NOT_NULL)
_declare("handoff_value_dictionary_value_at", ValuePtr, [ValuePtr, c_size_t], NOT_NULL)
_declare("handoff_value_set_member_at", ValuePtr, [ValuePtr, c_size_t], NOT_NULL)
_declare("handoff_value_encode", c_int, [ValuePtr, bytes_out, c_size_t_p], STATUS)
_declare("handoff_value_decode", ValuePtr, [c_char_p, c_size_t], NOT_NULL)
_declare("handoff_value_encode_json", c_int, [ValuePtr, bytes_out, c_size_t_p], STATUS)
_declare("handoff_value_decode_json", ValuePtr, [c_char_p, c_size_t], NOT_NULL)

# User activities
_declare("handoff_activity_new", ActivityPtr, [c_char_p], NOT_NULL)
_declare("handoff_activity_free", None, [ActivityPtr])
_declare("handoff_activity_ref", ActivityPtr, [ActivityPtr], NOT_NULL)
_declare("handoff_activity_get_type", c_char_p, [ActivityPtr], NOT_NULL)
_declare("handoff_activity_get_id", c_char_p, [ActivityPtr], NOT_NULL)
_declare("handoff_activity_set_title", c_int, [ActivityPtr, c_char_p], STATUS)
_declare("handoff_activity_get_title", c_char_p, [ActivityPtr], OPTIONAL)
_declare("handoff_activity_set_webpage_url", c_int, [ActivityPtr, c_char_p], STATUS)
_declare("handoff_activity_get_webpage_url", c_char_p, [ActivityPtr], OPTIONAL)
_declare("handoff_activity_set_referrer_url", c_int, [ActivityPtr, c_char_p], STATUS)
_declare("handoff_activity_get_referrer_url", c_char_p, [ActivityPtr], OPTIONAL)
_declare("handoff_activity_set_target_content_identifier", c_int, [ActivityPtr, c_char_p], STATUS)
_declare("handoff_activity_get_target_content_identifier", c_char_p, [ActivityPtr], OPTIONAL)
_declare("handoff_activity_set_persistent_identifier", c_int, [ActivityPtr, c_char_p], STATUS)
_declare("handoff_activity_get_persistent_identifier", c_char_p, [ActivityPtr], OPTIONAL)
_declare("handoff_activity_set_expiration_date", c_int, [ActivityPtr, c_double], STATUS)
_declare("handoff_activity_clear_expiration_date", c_int, [ActivityPtr], STATUS)
_declare("handoff_activity_get_expiration_date", c_int, [ActivityPtr, POINTER(c_double)], STATUS)
_declare("handoff_activity_set_flag", c_int, [ActivityPtr, c_int, c_int], STATUS)
_declare("handoff_activity_get_flag", c_int, [ActivityPtr, c_int, c_int_p], STATUS)
_declare("handoff_activity_set_keywords", c_int, [ActivityPtr, strings, c_size_t], STATUS)
_declare("handoff_activity_keyword_count", c_size_t, [ActivityPtr])
_declare("handoff_activity_keyword_at", c_char_p, [ActivityPtr, c_size_t], NOT_NULL)
_declare("handoff_activity_set_required_user_info_keys", c_int, [ActivityPtr, strings, c_size_t], STATUS)
_declare("handoff_activity_required_user_info_key_count", c_size_t, [ActivityPtr])
_declare("handoff_activity_required_user_info_key_at", c_char_p, [ActivityPtr, c_size_t], NOT_NULL)
_declare("handoff_activity_set_searchable_user_info_keys", c_int, [ActivityPtr, strings, c_size_t], STATUS)
_declare("handoff_activity_searchable_user_info_key_count", c_size_t, [ActivityPtr])
_declare("handoff_activity_searchable_user_info_key_at", c_char_p, [ActivityPtr, c_size_t], NOT_NULL)
_declare("handoff_activity_copy_user_info", ValuePtr, [ActivityPtr], NOT_NULL)
_declare("handoff_activity_set_user_info", c_int, [ActivityPtr, ValuePtr], STATUS)
_declare("handoff_activity_add_user_info_entries", c_int, [ActivityPtr, ValuePtr], STATUS)
_declare("handoff_activity_user_info_size", c_size_t, [ActivityPtr])
_declare("handoff_activity_encode", c_int, [ActivityPtr, bytes_out, c_size_t_p], STATUS)
_declare("handoff_activity_decode", ActivityPtr, [c_char_p, c_size_t], NOT_NULL)
_declare("handoff_activity_invalidate", c_int, [ActivityPtr], STATUS)
_declare("handoff_activity_is_invalidated", c_int, [ActivityPtr])
_declare("handoff_activity_set_delegate", c_int,
         [ActivityPtr, POINTER(ActivityDelegate), c_void_p, DestroyFn], STATUS)

# Continuation streams (user_data: a request number, see activity.py)
_declare("handoff_activity_get_continuation_streams", c_int,
         [ActivityPtr, StreamCallbackFn, c_void_p], STATUS)

# Manifests
_declare("handoff_manifest_new", ManifestPtr, [c_char_p, c_char_p], NOT_NULL)
_declare("handoff_manifest_load", ManifestPtr, [c_char_p], NOT_NULL)
_declare("handoff_manifest_load_data", ManifestPtr, [c_char_p, c_size_t], NOT_NULL)
_declare("handoff_manifest_free", None, [ManifestPtr])
_declare("handoff_manifest_declare_activity_type", c_int, [ManifestPtr, c_char_p], STATUS)
_declare("handoff_manifest_declares", c_int, [ManifestPtr, c_char_p])
_declare("handoff_manifest_get_bundle_identifier", c_char_p, [ManifestPtr], NOT_NULL)
_declare("handoff_manifest_get_team_identifier", c_char_p, [ManifestPtr], NOT_NULL)
_declare("handoff_manifest_activity_type_count", c_size_t, [ManifestPtr])
_declare("handoff_manifest_activity_type_at", c_char_p, [ManifestPtr, c_size_t], NOT_NULL)
_declare("handoff_manifest_declare_web_domain", c_int, [ManifestPtr, c_char_p], STATUS)
_declare("handoff_manifest_web_domain_count", c_size_t, [ManifestPtr])
_declare("handoff_manifest_web_domain_at", c_char_p, [ManifestPtr, c_size_t], NOT_NULL)
_declare("handoff_manifest_warning_count", c_size_t, [ManifestPtr])
_declare("handoff_manifest_warning_at", c_char_p, [ManifestPtr, c_size_t], NOT_NULL)

# Applications
_declare("handoff_application_new", ApplicationPtr,
         [ManifestPtr, POINTER(ApplicationDelegate), c_void_p, DestroyFn], NOT_NULL)
_declare("handoff_application_free", None, [ApplicationPtr])
_declare("handoff_application_get_fd", c_int, [ApplicationPtr])
_declare("handoff_application_next_timeout", c_int, [ApplicationPtr])
_declare("handoff_application_dispatch", c_int, [ApplicationPtr], STATUS)
_declare("handoff_application_run", c_int, [ApplicationPtr, c_int], STATUS)
_declare("handoff_application_stop", c_int, [ApplicationPtr], STATUS)
_declare("handoff_application_become_current", c_int, [ApplicationPtr, ActivityPtr], STATUS)
_declare("handoff_application_resign_current", c_int, [ApplicationPtr, ActivityPtr], STATUS)
_declare("handoff_application_copy_current_activity", ActivityPtr, [ApplicationPtr], NOT_NULL)
_declare("handoff_application_continue", c_int, [ApplicationPtr, c_char_p], STATUS)
_declare("handoff_application_get_activation_token", c_char_p, [ApplicationPtr], OPTIONAL)
_declare("handoff_application_delete_saved_activities", c_int,
         [ApplicationPtr, strings, c_size_t, CompletionFn, c_void_p], STATUS)
_declare("handoff_application_delete_all_saved_activities", c_int,
         [ApplicationPtr, CompletionFn, c_void_p], STATUS)

# Remote activities (lent to callbacks; NULL for an absent optional)
_declare("handoff_remote_activity_get_id", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_type", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_title", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_webpage_url", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_device_name", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_device_id", c_char_p, [RemoteActivityPtr], OPTIONAL)
_declare("handoff_remote_activity_get_age", c_double, [RemoteActivityPtr])
_declare("handoff_remote_activity_is_web_only", c_int, [RemoteActivityPtr])
_declare("handoff_remote_activity_supports_continuation_streams", c_int, [RemoteActivityPtr])

# Accounts and continuity
_declare("handoff_account_new", AccountPtr, [], NOT_NULL)
_declare("handoff_account_from_pairing_code", AccountPtr, [c_char_p], NOT_NULL)
_declare("handoff_account_from_key", AccountPtr, [c_char_p, c_size_t], NOT_NULL)
_declare("handoff_account_load", AccountPtr, [c_char_p], NOT_NULL)
_declare("handoff_account_save", c_int, [AccountPtr, c_char_p], STATUS)
_declare("handoff_account_copy_pairing_code", c_void_p, [AccountPtr], NOT_NULL)  # owned
_declare("handoff_account_get_id", c_char_p, [AccountPtr], NOT_NULL)
_declare("handoff_account_free", None, [AccountPtr])
_declare("handoff_application_start_continuity", c_int,
         [ApplicationPtr, POINTER(ContinuityOptions)], STATUS)
_declare("handoff_application_get_continuity_mode", c_int, [ApplicationPtr, c_int_p], STATUS)

# Responders and restoration
_declare("handoff_responder_new", ResponderPtr,
         [ApplicationPtr, POINTER(ResponderCallbacks), c_void_p, DestroyFn], NOT_NULL)
_declare("handoff_responder_free", None, [ResponderPtr])
_declare("handoff_responder_set_user_activity", c_int, [ResponderPtr, ActivityPtr], STATUS)
_declare("handoff_responder_copy_user_activity", ActivityPtr, [ResponderPtr], NOT_NULL)
_declare("handoff_restoration_handler_restore", c_int,
         [RestorationHandlerPtr, POINTER(ResponderPtr), c_size_t], STATUS)
_declare("handoff_restoration_handler_free", None, [RestorationHandlerPtr])

# Documents (paths are bytes: os.fsencode)
_declare("handoff_document_new", DocumentPtr, [ApplicationPtr, c_char_p, c_char_p], NOT_NULL)
_declare("handoff_document_edited", c_int, [DocumentPtr], STATUS)
_declare("handoff_document_saved", c_int, [DocumentPtr], STATUS)
_declare("handoff_document_activity", ActivityPtr, [DocumentPtr], NOT_NULL)
_declare("handoff_document_free", None, [DocumentPtr])
_declare("handoff_url_start_accessing", c_int, [ApplicationPtr, c_char_p, POINTER(c_void_p)], STATUS)
_declare("handoff_url_stop_accessing", c_int, [ApplicationPtr, c_char_p], STATUS)


# ---------------------------------------------------------------- helpers

def take_bytes(pointer: Any, length: int) -> bytes:
    """Copies a buffer the library allocated for us, then frees it."""
    try:
        return ctypes.string_at(pointer, length) if length else b""
    finally:
        lib.handoff_free(pointer)


def text_in(value: str, what: str) -> bytes:
    """A str as the NUL-terminated UTF-8 the C interface takes."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{what} contains a NUL character, which the C interface cannot carry")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{what} is not valid Unicode text ({error.reason} at index "
                         f"{error.start})") from None


def optional_text_in(value: str | None, what: str) -> bytes | None:
    return None if value is None else text_in(value, what)


def text_out(value: bytes | None) -> str | None:
    """A C string from the library (always valid UTF-8) as a str."""
    return None if value is None else value.decode("utf-8")
