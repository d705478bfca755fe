# SPDX-License-Identifier: MIT OR Apache-2.0
"""Beacons from Python, as docs/PROTOCOL.md §5 defines them: the beacon
key (HKDF-SHA256, §4), the plaintext layout, and AES-256-GCM through the
system's libcrypto (ctypes), so tests can read a sender's beacons and
play a device that holds the key."""

import ctypes
import ctypes.util
import os
import struct

from keys import derive

AAD = b"libhandoff beacon v1"
ADVERT, WITHDRAW, SOLICIT = 1, 2, 3

_lib = ctypes.CDLL(ctypes.util.find_library("crypto") or "libcrypto.so.3")
_lib.EVP_CIPHER_CTX_new.restype = ctypes.c_void_p
_lib.EVP_aes_256_gcm.restype = ctypes.c_void_p
for _name in ("EVP_EncryptInit_ex", "EVP_DecryptInit_ex"):
    getattr(_lib, _name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_char_p, ctypes.c_char_p]
for _name in ("EVP_EncryptUpdate", "EVP_DecryptUpdate"):
    getattr(_lib, _name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                     ctypes.c_char_p, ctypes.c_int]
for _name in ("EVP_EncryptFinal_ex", "EVP_DecryptFinal_ex"):
    getattr(_lib, _name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
_lib.EVP_CIPHER_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
_lib.EVP_CIPHER_CTX_free.argtypes = [ctypes.c_void_p]
_GET_TAG, _SET_TAG = 0x10, 0x11


def beacon_key(account_key):
    """HKDF-SHA256(account key, salt "libhandoff v1", info "beacon key")."""
    return derive(account_key, b"beacon key")


def seal(key, plaintext, nonce=None):
    nonce = nonce or os.urandom(12)
    ctx = _lib.EVP_CIPHER_CTX_new()
    try:
        out = ctypes.create_string_buffer(len(plaintext) + 16)
        n = ctypes.c_int(0)
        assert _lib.EVP_EncryptInit_ex(ctx, _lib.EVP_aes_256_gcm(), None, key, nonce) == 1
        assert _lib.EVP_EncryptUpdate(ctx, None, ctypes.byref(n), AAD, len(AAD)) == 1
        assert _lib.EVP_EncryptUpdate(ctx, out, ctypes.byref(n), plaintext, len(plaintext)) == 1
        assert _lib.EVP_EncryptFinal_ex(ctx, out, ctypes.byref(n)) == 1
        tag = ctypes.create_string_buffer(16)
        assert _lib.EVP_CIPHER_CTX_ctrl(ctx, _GET_TAG, 16, tag) == 1
        return nonce + out.raw[:len(plaintext)] + tag.raw
    finally:
        _lib.EVP_CIPHER_CTX_free(ctx)


def open_packet(key, packet):
    """The plaintext, or None when the packet does not authenticate."""
    if len(packet) < 28 + 64:
        return None
    nonce, body, tag = packet[:12], packet[12:-16], packet[-16:]
    ctx = _lib.EVP_CIPHER_CTX_new()
    try:
        out = ctypes.create_string_buffer(len(body) + 16)
        n = ctypes.c_int(0)
        tag_buffer = ctypes.create_string_buffer(tag, 16)
        if (_lib.EVP_DecryptInit_ex(ctx, _lib.EVP_aes_256_gcm(), None, key, nonce) != 1
                or _lib.EVP_DecryptUpdate(ctx, None, ctypes.byref(n), AAD, len(AAD)) != 1
                or _lib.EVP_DecryptUpdate(ctx, out, ctypes.byref(n), body, len(body)) != 1
                or _lib.EVP_CIPHER_CTX_ctrl(ctx, _SET_TAG, 16, tag_buffer) != 1
                or _lib.EVP_DecryptFinal_ex(ctx, out, ctypes.byref(n)) != 1):
            return None
        return out.raw[:len(body)]
    finally:
        _lib.EVP_CIPHER_CTX_free(ctx)


def _str(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def plaintext(kind, timestamp, sequence, device_id, name, channel_port, activity=None):
    """The padded plaintext. `activity` (adverts): dict with id (16 bytes),
    type, title, team, bundle."""
    flags = 0x02 if activity else 0
    p = bytes([1, kind, 1, flags]) + struct.pack(">QQ", timestamp, sequence) + device_id
    p += struct.pack(">H", channel_port) + _str(name)
    if activity:
        p += activity["id"] + _str(activity["type"]) + _str(activity.get("title", ""))
        p += _str(activity["team"]) + _str(activity["bundle"]) + _str("") + struct.pack(">Q", 0)
    return p + bytes((64 - len(p) % 64) % 64)


def parse(p):
    """kind, timestamp (ms), sequence, device id of a plaintext."""
    kind = p[1]
    timestamp, sequence = struct.unpack(">QQ", p[4:20])
    return kind, timestamp, sequence, p[20:36]
