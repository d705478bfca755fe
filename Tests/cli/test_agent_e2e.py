# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent end to end (issue 15, docs/agent.md §5–§6), as a person meets
it: device A publishes with `handoff publish`; device B runs `handoff agent`
(its own account directory and socket, loopback unicast to A) on a private
D-Bus with a fake notification server, and a temporary XDG_DATA_HOME holding
the .desktop file of an app that is not running. The agent shows the
notification, the test clicks Continue, the agent launches the app, which
connects in mode AGENT and restores what A published. Also: two apps of one
host each get only their own activities; an app killed -9 while the agent
asks it to provide fails the other device's fetch (4608/4609) and the agent
serves the next app; after an agent restart the app reconnects and
advertises again by itself. Apps the agent launched are not our children:
they are killed by the pid they log."""

import signal
import subprocess
import sys
import uuid
from pathlib import Path

from agent_desktop import APP, TEAM, Desktop, app_pids, json_lines, kill_apps, wait_for
from cli_support import WAIT, Device, Process, free_port, loopback, publish
from test_cli_agent import ERROR, FETCH, PAYLOAD, LocalClient

TYPE = "com.example.e2e.edit"
OTHER = "com.example.e2e.other"


def start_agent(device, desktop, socket_path, own_port, peer_port, *extra):
    agent = device.spawn("--json", "agent", "--socket", socket_path, *loopback(own_port, peer_port), *extra,
                         env=desktop.env(device.env, socket_path))
    agent.expect_stderr('"event":"listening"')
    return agent


def app_event(log, name, **fields):
    return wait_for(lambda: next((e for e in json_lines(log) if e["event"] == name
                                  and all(e.get(k) == v for k, v in fields.items())), None),
                    f"the app's {name} {fields}; its log: {json_lines(log)}")


def test_a_click_on_the_notification_launches_the_app_which_restores_the_activity(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.E2E", "org.example.E2E", [TYPE], app_log)
    socket_path = tmp_path / "run" / "agent.sock"
    try:
        agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Draft 7",
                                    "--info", "note=hello from A", "--info", "count:int=3")

        shown = desktop.notified("Draft 7")
        assert shown["body"] == "Continue in E2E app · from Device A" and "continue" in shown["actions"], shown
        assert app_pids(app_log) == set(), "the app runs before anyone chose to continue"
        desktop.click(shown["id"])

        assert app_event(app_log, "connected")["mode"] == "AGENT"
        app_event(app_log, "will_continue", type=TYPE)
        restored = app_event(app_log, "continue", type=TYPE)
        assert restored["title"] == "Draft 7"
        assert restored["user_info"] == {"note": "hello from A", "count": "3"}, restored
        sender.event("continued", id=published["id"])
        assert len(app_pids(app_log)) == 1
        assert wait_for(lambda: desktop.closed(shown["id"]), "the chosen notification closed")

        # A second activity from A: shown (a running app continues it now)
        # and closed when A withdraws it.
        sender.signal(signal.SIGTERM)
        assert sender.wait() == 0
        second, _ = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Draft 8")
        again = desktop.notified("Draft 8")
        assert not desktop.closed(again["id"])
        second.signal(signal.SIGTERM)
        assert second.wait() == 0
        assert wait_for(lambda: desktop.closed(again["id"]), "the notification closed when A withdrew")

        assert agent.proc.poll() is None
        agent.signal(signal.SIGTERM)
        assert agent.wait() == 0
        assert not socket_path.exists()
    finally:
        kill_apps(app_log)


def start_app(desktop, device, socket_path, log, bundle, types, *extra):
    """An app the test starts itself (already running), in mode AGENT."""
    app = Process([sys.executable, str(APP), "--log", str(log), "--bundle", bundle, "--team", TEAM,
                   *[f"--type={t}" for t in types], *extra], desktop.env(device.env, socket_path))
    device.procs.append(app)
    assert app_event(log, "connected")["mode"] == "AGENT"
    return app


def test_two_apps_on_one_host_each_receive_only_their_own_activities(pair, ports, tmp_path, procs):
    a, b = pair
    c = Device(tmp_path, "c", procs)
    assert c.run("account", "join", a.run("account", "code").out.strip()).code == 0
    assert c.run("device", "--name", "Device C").code == 0
    port_c = free_port()
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    agent = start_agent(b, desktop, socket_path, ports[1], ports[0], "--peer", f"127.0.0.1:{port_c}")
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    start_app(desktop, b, socket_path, one, "org.example.One", [TYPE])
    start_app(desktop, b, socket_path, two, "org.example.Two", [OTHER])

    first, published_1 = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "For one", "--info", "n=1")
    second, published_2 = publish(c, port_c, ports[1], "--type", OTHER, "--title", "For two", "--info", "n=2")
    app_event(one, "available", type=TYPE, title="For one")
    app_event(two, "available", type=OTHER, title="For two")
    desktop.click(desktop.notified("For one")["id"])
    desktop.click(desktop.notified("For two")["id"])
    assert app_event(one, "continue", type=TYPE)["user_info"] == {"n": "1"}
    assert app_event(two, "continue", type=OTHER)["user_info"] == {"n": "2"}
    first.event("continued", id=published_1["id"])
    second.event("continued", id=published_2["id"])
    assert {e.get("type") for e in json_lines(one) if "type" in e} == {TYPE}, json_lines(one)
    assert {e.get("type") for e in json_lines(two) if "type" in e} == {OTHER}, json_lines(two)
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def start_plain_agent(device, socket_path, own_port, peer_port, env=None):
    agent = device.spawn("--json", "agent", "--no-notifications", "--socket", socket_path,
                         *loopback(own_port, peer_port), env=env)
    agent.expect_stderr('"event":"listening"')
    return agent


def fetch(observer, activity_id):
    return observer.request(FETCH, {"activityID": activity_id})


def test_an_app_killed_while_asked_to_provide_fails_the_fetch_and_the_agent_serves_the_next(pair, ports, tmp_path,
                                                                                          procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_a, socket_b = tmp_path / "a.sock", tmp_path / "b.sock"
    agent_a = start_plain_agent(a, socket_a, ports[0], ports[1], desktop.env(a.env, socket_a))
    start_plain_agent(b, socket_b, ports[1], ports[0])
    observer = LocalClient(socket_b)
    observer.hello()

    doomed_log = tmp_path / "doomed.jsonl"
    # Hung in its save: it offers no payload ahead of time, so the agent
    # must ask it (PROVIDE) and the fetch waits on the app.
    doomed = start_app(desktop, a, socket_a, doomed_log, "org.example.Doomed", [TYPE], "--advertise", TYPE,
                       "--info", "n=1", "--stuck-saving")
    app_event(doomed_log, "will_save")
    advertised = app_event(doomed_log, "advertising")["id"]
    remote = next_remote_with(observer, advertised)
    # Stopped, it cannot answer; the agent's PROVIDE waits in its socket.
    doomed.signal(signal.SIGSTOP)
    wait_for(lambda: all_threads_stopped(doomed.proc.pid), "the app stopped")
    observer.next_id += 1
    observer.send(FETCH, {"activityID": remote["activityID"]}, observer.next_id)
    wait_for(lambda: unread_seqpacket(doomed.proc.pid), "the PROVIDE queued at the stopped app")
    doomed.signal(signal.SIGKILL)
    kind, body = reply_to(observer, observer.next_id)
    assert kind == ERROR and body["code"] in (4608, 4609), (kind, body)
    assert agent_a.proc.poll() is None

    next_log = tmp_path / "next.jsonl"
    start_app(desktop, a, socket_a, next_log, "org.example.Next", [TYPE], "--advertise", TYPE, "--info", "n=2")
    remote = next_remote_with(observer, app_event(next_log, "advertising")["id"])
    kind, body = fetch(observer, remote["activityID"])
    assert kind == PAYLOAD and len(body["payload"]) > 0, body
    observer.close()


def test_after_an_agent_restart_the_app_reconnects_and_advertises_again(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_a, socket_b = tmp_path / "a.sock", tmp_path / "b.sock"
    env_a = desktop.env(a.env, socket_a)
    agent_a = start_plain_agent(a, socket_a, ports[0], ports[1], env_a)
    start_plain_agent(b, socket_b, ports[1], ports[0])
    observer = LocalClient(socket_b)
    observer.hello()
    log = tmp_path / "app.jsonl"
    start_app(desktop, a, socket_a, log, "org.example.Stays", [TYPE], "--advertise", TYPE, "--info", "n=1")
    advertised = app_event(log, "advertising")["id"]
    next_remote_with(observer, advertised)

    agent_a.signal(signal.SIGTERM)
    assert agent_a.wait() == 0
    gone = next_remote_with(observer, advertised, change=2)
    assert gone["type"] == TYPE
    start_plain_agent(a, socket_a, ports[0], ports[1], env_a)
    again = next_remote_with(observer, advertised)
    kind, body = fetch(observer, again["activityID"])
    assert kind == PAYLOAD and len(body["payload"]) > 0, body
    assert [e["event"] for e in json_lines(log)].count("connected") == 1
    observer.close()


def next_remote_with(observer, activity_id, change=0):
    """The next REMOTE about that activity (uuid text) with that change."""
    while True:
        body = observer.next_remote()
        activity = body["activity"]
        if body["change"] == change and str(uuid.UUID(bytes=activity["activityID"])).upper() == activity_id.upper():
            return activity


def reply_to(observer, request_id):
    while True:
        kind, got_id, body = observer.receive()
        if got_id == request_id:
            return kind, body


def all_threads_stopped(pid):
    """Whether every thread of `pid` is stopped (state T): a thread still
    running could yet read what the agent sends."""
    tasks = Path(f"/proc/{pid}/task")
    return all(task.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0] == "T" for task in tasks.iterdir())


def unread_seqpacket(pid):
    """Whether a SEQPACKET socket of process `pid` holds unread data."""
    out = subprocess.run(["ss", "-xpH"], capture_output=True, text=True, timeout=WAIT).stdout
    return any(line.split()[0] == "u_seq" and int(line.split()[2]) > 0 and f"pid={pid}," in line
               for line in out.splitlines())
