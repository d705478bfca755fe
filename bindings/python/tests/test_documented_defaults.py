# SPDX-License-Identifier: MIT OR Apache-2.0
"""start_continuity's documented defaults are the library's: its docstring
and the README's options table say what the header says (include/handoff.h,
handoff_continuity_options, whose zero fields the library fills in). Both
had drifted once ("0.0.0.0:0" and 30 s against "[::]:0" and 10 s)."""

import re

import pytest

from conftest import BINDING, REPO
import handoff


def flat(text: str) -> str:
    """A C comment or docstring as one line: no comment stars, single spaces."""
    return re.sub(r"\s+", " ", re.sub(r"\n\s*\*(?!/)", " ", text))


HEADER = flat((REPO / "include" / "handoff.h").read_text())

# Python option: (what the header says its zero field means, how to turn
# the header's figure into the option's unit).
HEADER_DEFAULTS = {
    "beacon_port": (r"UDP port of the discovery beacons; 0: (\d+)\.", int),
    "channel_address": (r'Address the TLS channel listens on, "host:port"; NULL: "([^"]+)"',
                        lambda text: f'"{text}"'),
    "fetch_timeout": (r"HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT; 0: (\d+) ms", lambda ms: int(ms) / 1000),
    "connect_timeout": (r"Time to connect to a device \(TCP\), and as much again to authenticate it \(the TLS handshake\); 0: (\d+) ms",
                        lambda ms: int(ms) / 1000),
    "connection_reuse": (r"kept for the next handoff \(which then skips the handshake\); 0: (\d+) ms",
                         lambda ms: int(ms) / 1000),
}


def header_default(option: str) -> str:
    pattern, convert = HEADER_DEFAULTS[option]
    found = re.search(pattern, HEADER)
    assert found, f"the header no longer says {pattern!r}: update this test"
    value = convert(found.group(1))
    return f"{value:g}" if isinstance(value, float) else str(value)


@pytest.mark.parametrize("option", sorted(HEADER_DEFAULTS))
def test_the_docstring_states_the_headers_default(option):
    default = header_default(option)
    doc = flat(handoff.Application.start_continuity.__doc__)
    stated = re.search(rf"\b{option}\b[^;]*?\(None: ([^,;)]+)", doc)
    assert stated, f"the docstring gives no default for {option}"
    assert stated.group(1) == default, \
        f"docstring: {option} None is {stated.group(1)}; the library's default is {default}"


@pytest.mark.parametrize("option", sorted(HEADER_DEFAULTS))
def test_the_readme_states_the_headers_default(option):
    default = header_default(option)
    readme = (BINDING / "README.md").read_text()
    row = re.search(rf"^\| `{option}` \| `None`: `([^`]+)`", readme, re.M)
    assert row, f"README's options table has no row for {option} with its default"
    assert row.group(1) == default, \
        f"README: {option} None is {row.group(1)}; the library's default is {default}"
