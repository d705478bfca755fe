# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff session` (docs/cli.md "handoff session"): a script's app in
JSON lines, between real processes on loopback. What it publishes is
offered and handed over with its userInfo in the tagged form; two sessions
continue each other's activities; the agent hands a chosen activity to a
running session; a bad line is refused with its line number and the
session goes on; a line over 64 KiB is refused without being held; the end
of input withdraws; its types and team come from an installed desktop
entry when not given."""

import uuid

from cli_support import loopback
from session_support import APP, TYPE, start
from test_agent_e2e import start_plain_agent
from test_cli_agent import LocalClient

CHOOSE, OK = 17, 13
MAX_LINE = 64 << 10

# Every kind the tagged form writes, as a script writes them back. (No
# file: URL: a sender describes those, and these name no file.)
USER_INFO = {
    "page": {"$url": "https://example.com/plan%20B"},
    "line": 12, "column": 5, "ratio": 0.5, "done": False, "nothing": None, "words": ["a", "b"],
    "blob": {"$data": "AAEC/w=="}, "when": {"$date": 86400.5}, "tags": {"$set": ["x", 2]},
    "nested": {"deep": {"$url": "https://example.com/p"}},
}
# As a script may write them: read as the kinds they tag, not as
# dictionaries, they come back as USER_INFO (a URL's space encoded, a set's
# members once each and in the form's order).
WRITTEN = dict(USER_INFO, page={"$url": "https://example.com/plan B"}, tags={"$set": [2, "x", 2]})


def publish(title="plan B.txt", user_info=WRITTEN, **extra):
    return {"publish": {"type": TYPE, "title": title, "user_info": user_info, **extra}}


def test_what_a_session_publishes_is_offered_handed_over_and_withdrawn_at_the_end_of_its_input(pair, ports):
    a, b = pair
    session, ready = start(a, "--type", TYPE, *loopback(ports[0], ports[1]))
    assert ready["app"] == APP and ready["team"] == "HANDOFFCLI" and ready["types"] == [TYPE]
    assert ready["via"] == "embedded" and ready["device"]["name"] == "Device A" and ready["beacon_port"] == ports[0]
    watcher = b.spawn("--json", "nearby", "--type", TYPE, *loopback(ports[1], ports[0])[:5])

    session.send(publish(webpage_url="https://example.com/plan"))
    published = session.next("published")
    assert published["type"] == TYPE and published["title"] == "plan B.txt" and published["user_info_bytes"] > 0
    available = watcher.event("available", id=published["id"])
    assert available["title"] == "plan B.txt" and available["bundle"] == APP
    # One process per beacon port: a unicast beacon reaches one socket.
    watcher.kill()

    result = b.run("--json", "continue", published["id"], *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    continued = result.json()
    # The tagged form read back is the tagged form written: every kind kept.
    assert continued["user_info"] == USER_INFO, continued
    assert continued["webpage_url"] == "https://example.com/plan"
    assert session.next("continued")["id"] == published["id"]

    watcher = b.spawn("--json", "nearby", "--type", TYPE, *loopback(ports[1], ports[0])[:5])
    watcher.event("available", id=published["id"])
    session.close_input()
    assert session.wait() == 0
    watcher.event("withdrawn", id=published["id"])


def test_a_second_publish_of_the_type_updates_the_same_activity_and_withdraw_ends_it(pair, ports):
    a, b = pair
    session, _ = start(a, "--type", TYPE, "--type", "org.example.session.view", *loopback(ports[0], ports[1]))
    session.send(publish(title="one"))
    first = session.next("published")
    session.send(publish(title="two", user_info={"line": 40}))
    second = session.next("published", lambda body: body["title"] == "two")
    assert second["id"] == first["id"]
    result = b.run("--json", "continue", first["id"], *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    assert result.json()["title"] == "two" and result.json()["user_info"] == {"line": 40}

    # Another declared type: a new activity.
    session.send({"publish": {"type": "org.example.session.view", "title": "three"}})
    third = session.next("published", lambda body: body["title"] == "three")
    assert third["id"] != first["id"]
    session.send({"withdraw": {}})
    assert session.next("withdrawn")["id"] == third["id"]
    session.send({"withdraw": {}})
    session.expect(lambda line: len([l for l in session.events() if "withdrawn" in l]) == 2)
    assert session.all("withdrawn")[1] == {"id": None}
    assert session.all("error") == []


def test_two_sessions_continue_each_others_activities(pair, ports):
    """B lists what A offers ("offered") and continues it by id; A hears its
    activity was continued."""
    a, b = pair
    sender, _ = start(a, "--type", TYPE, *loopback(ports[0], ports[1]))
    receiver, _ = start(b, "--type", TYPE, *loopback(ports[1], ports[0]))
    sender.send(publish())
    published = sender.next("published")

    offered = receiver.next("offered", lambda body: any(o["id"] == published["id"] for o in body))
    entry = next(o for o in offered if o["id"] == published["id"])
    assert entry["title"] == "plan B.txt" and entry["type"] == TYPE and entry["device"]["name"] == "Device A"
    receiver.send({"continue": {"id": published["id"]}})
    restored = receiver.next("continue")
    assert restored["id"] == published["id"] and restored["type"] == TYPE and restored["title"] == "plan B.txt"
    assert restored["user_info"] == USER_INFO and restored["device"]["name"] == "Device A"
    assert sender.next("continued")["id"] == published["id"]

    # Withdrawn on A: B's list empties.
    sender.send({"withdraw": {}})
    receiver.next("offered", lambda body: body == [])


def test_the_agent_hands_the_activity_the_person_chose_to_the_running_session(pair, ports, tmp_path):
    """Through the agents, as an app: B's agent routes CHOOSE (a click on its
    notification) to B's running session, which reads it as "continue"."""
    a, b = pair
    sockets = tmp_path / "a.sock", tmp_path / "b.sock"
    envs = [dict(device.env, HANDOFF_AGENT_SOCKET=str(path)) for device, path in zip(pair, sockets)]
    for device, socket, env, (own, peer) in zip(pair, sockets, envs, (ports, ports[::-1])):
        start_plain_agent(device, socket, own, peer, env=env)
    sender, ready = start(a, "--type", TYPE, "--agent", env=envs[0])
    assert ready["via"] == "agent" and "beacon_port" not in ready
    receiver, _ = start(b, "--type", TYPE, "--agent", env=envs[1])
    sender.send(publish())
    published = sender.next("published")
    receiver.next("offered", lambda body: any(o["id"] == published["id"] for o in body))

    observer = LocalClient(sockets[1])
    observer.hello()
    kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(published["id"]).bytes})
    assert kind == OK, body
    restored = receiver.next("continue")
    assert restored["id"] == published["id"] and restored["user_info"] == USER_INFO
    assert sender.next("continued")["id"] == published["id"]
    observer.close()


def test_each_bad_line_is_refused_with_its_number_and_the_session_goes_on(pair, ports):
    a, _ = pair
    session, _ = start(a, "--type", TYPE, *loopback(ports[0], ports[1]))
    bad = [
        ("not json", 5, "not userInfo JSON"),
        ("[1, 2]", 5, "one JSON object"),
        ('{"publish": {}, "withdraw": {}}', 5, "one key"),
        ('{"fly": {}}', 2, "unknown verb"),
        ('{"publish": 3}', 3, "takes an object"),
        ('{"publish": {"type": "org.example.other"}}', 2, "--type org.example.other"),
        ('{"publish": {"title": 7}}', 3, '"title" is a string'),
        ('{"publish": {"user_info": {"u": {"$url": 3}}}}', 5, "$url takes a URL"),
        ('{"publish": {"user_info": {"b": {"$data": "not base64!"}}}}', 5, "$data takes base64"),
        ('{"publish": {"user_info": {"big": "%s"}}}' % ("x" * 4000), 4611, "over the 3072-byte budget"),
        ('{"publish": {"webpage_url": "ftp://example.com/"}}', 2, "http"),
        ('{"continue": {"id": "nope"}}', 2, "activity id"),
        ('{"continue": {"id": "%s"}}' % uuid.uuid4(), 4, "no other device offers"),
    ]
    for text, _, _ in bad:
        session.send(text)
    session.send("")  # a blank line: nothing, but a line
    session.send(publish(title="after"))
    assert session.next("published")["title"] == "after"
    errors = session.all("error")
    assert [(e["line"], e["code"]) for e in errors] == [(n, code) for n, (_, code, _) in enumerate(bad, 1)], errors
    for error, (_, _, words) in zip(errors, bad):
        assert words in error["message"], (words, error)
    assert session.proc.poll() is None


def test_a_line_over_64_kib_is_refused_without_being_held(pair, ports):
    """The bound: a line of exactly 65,536 bytes is read, one byte more is
    refused. A 64 MiB line streams past: the session's peak memory grows by
    far less than the line (it holds at most one bounded line)."""
    a, _ = pair
    session, _ = start(a, "--type", TYPE, *loopback(ports[0], ports[1]))
    withdraw = '{"withdraw": {}}'
    session.send(withdraw + " " * (MAX_LINE - len(withdraw)))
    session.send(withdraw + " " * (MAX_LINE + 1 - len(withdraw)))
    session.next("error")
    before = peak_memory(session.proc.pid)
    huge = 64 << 20
    chunk = "y" * (1 << 20)
    for _ in range(huge >> 20):
        session.proc.stdin.write(chunk)
    session.send("")
    session.send(publish(title="still here"))
    assert session.next("published")["title"] == "still here"
    errors = session.all("error")
    assert [(e["line"], e["code"]) for e in errors] == [(2, 5), (3, 5)], errors
    assert f"a line of {MAX_LINE + 1} bytes is over the {MAX_LINE}-byte limit" in errors[0]["message"]
    assert f"a line of {huge} bytes" in errors[1]["message"]
    assert len(session.all("withdrawn")) == 1
    grown = peak_memory(session.proc.pid) - before
    print(f"peak memory grew by {grown >> 10} KiB while a {huge >> 20} MiB line went by")
    assert grown < 8 << 20, grown


def peak_memory(pid):
    """VmHWM: the process's peak resident memory, in bytes."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) << 10
    raise AssertionError("no VmHWM")


def test_types_and_team_come_from_the_apps_installed_desktop_entry(device, tmp_path, ports):
    assert device.run("account", "create").code == 0
    data = tmp_path / "data"
    (data / "applications").mkdir(parents=True)
    (data / "applications" / f"{APP}.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Session\nExec=true\n"
        f"X-Handoff-ActivityTypes={TYPE};org.example.session.view;\nX-Handoff-TeamIdentifier=SESSIONTEAM\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(device.env, XDG_DATA_HOME=str(data), XDG_DATA_DIRS=str(empty))
    session, ready = start(device, *loopback(ports[0], ports[1]), env=env)
    assert ready["types"] == [TYPE, "org.example.session.view"] and ready["team"] == "SESSIONTEAM"
    # Two types: "publish" names one.
    session.send({"publish": {"title": "which?"}})
    assert "needs \"type\"" in session.next("error")["message"]
    session.close_input()
    assert session.wait() == 0

    # --team and --type win over the entry.
    session, ready = start(device, "--team", "OTHER", "--type", "x.y", *loopback(ports[0], ports[1]), env=env)
    assert ready["types"] == ["x.y"] and ready["team"] == "OTHER"
    session.close_input()
    assert session.wait() == 0

    # No entry, no --type: a usage error, as a line too.
    result = device.run("session", "--app", "org.example.Nothing", *loopback(ports[0], ports[1]), env=env)
    assert result.code == 2 and "no --type given" in result.err, result
