# SPDX-License-Identifier: MIT OR Apache-2.0
"""A device of the account answers FETCH with a decoding bomb: a 6.3 KB
binary plist whose arrays share references (1000 x 1000 x one 4 KB data
leaf). The receiver refuses it in memory proportional to its size, and
keeps handing off with the genuine sender (issue 13 item 4)."""

from attacks import assert_survived, under_attack
from victims import BOMB_TYPE


def test_shared_reference_bomb_is_refused_cheaply(pair, attack, record):
    rport = pair.ports["receiver"]

    def bomb_continued(attacker):
        # The receiver continues the bomb's activity (it continues every
        # one): wait until it has refused it, or died trying.
        r = pair.receiver
        r.wait_for("will-continue", timeout=30, type=BOMB_TYPE)
        for _ in range(600):
            if r.matches("failed", type=BOMB_TYPE) or r.matches("continued", type=BOMB_TYPE) \
                    or not r.alive():
                break
            r.settle(0.1)

    out = under_attack(
        pair, lambda: attack("bomb-server", "--listen", "127.0.0.3:%d" % pair.ports["channel"],
                             "--bind", "127.0.0.3", "--to", "127.0.0.1:%d" % rport,
                             "--type", BOMB_TYPE, "--seconds", 110),
        record, "bomb-server 1000x1000x4KB", after_engaged=bomb_continued)
    r = pair.receiver
    assert int(out.result["bytes"]) < 6400, out.result  # 6.3 KB
    assert int(out.result["fetches_served"]) >= 1, out.result
    assert r.matches("continued", type=BOMB_TYPE) == [], "the bomb was accepted"
    failed = r.matches("failed", type=BOMB_TYPE)
    assert failed and failed[0]["code"] in ("4611", "4608"), r.transcript()[-2000:]
    assert_survived(out)
