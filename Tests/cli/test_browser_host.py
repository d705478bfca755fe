# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browser bridge's host end to end (issue 25, docs/browser.md):
device A and device B each run an agent (loopback, private session buses
with the fake notification server) and a `handoff browser-host` spoken to
as a browser speaks to it. A's focused tab becomes an activity B is
notified of; the person continues it on B and B's host is told to open the
page; A's resign and A's browser going away withdraw it. Hostile frames are
answered, never a crash."""

import signal

import pytest

from agent_desktop import Desktop, wait_for
from native_host import BrowserHost
from test_agent_e2e import start_agent

PAGE = "https://example.org/articles/handoff?x=1#part-2"


@pytest.fixture
def bridge(pair, ports, tmp_path, procs):
    """Both devices' agents and browser hosts; killed at the end."""
    a, b = pair
    desktops = [Desktop(tmp_path / "desktop-a", procs), Desktop(tmp_path / "desktop-b", procs)]
    sockets = [tmp_path / "run-a" / "agent.sock", tmp_path / "run-b" / "agent.sock"]
    agents = [start_agent(a, desktops[0], sockets[0], ports[0], ports[1]),
              start_agent(b, desktops[1], sockets[1], ports[1], ports[0])]
    hosts = [BrowserHost(a, desktops[0].env(a.env, sockets[0]), "chrome-extension://cdiicohphfndcodichmbdfomjidpfinc/"),
             BrowserHost(b, desktops[1].env(b.env, sockets[1]), "/path/to/org.libhandoff.browser.json",
                         "browser@libhandoff.org")]
    try:
        yield a, b, desktops, agents, hosts
    finally:
        for host in hosts:
            host.kill()
        for agent in agents:
            if agent.proc.poll() is None:
                agent.signal(signal.SIGTERM)
                agent.wait()


def test_a_focused_tab_is_offered_and_opens_through_the_other_devices_host(bridge):
    a, b, desktops, agents, (host_a, host_b) = bridge
    host_a.send({"type": "hello", "browser": "chromium", "version": 1})
    assert host_a.next("status")["agent"] is True
    # A learns of B: status names it once A's agent has heard it.
    def heard_b():
        host_a.send({"type": "status"})
        return "Device B" in host_a.next("status")["devices"]
    wait_for(heard_b, "A's host names Device B")
    host_b.send({"type": "hello", "browser": "firefox", "version": 1})
    assert host_b.next("status")["agent"] is True

    host_a.send({"type": "current", "url": "https://example.org/", "title": "The front page"})
    desktops[1].notified("The front page")
    # The tab navigates: the same offer, updated, and B's notice with it.
    host_a.send({"type": "current", "url": PAGE, "title": "Handoff, explained"})
    shown = desktops[1].notified("Handoff, explained")
    assert shown["summary"] == "Handoff, explained", shown
    # B's browser bridge would open it: the notice says so.
    assert shown["body"] == "Open in the browser · from Device A", shown
    assert "Open in browser" in shown["actions"], shown
    desktops[1].click(shown["id"])
    opened = host_b.next("open")
    assert opened["url"] == PAGE and opened["from"] == "Device A", opened

    # Resigned: withdrawn on B (B's agent no longer offers it).
    host_a.send({"type": "resign"})
    wait_for(lambda: desktops[1].closed(shown["id"]), "B's notice closed")
    assert host_a.close() == 0
    assert host_b.close() == 0


def test_the_browser_going_away_withdraws_the_page(bridge):
    a, b, desktops, agents, (host_a, host_b) = bridge
    host_a.send({"type": "current", "url": PAGE, "title": "Going away"})
    shown = desktops[1].notified("Going away")
    assert host_a.close() == 0
    wait_for(lambda: desktops[1].closed(shown["id"]), "B's notice closed when A's browser went away")


def test_hostile_frames_are_answered_and_the_host_carries_on(bridge):
    a, b, desktops, agents, (host_a, _) = bridge
    host_a.send(b"{not json")
    assert "not JSON" in host_a.next("error")["error"]
    host_a.send({"type": "rm -rf"})
    assert host_a.next("error", about="rm -rf")["error"] == "unknown type"
    host_a.send({"type": "current", "url": "file:///etc/passwd", "title": "x"})
    host_a.next("error", about="current")
    host_a.send({"type": "current", "url": "https://user:secret@example.org/", "title": "x"})
    host_a.next("error", about="current")
    host_a.send(b"[" * 100_000)
    assert "over the 65536-byte limit" in host_a.next("error")["error"]
    host_a.send(b"{" * 60_000)
    assert "not JSON" in host_a.next("error")["error"]
    host_a.send({"type": "status"})
    assert host_a.next("status")["agent"] is True
    # Nothing was offered by any of it.
    assert not [r for r in desktops[1].notifications() if r.get("call") == "Notify"]
    # A length no browser sends ends the host (status 1), logged.
    host_a.proc.stdin.write((100 << 20).to_bytes(4, "little"))
    host_a.proc.stdin.flush()
    assert host_a.proc.wait(timeout=40) == 1
    wait_for(lambda: any("over the browsers'" in line for line in host_a.stderr), "the host said why it ended")


def test_an_end_inside_a_message_is_status_1(bridge):
    a, b, desktops, agents, (host_a, _) = bridge
    host_a.proc.stdin.write((50).to_bytes(4, "little") + b'{"type"')
    host_a.proc.stdin.flush()
    assert host_a.close() == 1


def test_without_an_agent_status_says_why(pair, tmp_path):
    a, _ = pair
    host = BrowserHost(a, dict(a.env, HANDOFF_AGENT_SOCKET=str(tmp_path / "nobody" / "agent.sock")))
    try:
        host.send({"type": "hello", "browser": "firefox", "version": 1})
        status = host.next("status")
        assert status["agent"] is False and status["reason"], status
        host.send({"type": "current", "url": PAGE, "title": "x"})
        assert "not offered" in host.next("error", about="current")["error"]
        assert host.close() == 0
    finally:
        host.kill()


def test_another_apps_web_page_opens_through_the_browser_bridge(bridge):
    """No app on B continues A's app activity: its web page opens, and with
    a browser bridge connected on B it opens there (open_webpage), not in
    the default browser."""
    a, b, desktops, agents, (_, host_b) = bridge
    env_a = desktops[0].env(a.env, desktops[0].root.parent / "run-a" / "agent.sock")
    publisher = a.spawn("--json", "publish", "--agent", "--type", "com.example.notes.edit", "--title", "A note",
                        "--url", "https://notes.example.net/n/7", env=env_a)
    publisher.event("publishing")
    shown = desktops[1].notified("A note")
    assert "Open in browser" in shown["actions"], shown
    desktops[1].click(shown["id"])
    opened = host_b.next("open")
    assert opened["url"] == "https://notes.example.net/n/7" and opened["from"] == "Device A", opened
    publisher.kill()


def test_a_flood_of_status_asks_is_answered_without_piling_up(bridge):
    """One STATUS to the agent at a time (asks meanwhile are answered when
    it comes back): a flood is answered and the page sent after it is
    still offered."""
    a, b, desktops, agents, (host_a, _) = bridge
    for _ in range(500):
        host_a.send({"type": "status"})
    host_a.send({"type": "current", "url": PAGE, "title": "After the flood"})
    desktops[1].notified("After the flood")
    replies = 0
    while True:
        try:
            host_a.next("status", timeout=2)
            replies += 1
        except AssertionError:
            break
    assert replies >= 1
    assert host_a.proc.poll() is None
