# SPDX-License-Identifier: MIT OR Apache-2.0
"""An app in AUTO mode follows the agent (issue 28 item 3, docs/agent.md §3
"Choosing the mode"), with real processes: the app (examples/agent/
agent_app.py, AUTO, no device-level option) starts while no agent runs and
embeds its engine; device A's agent then starts (its socket's directory did
not exist yet) and the app moves to it by itself: the agent counts it in
STATUS, device B hears the app's activity through A's agent, and the
agent's CHOOSE on A reaches the running app instead of launching a second
copy (the .desktop Exec's log stays empty, the agent logs no launch). When
A's agent stops, the app is embedded again. Over multicast between two
network namespaces (the defaults: no device-level option), device B hears
the app's activity from its engine, then from A's agent, then from its
engine again."""

import os
import signal
import sys
import uuid

import pytest

import netns
from agent_desktop import APP, LIBRARY, TEAM, Desktop, json_lines, wait_for
from cli_support import Process, pair_of_devices
from test_agent_e2e import TYPE, app_event, next_remote_with, start_agent, start_plain_agent
from test_cli_agent import HELLO, WELCOME, LocalClient

ADVERTISE, STATUS, CHOOSE, OK = 3, 16, 17, 13
BUNDLE = "org.example.Follows"


def mode_now(app, log, expected):
    """Asks the app (SIGUSR1) where it runs, until it says `expected` (bounded)."""
    def probe():
        app.signal(signal.SIGUSR1)
        return any(e["event"] == "mode" and e["mode"] == expected for e in json_lines(log))
    return wait_for(probe, f"the app in mode {expected}; its log: {json_lines(log)}")


def verified_port(socket_path, device_id):
    """The channel port at which the agent on `socket_path` verified that
    device, or None."""
    observer = LocalClient(socket_path)
    try:
        observer.hello()
        _, status = observer.request(STATUS, {})
    finally:
        observer.close()
    for remote in status["remotes"]:
        if remote["deviceID"] == device_id and remote["verified"] and remote["addresses"]:
            return int(remote["addresses"][0].rsplit(":", 1)[1])
    return None


def offered_to(socket_path, activity_id):
    """Whether the agent on `socket_path` offers that activity to a new observer."""
    observer = LocalClient(socket_path)
    try:
        observer.hello()
        next_remote_with(observer, activity_id)
        return True
    except TimeoutError:
        return False
    finally:
        observer.close()


def sender_on(socket_path, title):
    """An app on B's agent that advertises an activity of TYPE."""
    sender = LocalClient(socket_path)
    kind, body = sender.request(HELLO, {"protocol": 1, "bundle": "org.example.Sender", "team": TEAM, "types": [TYPE],
                                        "pid": os.getpid()})
    assert kind == WELCOME, body
    activity_id = uuid.uuid4()
    sender.send(ADVERTISE, {"activityID": activity_id.bytes, "type": TYPE, "title": title, "bundle": "org.example.Sender",
                            "team": TEAM, "streams": False})
    return sender, str(activity_id)


def test_an_auto_app_started_before_the_agent_moves_to_it_and_back(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    launch_log, log = tmp_path / "launched.jsonl", tmp_path / "app.jsonl"
    desktop.install(BUNDLE, BUNDLE, [TYPE], launch_log)
    socket_a, socket_b = tmp_path / "run-a" / "agent.sock", tmp_path / "b.sock"  # run-a: made by the agent
    start_plain_agent(b, socket_b, ports[1], ports[0])
    observer_b = LocalClient(socket_b)
    observer_b.hello()

    app = Process([sys.executable, str(APP), "--log", str(log), "--bundle", BUNDLE, "--team", TEAM, f"--type={TYPE}",
                   "--mode", "auto", "--advertise", TYPE, "--info", "n=1"], desktop.env(a.env, socket_a))
    a.procs.append(app)
    assert app_event(log, "connected")["mode"] == "EMBEDDED"
    advertised = app_event(log, "advertising")["id"]

    agent_a = start_agent(a, desktop, socket_a, ports[0], ports[1])
    # Through A's agent: B hears the app's activity, A's STATUS counts it.
    assert next_remote_with(observer_b, advertised)["type"] == TYPE
    mode_now(app, log, "AGENT")
    observer_a = LocalClient(socket_a)
    observer_a.hello()
    kind, status = observer_a.request(STATUS, {})
    assert status["clients"] == 2, status  # the app and this observer

    # The agent's Continue on A reaches the running app: no second copy.
    sender, offered = sender_on(socket_b, "From B")
    remote = next_remote_with(observer_a, offered)
    kind, body = observer_a.request(CHOOSE, {"activityID": remote["activityID"]})
    assert kind == OK, body
    chosen = app_event(log, "will_continue", type=TYPE)
    assert chosen["pid"] == app.proc.pid, chosen
    assert json_lines(launch_log) == [], "the agent launched a second copy"
    assert not any('"event":"launch"' in line for line in agent_a.stderr), agent_a.stderr
    assert [e["event"] for e in json_lines(log)].count("connected") == 1

    # The agent goes: the app embeds its engine again, by itself.
    observer_a.close()
    agent_a.signal(signal.SIGTERM)
    assert agent_a.wait() == 0
    assert next_remote_with(observer_b, advertised, change=2)["type"] == TYPE
    mode_now(app, log, "EMBEDDED")
    assert app.proc.poll() is None, "the app ended"
    sender.close()
    observer_b.close()


@pytest.fixture(scope="module")
def hosts():
    """Namespaces a and b on one veth pair (multicast between them, the
    tool's defaults), deleted after the module (root and iproute2)."""
    netns.require()
    with netns.Namespaces("hfol-") as space:
        names = space.veth(("a", "b"))
        for number, x in enumerate(("a", "b"), start=1):
            netns.address(names[x], f"{netns.subnet(215)}.{number}/24")
        netns.wait_up([names["a"], names["b"]])
        yield names


def test_over_multicast_the_other_device_hears_the_app_embedded_then_through_the_agent_then_embedded(hosts, tmp_path,
                                                                                                    procs):
    """No device-level option anywhere: the app's engine, then A's agent,
    then the app's engine again each advertise its activity to B."""
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    socket_a, socket_b = tmp_path / "run-a" / "agent.sock", tmp_path / "b.sock"
    b.spawn("--json", "agent", "--no-notifications", "--socket", socket_b).expect_stderr('"event":"listening"')
    observer_b = LocalClient(socket_b)
    observer_b.hello()
    log = tmp_path / "app.jsonl"
    env = dict(a.env, HANDOFF_AGENT_SOCKET=str(socket_a), HANDOFF_LIBRARY=str(LIBRARY))
    app = Process(a.prefix + [sys.executable, str(APP), "--log", str(log), "--bundle", BUNDLE, "--team", TEAM,
                              f"--type={TYPE}", "--mode", "auto", "--advertise", TYPE, "--info", "n=1"], env)
    a.procs.append(app)
    assert app_event(log, "connected")["mode"] == "EMBEDDED"
    advertised = app_event(log, "advertising")["id"]
    next_remote_with(observer_b, advertised)  # from the app's engine

    agent_a = a.spawn("--json", "agent", "--no-notifications", "--socket", socket_a)
    agent_a.expect_stderr('"event":"listening"')
    mode_now(app, log, "AGENT")
    observer_a = LocalClient(socket_a)
    observer_a.hello()
    _, status_a = observer_a.request(STATUS, {})
    observer_a.close()
    agent_port, device_a = status_a["channelPort"], status_a["deviceID"]
    # B now reaches the activity at A's agent. Whether it heard the
    # engine's withdrawal in between depends on which sender it verified
    # first (two senders with one device id for a moment); what matters is
    # that the activity stays offered and its channel is the agent's.
    wait_for(lambda: verified_port(socket_b, device_a) == agent_port, "B verifies A at its agent's channel")
    assert offered_to(socket_b, advertised)

    agent_a.signal(signal.SIGTERM)
    assert agent_a.wait() == 0
    mode_now(app, log, "EMBEDDED")
    # The agent said it left: B forgets A, then hears the app's engine again.
    wait_for(lambda: verified_port(socket_b, device_a) not in (None, agent_port), "B verifies A at the app's engine again")
    wait_for(lambda: offered_to(socket_b, advertised), "B offered the activity by the app's engine again")
    observer_b.close()
