# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff pair` by a one-time code (docs/PROTOCOL.md §9 "One-time code")
between network namespaces the tests create and delete (hpair-<pid>-<x>),
real processes on their defaults:

- the sponsor shows the code and the joiner is given it (a headless new
  device), and the other way round: both pair, nobody is asked anything;
- a different valid code: both fail with 4608 and nothing is stored;
- a typo (wrong check digit) is refused before anything is sent;
- a man in the middle holding a code of its own gets nothing.
"""

import subprocess

import pytest

import netns
from cli_support import TOOL, WAIT, Device, Process
from pairing_support import HANDOFF_FAILED, failed_with, outcome
# The topologies and helpers of the comparison's tests.
from test_cli_pair_netns import BEACON_PORT, WINDOW, account_of, chain, link, space, sponsor_and_joiner  # noqa: F401

INVALID_ARGUMENT = 1  # include/handoff.h

DAMM = [
    [0, 3, 1, 7, 5, 9, 8, 6, 4, 2], [7, 0, 9, 2, 1, 5, 4, 8, 6, 3], [4, 2, 0, 6, 8, 7, 1, 3, 5, 9],
    [1, 7, 5, 0, 9, 8, 3, 4, 2, 6], [6, 1, 2, 3, 0, 4, 5, 9, 7, 8], [3, 6, 7, 4, 2, 0, 9, 5, 8, 1],
    [5, 8, 6, 9, 7, 2, 0, 1, 3, 4], [8, 9, 4, 5, 3, 6, 2, 0, 1, 7], [9, 4, 3, 8, 6, 1, 7, 2, 0, 5],
    [2, 5, 8, 1, 4, 3, 6, 7, 9, 0],
]


def with_check_digit(seven):
    interim = 0
    for digit in seven:
        interim = DAMM[interim][int(digit)]
    return f"{seven[:4]}-{seven[4:]}{interim}"


def another_code(code):
    """A valid code other than `code` (the check digit right)."""
    seven = code.replace("-", "")[:7]
    return with_check_digit(f"{(int(seven) + 1) % 10**7:07d}")


def pairing(device, *args):
    """`handoff --json pair ARGS`, standard input closed: nobody answers."""
    proc = Process(device.prefix + [str(TOOL), "--json", "pair", *args], device.env, stdin=subprocess.DEVNULL)
    device.procs.append(proc)
    return proc


def shown_code(proc):
    return proc.event("one-time-code", timeout=WAIT * 2)["code"]


@pytest.mark.parametrize("shower", ["sponsor", "joiner"])
def test_a_code_shown_on_one_device_and_typed_on_the_other_pairs(shower, link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    if shower == "joiner":
        joiner = pairing(j, "--timeout", WINDOW, "--show-code")
        code = shown_code(joiner)
        joiner.event("listening")
        sponsor = pairing(s, "--timeout", WINDOW, "--code", code)
    else:
        sponsor = pairing(s, "--timeout", WINDOW, "--show-code")
        code = shown_code(sponsor)
        sponsor.event("looking")
        joiner = pairing(j, "--timeout", WINDOW, "--code", code)
    assert len(code) == 9 and code[4] == "-", code
    s_status, s_paired = outcome(sponsor)
    j_status, j_paired = outcome(joiner)
    assert (s_status, j_status) == (0, 0), (sponsor.lines, sponsor.stderr, joiner.lines, joiner.stderr)
    assert s_paired["peer"] == "Joiner" and j_paired["peer"] == "Sponsor"
    assert s_paired["account"] == j_paired["account"] == account_of(s) == account_of(j)
    assert j.account_file.read_text() == s.account_file.read_text()
    # Nothing was compared: no code event, no question.
    assert not [e for e in sponsor.events() + joiner.events() if e.get("event") == "code"]


def test_a_different_code_fails_both_and_stores_nothing(link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    before = s.account_file.read_text()
    sponsor = pairing(s, "--timeout", WINDOW, "--show-code")
    code = shown_code(sponsor)
    sponsor.event("looking")
    joiner = pairing(j, "--timeout", WINDOW, "--code", another_code(code))
    error = failed_with(sponsor, HANDOFF_FAILED)
    assert "does not hold this code" in error["message"], error
    failed_with(joiner, HANDOFF_FAILED)
    assert not j.account_file.exists()
    assert s.account_file.read_text() == before


def test_a_typo_is_refused_before_anything_is_sent(link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    code = with_check_digit("1234567")
    digits = code.replace("-", "")
    typo = digits[:3] + str((int(digits[3]) + 1) % 10) + digits[4:]
    joiner = pairing(j, "--timeout", WINDOW, "--code", typo)
    error = failed_with(joiner, INVALID_ARGUMENT)
    assert "typo" in error["message"], error
    assert not [e for e in joiner.events() if e.get("event") == "listening"], "it listened for a sponsor"
    for bad in ("1234", "abcd-efgh"):
        result = j.run("--json", "pair", "--code", bad)
        assert result.code != 0 and "eight digits" in result.err + result.out, result
    assert not j.account_file.exists()


def test_a_man_in_the_middle_with_a_code_of_its_own_gets_nothing(chain, tmp_path, procs):
    """M plays joiner toward S and sponsor toward J, each with a code it
    guessed: each honest side spends its one attempt on M's single guess,
    which is wrong (10^-7), and nothing travels."""
    s, j = sponsor_and_joiner(tmp_path, procs, chain)
    m_sponsor = Device(tmp_path, "m-sponsor", procs, chain["m"])
    m_joiner = Device(tmp_path, "m-joiner", procs, chain["m"])
    assert m_sponsor.run("account", "create").code == 0
    guess = with_check_digit("0000000")

    sponsor = pairing(s, "--timeout", WINDOW, "--show-code")
    code = shown_code(sponsor)
    if code == guess:
        pytest.skip("the one code in ten million M guessed")
    joiner = pairing(j, "--timeout", WINDOW, "--code", code)
    joiner.event("listening")
    evil_sponsor = pairing(m_sponsor, "--timeout", WINDOW, "--interface", "eth1", "--code", guess)
    evil_joiner = pairing(m_joiner, "--timeout", WINDOW, "--no-multicast", "--code", guess,
                          "--peer", f"{netns.subnet(217)}.1:{BEACON_PORT}")
    failed_with(sponsor, HANDOFF_FAILED)
    failed_with(joiner, HANDOFF_FAILED)
    failed_with(evil_sponsor, HANDOFF_FAILED)
    failed_with(evil_joiner, HANDOFF_FAILED)
    assert not j.account_file.exists() and not m_joiner.account_file.exists()
