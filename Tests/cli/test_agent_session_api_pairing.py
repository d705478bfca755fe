# SPDX-License-Identifier: MIT OR Apache-2.0
"""Pair() of the agent's session-bus API (docs/agent.md §15), and clients
that leave the bus, as a front end that stays on the bus uses it
(Tests/cli/api_client.py, a real Gio client): a device with an account
runs `handoff agent` on a private dbus-daemon; a new device runs
`handoff --json pair` on loopback.

- Pair() gives a org.libhandoff.Pairing1 object; its Digits becomes the
  code the new device shows; Confirm (and y on the new device) pairs;
  Finished(true, "paired with Joiner") follows and the object is gone.
- One front end pairs at a time; the object dies with its caller
  (NameOwnerChanged), and another front end can pair then.
- A client that calls Continue and leaves before the reply: the app is
  launched with its token all the same, Continued goes to whoever
  listens, and the agent answers on."""

import os
import subprocess
from pathlib import Path

from agent_desktop import Desktop, kill_apps, wait_for
from cli_support import WAIT, Process, free_port, publish
from pairing_support import answer, outcome
from test_agent_e2e import TYPE, app_event
from test_agent_pairing import joiner, sponsor_agent
from test_agent_session_api import IFACE, NAME, Monitor, assert_introspects_as_documented, owner, prop, start

CLIENT = Path(__file__).with_name("api_client.py")
SYSTEM_PYTHON = "/usr/bin/python3"  # the one with python3-gi (scripts/install-deps.sh)


def client(desktop, procs):
    proc = Process([SYSTEM_PYTHON, str(CLIENT), desktop.address], os.environ, stdin=subprocess.PIPE)
    procs.append(proc)
    proc.event("ready")
    return proc


def exists(address, path):
    done = subprocess.run(["busctl", f"--address={address}", "get-property", NAME, path, "org.libhandoff.Pairing1",
                           "Digits"], capture_output=True, text=True, timeout=WAIT)
    return done.returncode == 0


def test_the_pairing_object_shows_the_digits_and_confirm_pairs(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    s, agent = sponsor_agent(tmp_path, procs, desktop, port)
    wait_for(lambda: owner(desktop.address), f"{NAME} owned")
    front = client(desktop, procs)
    answer(front, "pair")
    path = front.event("pairing")["path"]
    assert path.startswith("/org/libhandoff/Agent/Pairing/"), path
    assert exists(desktop.address, path)
    assert_introspects_as_documented(desktop.address, path, "org.libhandoff.Pairing1")
    j, new = joiner(tmp_path, procs, "Joiner", port, 90)
    code = new.event("code", timeout=WAIT * 2)
    front.event("digits", digits=code["text"], timeout=WAIT * 2)
    answer(front, "confirm")
    front.event("ok", call="confirm")
    answer(new, "y")
    status, paired = outcome(new)
    assert status == 0 and paired["event"] == "paired" and paired["peer"] == "Sponsor", (new.lines, new.stderr)
    assert j.account_file.read_text() == s.account_file.read_text()
    finished = front.event("finished", path=path)
    assert finished["paired"] is True and finished["message"] == "paired with Joiner", finished
    wait_for(lambda: not exists(desktop.address, path), "the pairing object gone after Finished")
    assert len([e for e in front.events() if e["event"] == "finished"]) == 1


def test_one_front_end_pairs_at_a_time_and_its_object_dies_with_it(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    s, agent = sponsor_agent(tmp_path, procs, desktop, free_port())
    wait_for(lambda: owner(desktop.address), f"{NAME} owned")
    first, second = client(desktop, procs), client(desktop, procs)
    answer(first, "pair")
    path = first.event("pairing")["path"]
    answer(second, "pair")
    refused = second.event("error", call="Pair")
    assert refused["name"] == f"{IFACE}.Error.Failed" and "another front end" in refused["message"], refused
    # The same caller asking again gets the same object.
    answer(first, "pair")
    assert first.event("pairing", n=2)["path"] == path
    answer(first, "confirm")
    assert first.event("error", call="Confirm")["name"] == f"{IFACE}.Error.Failed"  # nothing to confirm yet
    answer(first, "quit")
    assert first.proc.wait(timeout=WAIT) == 0
    wait_for(lambda: not exists(desktop.address, path), "the pairing object gone with its caller")
    answer(second, "pair")
    other = second.event("pairing")["path"]
    assert other != path and exists(desktop.address, other)
    answer(second, "cancel")
    second.event("ok", call="cancel")
    finished = second.event("finished", path=other)
    assert finished["paired"] is False and finished["message"] == "cancelled", finished
    wait_for(lambda: not exists(desktop.address, other), "the cancelled pairing object gone")
    assert agent.proc.poll() is None


def test_a_client_that_leaves_mid_call_costs_nothing(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.Gone", "org.example.Gone", [TYPE], app_log)
    try:
        agent = start(b, desktop, tmp_path, ports)
        monitor = Monitor(desktop.address, procs, tmp_path / "monitor.txt")
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Left behind")
        offer = wait_for(lambda: prop(desktop.address, "Offers") or None, "the offer in Offers")[0]
        front = client(desktop, procs)
        answer(front, f"continue-and-leave {offer['id']} token-of-a-gone-client")
        front.event("left")
        assert front.proc.wait(timeout=WAIT) == 0
        connected = app_event(app_log, "connected")
        assert connected["activation_token"] == "token-of-a-gone-client", connected
        assert app_event(app_log, "continue", type=TYPE)["title"] == "Left behind"
        sender.event("continued", id=published["id"])
        continued = wait_for(lambda: monitor.heard("Continued") or None, "Continued")
        assert continued[0][:2] == [f'string "{offer["id"]}"', "boolean true"], continued
        assert prop(desktop.address, "State") == "running" and agent.proc.poll() is None
    finally:
        kill_apps(app_log)
