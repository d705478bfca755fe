# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent sponsoring a pairing (docs/agent.md §9), as a person meets it:
a device with an account runs `handoff agent` on a private D-Bus with the
fake notification server; a new device runs `handoff --json pair` on
loopback (unicast beacons to the agent's beacon port). The agent runs the
protocol up to the comparison code and only then shows one notification
"Pair a new device?" with the code the joiner shows; the test clicks as
the person would.

- "Pair" and y on the joiner: both succeed, the joiner holds the account;
- "Not now": the joiner fails with 4608 and stores nothing;
- three joiners at once, pairing-beacon floods and garbage from other
  loopback addresses: exactly one notification (one pairing at a time, one
  question per address every 30 s, longer than the other joiners' windows).
"""

import os
import random
import socket
import subprocess
import threading

from agent_desktop import Desktop, json_lines
from cli_support import TOOL, WAIT, Device, Process, free_port
from pairing_support import HANDOFF_FAILED, TIMED_OUT, answer, failed_with, outcome

PROMPT = "Pair a new device?"
MAGIC = b"HOFFPAIR"


def sponsor_agent(tmp_path, procs, desktop, own_port):
    s = Device(tmp_path, "sponsor", procs)
    assert s.run("account", "create").code == 0
    assert s.run("device", "--name", "Sponsor").code == 0
    socket_path = tmp_path / "run" / "agent.sock"
    agent = s.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", own_port, "--no-multicast", "--peer", f"127.0.0.1:{free_port()}",
                    "--channel", "127.0.0.1:0", env=desktop.env(s.env, socket_path))
    agent.expect_stderr('"event":"listening"')
    return s, agent


def joiner(tmp_path, procs, name, agent_port, timeout):
    j = Device(tmp_path, name, procs)
    assert j.run("device", "--name", name).code == 0
    proc = Process([str(TOOL), "--json", "pair", "--timeout", str(timeout), "--beacon-port", str(free_port()),
                    "--no-multicast", "--peer", f"127.0.0.1:{agent_port}", "--listen", "127.0.0.1:0"],
                   j.env, stdin=subprocess.PIPE)
    procs.append(proc)
    return j, proc


def asking(name, code):
    """The prompt's body: the name the joiner calls itself (its named
    beacon, PROTOCOL.md §9), said as a claim, beside the code."""
    return f"A device calling itself \u201c{name}\u201d asks to join. Compare: {code['text']}"


def prompts(desktop):
    return [n for n in desktop.notifications() if n.get("call") == "Notify" and n.get("summary") == PROMPT]


def test_pair_on_the_notification_and_y_on_the_joiner_pairs(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    s, agent = sponsor_agent(tmp_path, procs, desktop, port)
    j, new = joiner(tmp_path, procs, "Joiner", port, 90)
    code = new.event("code", timeout=WAIT * 2)
    shown = desktop.notified(PROMPT)
    assert shown["body"] == asking("Joiner", code), (shown, code)
    assert shown["actions"] == ["pair", "Pair", "not-now", "Not now"], shown
    desktop.click(shown["id"], "pair")
    answer(new, "y")
    status, paired = outcome(new)
    assert status == 0 and paired["event"] == "paired" and paired["role"] == "joiner", (new.lines, new.stderr)
    assert paired["peer"] == "Sponsor"
    assert j.account_file.read_text() == s.account_file.read_text()
    assert desktop.notified("Paired with Joiner")
    agent.expect_stderr('"event":"paired"')
    assert len(prompts(desktop)) == 1


def test_not_now_fails_the_joiner_and_stores_nothing(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    s, agent = sponsor_agent(tmp_path, procs, desktop, port)
    j, new = joiner(tmp_path, procs, "Joiner", port, 90)
    code = new.event("code", timeout=WAIT * 2)
    shown = desktop.notified(PROMPT)
    assert shown["body"] == asking("Joiner", code)
    desktop.click(shown["id"], "not-now")
    # The joiner's person never answers: the sponsor's no ends it.
    failed_with(new, HANDOFF_FAILED)
    assert not j.account_file.exists()
    agent.expect_stderr('"event":"pairing-ended"')
    assert not any(n.get("summary", "").startswith("Paired with") for n in desktop.notifications())
    assert len(prompts(desktop)) == 1


def flood(port, stop, counts):
    """Pairing beacons for sessions nobody serves (closed ports), pairing
    beacons cut short or padded wrongly, and random garbage, from
    127.0.0.2-127.0.0.41, until `stop` is set (bounded)."""
    senders = []
    for last in range(2, 42):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((f"127.0.0.{last}", 0))
        senders.append(sock)
    dead = free_port()
    rng = random.Random(os.getpid())
    try:
        for round_ in range(5000):
            if stop.is_set():
                break
            for sock in senders:
                beacon = MAGIC + bytes([1, 1, dead >> 8, dead & 0xff]) + rng.randbytes(16) + bytes(68)
                kind = round_ % 4
                packet = (beacon if kind == 0 else beacon[:95] if kind == 1
                          else beacon[:-1] + b"\x01" if kind == 2 else rng.randbytes(rng.randrange(1, 200)))
                sock.sendto(packet, ("127.0.0.1", port))
                counts[0] += 1
            stop.wait(0.02)
    finally:
        for sock in senders:
            sock.close()


def test_a_flood_and_three_joiners_make_one_notification(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    s, agent = sponsor_agent(tmp_path, procs, desktop, port)
    stop, counts = threading.Event(), [0]
    flooder = threading.Thread(target=flood, args=(port, stop, counts), daemon=True)
    flooder.start()
    try:
        j, first = joiner(tmp_path, procs, "Joiner0", port, 90)
        code = first.event("code", timeout=WAIT * 2)
        shown = desktop.notified(PROMPT)
        # The flood spends the sponsor's overall beacon budget, so the
        # joiner's named beacon may be the one dropped and its plain one
        # the one heard (PROTOCOL.md §9): then the code stands alone,
        # never another device's name.
        assert shown["body"] in (asking("Joiner0", code), f"Compare: {code['text']}"), (shown, code)
        # Two more from the same address while the question is open: not
        # heard until 30 s after it, and their windows (15 s) end before.
        others = [joiner(tmp_path, procs, f"Joiner{i}", port, 15) for i in (1, 2)]
        for _, other in others:
            other.event("listening")
        desktop.click(shown["id"], "pair")
        answer(first, "y")
        status, paired = outcome(first)
        assert status == 0 and paired["event"] == "paired", (first.lines, first.stderr)
        assert j.account_file.read_text() == s.account_file.read_text()
        for other_device, other in others:
            status, last = outcome(other)
            assert status == 1 and last["error"]["code"] == TIMED_OUT, (other.lines, other.stderr)
            assert not other_device.account_file.exists()
    finally:
        stop.set()
        flooder.join(timeout=WAIT)
    assert counts[0] > 0
    assert desktop.notified("Paired with Joiner0")
    assert len(prompts(desktop)) == 1, prompts(desktop)


def test_a_joiner_waiting_for_a_one_time_code_is_left_alone(tmp_path, procs):
    """A joiner run by a one-time code (beacon kind 2) is the business of
    the `handoff pair --code` the person runs on this device, not the
    agent's: no run, no notification; then a comparison joiner is still
    sponsored as before."""
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    s, agent = sponsor_agent(tmp_path, procs, desktop, port)
    j = Device(tmp_path, "Headless", procs)
    assert j.run("device", "--name", "Headless").code == 0
    waiting = Process([str(TOOL), "--json", "pair", "--timeout", "4", "--code", "4711-0828", "--beacon-port", str(free_port()),
                       "--no-multicast", "--peer", f"127.0.0.1:{port}", "--listen", "127.0.0.1:0"], j.env)
    procs.append(waiting)
    waiting.event("listening")
    failed_with(waiting, TIMED_OUT)
    assert not j.account_file.exists()
    assert prompts(desktop) == []
    j2, new = joiner(tmp_path, procs, "Joiner", port, 90)
    code = new.event("code", timeout=WAIT * 2)
    assert desktop.notified(PROMPT)["body"] == asking("Joiner", code)
