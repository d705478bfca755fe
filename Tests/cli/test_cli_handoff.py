# SPDX-License-Identifier: MIT OR Apache-2.0
"""Handoffs between two real `handoff` processes on loopback: publish on
one device, nearby and continue on another, and the ways a continue fails
(Apple's codes 4608, 4609, 4611)."""

import signal

from cli_support import Device, publish, loopback

TYPE = "com.example.cli.edit"


def test_publish_then_continue_hands_the_activity_over(pair, ports):
    a, b = pair
    sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Draft 7",
                                "--info", "doc=d-42", "--info", "count:int=3", "--info", "ratio:real=0.5",
                                "--info", "done:bool=false", "--info", "home:url=https://example.com/h",
                                "--info", "nothing:null=", "--url", "https://example.com/doc/42", "--once")
    assert published["type"] == TYPE and published["team"] == "HANDOFFCLI"
    assert published["device"]["name"] == "Device A"

    result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    activity = result.json()
    assert activity["id"] == published["id"]
    assert activity["type"] == TYPE
    assert activity["title"] == "Draft 7"
    assert activity["webpage_url"] == "https://example.com/doc/42"
    assert activity["web_only"] is False
    assert activity["device"]["name"] == "Device A"
    assert activity["user_info"] == {
        "count": 3, "doc": "d-42", "done": False, "home": {"$url": "https://example.com/h"},
        "nothing": None, "ratio": 0.5,
    }
    # The sender heard it was continued, and --once ended it cleanly: the
    # confirmation reached it before the receiver's process ended.
    sender.event("continued", id=published["id"])
    assert sender.wait() == 0


def test_publish_prints_one_continued_event_per_continuation(pair, ports):
    """An activity that stays current and is continued again is heard again:
    N continues, N "continued" events (docs/cli.md)."""
    a, b = pair
    sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Again")
    continues = 4
    for n in range(1, continues + 1):
        result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
        assert result.code == 0, result
        # Each confirmation arrives before the next continue starts.
        sender.expect(lambda e, n=n: e.get("event") == "continued" and
                      sum(1 for x in sender.events() if x.get("event") == "continued") >= n)
    sender.signal(signal.SIGINT)
    assert sender.wait() == 0
    heard = [e for e in sender.events() if e.get("event") == "continued"]
    assert len(heard) == continues
    assert all(e["id"] == published["id"] for e in heard)


def test_continue_prints_for_people(pair, ports):
    a, b = pair
    _, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Notes", "--info", "line:int=12")
    result = b.run("continue", published["id"], "--type", TYPE, *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    assert f"type       {TYPE}" in result.out
    assert "title      Notes" in result.out
    assert "from       Device A" in result.out
    assert "  line = 12" in result.out


def test_nearby_shows_an_activity_coming_and_going(pair, ports):
    a, b = pair
    watcher = b.spawn("--json", "nearby", *loopback(ports[1], ports[0])[:5])
    listening = watcher.event("listening")
    assert listening["beacon_port"] == ports[1] and listening["multicast"] is False
    assert listening["via"] == "embedded"  # network options: an engine of its own
    sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Sketch", "--team", "OTHERTEAM")

    available = watcher.event("available", id=published["id"])
    assert available["type"] == TYPE and available["title"] == "Sketch"
    # nearby lists every team of the account, and says which.
    assert available["team"] == "OTHERTEAM" and available["bundle"] == "org.libhandoff.handoff"
    assert available["device"]["name"] == "Device A"
    assert available["device"]["id"] == published["device"]["id"] and available["expires"] is None

    sender.signal(signal.SIGINT)
    assert sender.wait() == 0
    watcher.event("withdrawn", id=published["id"])
    watcher.signal(signal.SIGTERM)
    assert watcher.wait() == 0


def test_nearby_once_filters_by_type(pair, ports):
    a, b = pair
    publish(a, ports[0], ports[1], "--type", "com.example.cli.other", "--title", "Other")
    result = b.run("--json", "nearby", "--once", "--type", "com.example.cli.other", "--timeout", "40",
                   *loopback(ports[1], ports[0])[:5])
    assert result.code == 0, result
    assert result.json()["event"] == "available" and result.json()["title"] == "Other"


def test_nearby_once_with_nothing_offered_fails(pair, ports):
    _, b = pair
    result = b.run("--json", "nearby", "--once", "--timeout", "1", *loopback(ports[1], ports[0])[:5])
    assert result.code == 1, result
    assert result.json()["error"]["code"] == 10


def test_userinfo_over_the_budget_is_4611(pair, ports):
    a, b = pair
    sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--info", "big=" + "x" * 4000)
    result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert result.code == 1, result
    error = result.json()["error"]
    assert error["code"] == 4611 and error["name"] == "HandoffUserInfoTooLarge"
    assert "error 4611" in result.err
    # The sender said so when it started.
    sender.signal(signal.SIGINT)
    assert sender.wait() == 0
    assert any("over the 3072-byte budget" in line for line in sender.stderr), sender.stderr


def test_missing_required_key_is_4608(pair, ports):
    a, b = pair
    _, published = publish(a, ports[0], ports[1], "--type", TYPE, "--required-key", "doc")
    result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert result.code == 1, result
    assert result.json()["error"]["code"] == 4608


def test_another_teams_activity_needs_team(pair, ports):
    a, b = pair
    _, published = publish(a, ports[0], ports[1], "--type", TYPE, "--team", "OTHERTEAM")
    refused = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert refused.code == 1, refused
    assert refused.json()["error"]["code"] == 4608
    assert "--team OTHERTEAM" in refused.json()["error"]["message"]

    accepted = b.run("--json", "continue", published["id"], "--team", "OTHERTEAM", *loopback(ports[1], ports[0]))
    assert accepted.code == 0, accepted
    assert accepted.json()["type"] == TYPE


def test_another_teams_activity_with_a_web_page_opens_as_that_page(pair, ports):
    a, b = pair
    _, published = publish(a, ports[0], ports[1], "--type", TYPE, "--team", "OTHERTEAM",
                           "--url", "https://example.com/page")
    result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    assert result.json()["web_only"] is True
    assert result.json()["webpage_url"] == "https://example.com/page"
    assert result.json()["user_info"] is None


def test_a_device_of_another_account_cannot_continue(pair, ports, tmp_path, procs):
    a, _ = pair
    stranger = Device(tmp_path, "stranger", procs)
    assert stranger.run("account", "create").code == 0
    _, published = publish(a, ports[0], ports[1], "--type", TYPE)
    result = stranger.run("--json", "continue", published["id"], "--timeout", "3", *loopback(ports[1], ports[0]))
    assert result.code == 1, result
    assert result.json()["error"]["code"] == 4609


def test_a_send_only_device_is_never_offered_anything(pair, ports):
    _, b = pair
    assert b.run("device", "--role", "send-only").code == 0
    result = b.run("--json", "continue", "6F9619FF-8B86-D011-B42D-00C04FC964FF", *loopback(ports[1], ports[0]))
    assert result.code == 1, result
    assert "send-only" in result.json()["error"]["message"]


def test_interrupting_a_waiting_continue_fails_cleanly(pair, ports):
    _, b = pair
    for waiting_for, extra in (("Looking for activity", []), ("Waiting for activity", ["--type", TYPE])):
        waiting = b.spawn("continue", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "--timeout", "60", *extra,
                          *loopback(ports[1], ports[0]))
        waiting.expect_stderr(waiting_for)
        waiting.signal(signal.SIGINT)
        assert waiting.wait() == 1
        assert "Interrupted." in waiting.stderr
