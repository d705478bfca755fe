# SPDX-License-Identifier: MIT OR Apache-2.0
"""handoff_continuity_options from start_continuity's keyword arguments."""

from __future__ import annotations

import ctypes
import math

from . import _ffi
from .account import Account, ContinuityMode, DeviceRole

TYPE_CHECKING = False  # typing costs milliseconds at import; annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

_INT_MAX = 2 ** 31 - 1


def _milliseconds(seconds: float | None, what: str, never: int = 0) -> int:
    """Seconds as the struct's milliseconds; None: the default (0)."""
    if seconds is None:
        return 0
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"{what} is a number of seconds, not {type(seconds).__name__}")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{what} must be a finite number of seconds >= 0, not {seconds!r}")
    if seconds == 0:
        if never:
            return never
        raise ValueError(f"{what} must be more than 0 seconds (None takes the default)")
    return max(1, min(_INT_MAX, round(seconds * 1000)))


def options(account: Account, *, device_id: str | None = None, device_name: str | None = None,
            role: DeviceRole = DeviceRole.FULL, beacon_port: int | None = None,
            multicast: bool = True, peers: Iterable[str] = (),
            channel_address: str | None = None, fetch_timeout: float | None = None,
            connect_timeout: float | None = None,
            connection_reuse: float | None = None,
            mode: ContinuityMode = ContinuityMode.AUTO) -> tuple[Any, list]:
    """The struct, and the objects it points into (keep them for the call)."""
    if not isinstance(account, Account):
        raise TypeError(f"account is an Account, not {type(account).__name__}")
    if not isinstance(role, DeviceRole):
        raise TypeError(f"role is a DeviceRole, not {type(role).__name__}")
    if not isinstance(mode, ContinuityMode):
        raise TypeError(f"mode is a ContinuityMode, not {type(mode).__name__}")
    if beacon_port is not None:
        if isinstance(beacon_port, bool) or not isinstance(beacon_port, int):
            raise TypeError(f"beacon_port is an int, not {type(beacon_port).__name__}")
        if not 1 <= beacon_port <= 65535:
            raise ValueError(f"beacon_port {beacon_port} is not a UDP port (1-65535)")
    if isinstance(peers, str):
        raise TypeError('peers takes a collection of "host:port" strings, not a single str')
    encoded_peers = [_ffi.text_in(p, "a peer") for p in peers]
    peer_array = (ctypes.c_char_p * len(encoded_peers))(*encoded_peers)

    o = _ffi.sized(_ffi.ContinuityOptions)
    o.account = account._live()
    o.device_id = _ffi.optional_text_in(device_id, "device_id")
    o.device_name = _ffi.optional_text_in(device_name, "device_name")
    o.role = int(role)
    o.beacon_port = beacon_port or 0
    o.disable_multicast = 0 if multicast else 1
    o.peers = ctypes.cast(peer_array, ctypes.POINTER(ctypes.c_char_p)) if encoded_peers else None
    o.peer_count = len(encoded_peers)
    o.channel_address = _ffi.optional_text_in(channel_address, "channel_address")
    o.fetch_timeout_ms = _milliseconds(fetch_timeout, "fetch_timeout")
    o.connect_timeout_ms = _milliseconds(connect_timeout, "connect_timeout")
    # 0 s of reuse: never keep a connection (the struct's negative value).
    o.connection_reuse_ms = _milliseconds(connection_reuse, "connection_reuse", never=-1)
    o.mode = int(mode)
    return o, [account, peer_array, encoded_peers]
