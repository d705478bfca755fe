# SPDX-License-Identifier: MIT OR Apache-2.0
"""One device, one offer (issue #28 item 3; docs/agent.md §4, PROTOCOL.md §5
"Receiving" step 7). Device A runs `handoff agent`; an app on A advertises
through it; then `handoff publish` on A. Device B runs an agent on a private
D-Bus with a fake notification server. B must show A's most recent activity
and not alternate: its Notify and CloseNotification calls are counted over a
window of several keep-alives (a count bound, not a timing).

- publish finds A's agent and goes through it (one engine per device
  identity): the hub's most-recent rule decides what A advertises.
- publish forced to run its own engine with A's identity (--embedded, a
  second sender claiming A's device ID): B's receive rule keeps the offer
  that changed last."""

import signal
import time

from agent_desktop import TEAM, Desktop, wait_for
from cli_support import free_port, loopback
from test_agent_e2e import start_agent

TYPE = "com.example.oneoffer.edit"
# Three keep-alives (4 s) of both senders after the last change.
WINDOW = 13


def start_device_agent(device, socket_path, own_port, peer_port):
    """A's agent: no notifications, its socket where A's apps find it."""
    env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path))
    agent = device.spawn("--json", "agent", "--no-notifications", "--socket", socket_path,
                         *loopback(own_port, peer_port), env=env)
    agent.expect_stderr('"event":"listening"')
    return agent, env


def receiving_desktop(tmp_path, procs):
    """B's session: an installed app that continues TYPE, so B's agent offers it."""
    desktop = Desktop(tmp_path / "desktop", procs)
    desktop.install("org.example.OneOffer", "org.example.OneOffer", [TYPE], tmp_path / "app.jsonl")
    return desktop


def counts(desktop):
    calls = [r.get("call") for r in desktop.notifications()]
    return calls.count("Notify"), calls.count("CloseNotification")


def shown(desktop, title):
    return desktop.notified(title)["id"]


def app_on_a_through_its_agent(a, b, ports, tmp_path, procs):
    """B's agent showing what arrives; A's agent, and an app on A
    publishing "App draft" through it."""
    desktop = receiving_desktop(tmp_path, procs)
    agent_b = start_agent(b, desktop, tmp_path / "b-run" / "agent.sock", ports[1], ports[0])
    agent_a, env_a = start_device_agent(a, tmp_path / "a-run" / "agent.sock", ports[0], ports[1])
    app = a.spawn("--json", "publish", "--team", TEAM, "--type", TYPE, "--title", "App draft", env=env_a)
    assert app.event("publishing")["via"] == "agent"
    return desktop, agent_b, agent_a, env_a, app


def test_publish_goes_through_the_agent_and_the_receiver_shows_one_offer(pair, ports, tmp_path, procs):
    a, b = pair
    desktop, agent_b, agent_a, env_a, app = app_on_a_through_its_agent(a, b, ports, tmp_path, procs)
    first = shown(desktop, "App draft")

    tool = a.spawn("--json", "publish", "--team", TEAM, "--type", TYPE, "--title", "Published", env=env_a)
    event = tool.event("publishing")
    assert event["via"] == "agent" and "beacon_port" not in event, event
    shown(desktop, "Published")
    assert wait_for(lambda: any(r.get("call") == "CloseNotification" and r.get("id") == first
                                for r in desktop.notifications()), "the app's notification closed")
    time.sleep(WINDOW)
    assert counts(desktop) == (2, 1), desktop.notifications()

    # publish ends: A falls back to the app's activity (the hub's rule), shown again once.
    tool.signal(signal.SIGTERM)
    assert tool.wait() == 0
    wait_for(lambda: counts(desktop)[0] >= 3, f"the app's activity shown again; got {desktop.notifications()}")
    time.sleep(WINDOW)
    notify, close = counts(desktop)
    assert notify == 3 and close == 2, desktop.notifications()
    for proc in (app, agent_a, agent_b):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0


def test_a_second_sender_with_the_devices_identity_does_not_make_the_receiver_alternate(pair, ports, tmp_path, procs):
    a, b = pair
    desktop, agent_b, agent_a, env_a, app = app_on_a_through_its_agent(a, b, ports, tmp_path, procs)
    shown(desktop, "App draft")

    # As an older release did: an engine of its own, with A's identity.
    tool = a.spawn("--json", "publish", "--embedded", *loopback(free_port(), ports[1]),
                   "--team", TEAM, "--type", TYPE, "--title", "Published", env=env_a)
    assert tool.event("publishing")["via"] == "embedded"
    shown(desktop, "Published")
    time.sleep(WINDOW)
    assert counts(desktop) == (2, 1), desktop.notifications()

    for proc in (tool, app, agent_a, agent_b):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0
