# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the example apps share to reach each other with no set-up: the
handoff package (from the source checkout when it is not installed), an
embedded demo account, and loopback unicast peers.

Defaults: the sender's beacons on UDP 52390, the receiver's on 52391, each
the other's peer on 127.0.0.1. Override with --port/--peer, or use
--multicast between machines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import handoff
except ModuleNotFoundError as error:  # not installed: use the checkout's copy
    if error.name != "handoff":
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
    import handoff

SENDER_PORT = 52390
RECEIVER_PORT = 52391

# DEMO ONLY: a published key (the one examples/c/mapoff.c embeds), so
# anyone running the demo shares this "account". A real app loads the
# person's account: handoff.Account.load().
DEMO_ACCOUNT_KEY = b"libhandoff demo account key v1\x00\x01"


def arguments(description: str, sending: bool) -> argparse.ArgumentParser:
    own, other = (SENDER_PORT, RECEIVER_PORT) if sending else (RECEIVER_PORT, SENDER_PORT)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=own,
                        help=f"UDP port of this app's beacons (default {own})")
    parser.add_argument("--peer", action="append",
                        help=f"host:port of the other app's beacons (default 127.0.0.1:{other})")
    parser.add_argument("--multicast", action="store_true",
                        help="also find devices by multicast on the local network")
    parser.add_argument("--timeout", type=float, default=20,
                        help="give up after this many seconds (default 20)")
    parser.set_defaults(default_peer=f"127.0.0.1:{other}")
    return parser


def start(app: "handoff.Application", options: argparse.Namespace, device_name: str) -> None:
    """Starts continuity on the demo account."""
    account = handoff.Account.from_key(DEMO_ACCOUNT_KEY)
    app.start_continuity(account, device_name=device_name, beacon_port=options.port,
                         multicast=options.multicast,
                         peers=options.peer or [options.default_peer])
    account.close()  # the application keeps its own copy
