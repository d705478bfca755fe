# SPDX-License-Identifier: MIT OR Apache-2.0
"""The settings at work between devices (docs/agent.md §11, PROTOCOL.md §7
"Gating"), each changed while the processes run (no restart): a paused
device withdraws its offer and shows nothing; a device not accepted from is
not shown while another still is; a device not offered to has its FETCH
refused with 4608; a muted app is not notified. Devices are processes on
loopback (own beacon ports, unicast peers); B's agent runs on a private
D-Bus with the recording notification server (HANDOFF_FAKE_NOTIFICATIONS),
which logs every Notify and CloseNotification."""
import signal

from agent_desktop import Desktop, wait_for
from cli_support import Device, free_port, loopback, publish

TYPE = "com.example.settings.edit"
TOOL_BUNDLE = "org.libhandoff.handoff"  # what `handoff publish` advertises as


def device_id(device):
    shown = device.run("--json", "device")
    assert shown.code == 0, shown
    return shown.json()["device"]["id"]


def set_(device, *args, env=None):
    result = device.run("--json", "settings", *args, env=env)
    assert result.code == 0, result
    return result.json()


def notifies(desktop, title):
    """The Notify calls for the activity titled `title` (the summary is
    the title)."""
    return [r for r in desktop.notifications()
            if r.get("call") == "Notify" and r.get("summary") == title]


def start_agent(device, desktop, socket_path, own_port, *peer_ports):
    """B's agent; an installed app declares TYPE, so what is offered is notified."""
    desktop.install("org.example.Settings", "org.example.Settings", [TYPE], desktop.root / "app.jsonl")
    peers = [arg for port in peer_ports for arg in ("--peer", f"127.0.0.1:{port}")]
    agent = device.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", own_port, "--no-multicast",
                         *peers, "--channel", "127.0.0.1:0", env=desktop.env(device.env, socket_path))
    agent.expect_stderr('"event":"listening"')
    return agent


def heard(device, socket_path, published):
    """Waits until the agent heard the beacons of the process that published
    `published` (its channel port among the addresses it lists)."""
    env = dict(device.env, HANDOFF_AGENT_SOCKET=str(socket_path))
    suffix = f":{published['channel_port']}"

    def probe():
        status = device.run("--json", "devices", "--agent", env=env)
        assert status.code == 0, status
        return any(addr.endswith(suffix) for d in status.json()["devices"] for addr in d.get("addresses", []))
    assert wait_for(probe, f"the agent hearing {suffix}")


def third_device(a, tmp_path, procs):
    c = Device(tmp_path, "c", procs)
    assert c.run("account", "join", a.run("account", "code").out.strip()).code == 0
    assert c.run("device", "--name", "Device C").code == 0
    return c


def test_paused_device_withdraws_its_offer_and_shows_nothing_until_resumed(pair, tmp_path, procs):
    a, b = pair
    a_watch, a_pub, b_agent, b_pub = free_port(), free_port(), free_port(), free_port()
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(b, desktop, socket_path, b_agent, a_pub)

    # A watches what B offers; B offers something; A offers something B's agent shows.
    watcher = a.spawn("--json", "nearby", "--embedded", *loopback(a_watch, b_pub)[:-2])
    watcher.event("listening")
    b_sender, b_published = publish(b, b_pub, a_watch, "--type", TYPE, "--title", "From B")
    watcher.event("available", id=b_published["id"])
    a_sender, _ = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "From A")
    shown = desktop.notified("From A")

    set_(b, "pause")
    # B's publish engine withdrew its offer; B's agent closed what it showed.
    watcher.event("withdrawn", id=b_published["id"])
    assert wait_for(lambda: desktop.closed(shown["id"]), "the notification closed when B paused")
    # While paused, a new offer of A's is not shown (checked after resuming:
    # it is then shown exactly once, after the resume).
    a_sender.signal(signal.SIGTERM)
    assert a_sender.wait() == 0
    a_sender, paused_offer = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "While paused")
    # B's agent hears A's beacons meanwhile (its table), and still shows nothing.
    heard(b, socket_path, paused_offer)
    assert notifies(desktop, "While paused") == []
    mark = len(desktop.notifications())

    set_(b, "resume")
    again = desktop.notified("While paused")
    assert desktop.notifications().index(again) >= mark
    assert len(notifies(desktop, "While paused")) == 1
    # And A sees B's offer again (B's engine advertises at once on resume).
    watcher.expect(lambda e: e.get("event") == "available" and e.get("id") == b_published["id"]
                   and sum(1 for x in watcher.events() if x.get("event") == "available"
                           and x.get("id") == b_published["id"]) >= 2)
    for proc in (a_sender, b_sender, watcher, agent):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0


def test_accept_off_hides_one_device_and_not_the_others(pair, tmp_path, procs):
    a, b = pair
    c = third_device(a, tmp_path, procs)
    a_pub, b_agent, c_pub = free_port(), free_port(), free_port()
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(b, desktop, socket_path, b_agent, a_pub, c_pub)
    b_env = dict(b.env, HANDOFF_AGENT_SOCKET=str(socket_path))

    a_sender, _ = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "A one")
    first = desktop.notified("A one")
    # By name: the agent hears Device A now.
    rules = set_(b, "device", "device a", "accept", "off", env=b_env)
    assert rules["devices"] == [{"id": device_id(a), "name": "Device A", "offer": True, "accept": False, "history": True}]
    assert wait_for(lambda: desktop.closed(first["id"]), "A's notification closed when B stopped accepting")

    a_sender.signal(signal.SIGTERM)
    assert a_sender.wait() == 0
    a_sender, a_two = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "A two")
    c_sender, _ = publish(c, c_pub, b_agent, "--type", TYPE, "--title", "C one")
    # C is still shown; A's beacons reached the same agent, and A's is not shown.
    desktop.notified("C one")
    heard(b, socket_path, a_two)
    assert notifies(desktop, "A two") == []
    mark = len(desktop.notifications())

    set_(b, "device", device_id(a)[:6], "accept", "on", env=b_env)
    shown = desktop.notified("A two")
    assert desktop.notifications().index(shown) >= mark
    assert len(notifies(desktop, "A two")) == 1
    for proc in (a_sender, c_sender, agent):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0


def test_offer_off_refuses_that_devices_fetch_until_turned_on(pair, ports):
    a, b = pair
    b_sender, published = publish(b, ports[1], ports[0], "--type", TYPE, "--title", "Only for some")
    set_(b, "device", device_id(a), "offer", "off")
    refused = a.run("--json", "continue", published["id"], *loopback(ports[0], ports[1]))
    assert refused.code == 1, refused
    assert "4608" in refused.err and "not offered to this device" in refused.err, refused
    assert not any(e.get("event") == "continued" for e in b_sender.events())

    set_(b, "device", device_id(a), "offer", "on")
    result = a.run("--json", "continue", published["id"], *loopback(ports[0], ports[1]))
    assert result.code == 0, result
    assert result.json()["title"] == "Only for some"
    b_sender.event("continued", id=published["id"])
    b_sender.signal(signal.SIGTERM)
    assert b_sender.wait() == 0


def test_a_muted_app_is_not_notified(pair, tmp_path, procs):
    a, b = pair
    a_pub, b_agent = free_port(), free_port()
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(b, desktop, socket_path, b_agent, a_pub)

    a_sender, _ = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "Before mute")
    first = desktop.notified("Before mute")
    set_(b, "app", TOOL_BUNDLE, "mute")
    assert wait_for(lambda: desktop.closed(first["id"]), "the muted app's notification closed")
    a_sender.signal(signal.SIGTERM)
    assert a_sender.wait() == 0
    a_sender, muted_offer = publish(a, a_pub, b_agent, "--type", TYPE, "--title", "While muted")
    heard(b, socket_path, muted_offer)
    assert notifies(desktop, "While muted") == []
    mark = len(desktop.notifications())
    set_(b, "app", TOOL_BUNDLE, "unmute")
    shown = desktop.notified("While muted")
    assert desktop.notifications().index(shown) >= mark
    assert len([r for r in desktop.notifications() if r.get("call") == "Notify"]) == 2
    for proc in (a_sender, agent):
        proc.signal(signal.SIGTERM)
        assert proc.wait() == 0
