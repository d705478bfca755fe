# SPDX-License-Identifier: MIT OR Apache-2.0
"""How the agent launches an app that is not running (issue 15 item 4,
docs/agent.md §5), end to end as in test_agent_e2e.py: device A publishes,
device B's agent runs on a private dbus-daemon with the fake notification
server; the test clicks Continue with an activation token.

- A `DBusActivatable=true` app is started by the bus: the agent calls
  org.freedesktop.Application.Activate with the token as platform data; the
  bus starts the app from its .service file (fake_notifications --app,
  which then starts agent_app.py), and the app restores the activity. Its
  Exec (another log) never runs.
- An Exec app gets the token as XDG_ACTIVATION_TOKEN and DESKTOP_STARTUP_ID.
- Activation failing (no service file; an error answer) falls back to the
  entry's Exec, which restores, and gets the token too.
Apps the agent launched are not our children: killed by the pid they log."""

import json

import pytest

from agent_desktop import Desktop, app_pids, json_lines, kill_apps, wait_for
from cli_support import publish
from test_agent_e2e import TYPE, app_event, start_agent

TOKEN = "handoff-test-token-7f3a"


def agent_event(agent, name, **fields):
    """The agent's JSON log event on stderr with these fields (bounded wait)."""
    def find():
        for line in list(agent.stderr):
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            if event.get("event") == name and all(event.get(k) == v for k, v in fields.items()):
                return event
        return None
    return wait_for(find, f"the agent's {name} {fields}; its log: {agent.stderr}")


def continue_from_a(a, b, desktop, ports, socket_path, title):
    """B's agent; A publishes; the person clicks Continue (with TOKEN)."""
    agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
    sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", title, "--info", "n=42")
    desktop.click(desktop.notified(title)["id"], token=TOKEN)
    return agent, sender, published


def restored(log, sender, published, title):
    app_event(log, "will_continue", type=TYPE)
    continued = app_event(log, "continue", type=TYPE)
    assert continued["title"] == title and continued["user_info"] == {"n": "42"}, continued
    sender.event("continued", id=published["id"])


def test_a_dbus_activatable_app_is_started_by_the_bus_with_the_token_and_restores(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log, exec_log, bus_log = tmp_path / "app.jsonl", tmp_path / "exec.jsonl", tmp_path / "bus.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    name = "org.example.BusApp"
    desktop.install(name, name, [TYPE], exec_log, dbus_activatable=True)
    desktop.install_service(name, name, [TYPE], app_log, bus_log, desktop.env(b.env, socket_path))
    try:
        agent, sender, published = continue_from_a(a, b, desktop, ports, socket_path, "By the bus")
        activate = wait_for(lambda: next((r for r in json_lines(bus_log) if r.get("call") == "Activate"), None),
                            "Activate reached the app")
        assert activate["path"] == "/org/example/BusApp", activate
        assert activate["platform_data"] == {"activation-token": TOKEN, "desktop-startup-id": TOKEN}, activate
        launch = agent_event(agent, "launch", bundle=name)
        assert launch["how"] == "dbus" and launch["token"] is True, launch
        agent_event(agent, "activated", bundle=name)

        connected = app_event(app_log, "connected")
        assert connected["mode"] == "AGENT" and connected["activation_token"] == TOKEN, connected
        restored(app_log, sender, published, "By the bus")
        assert json_lines(exec_log) == [], "the Exec ran too"
        assert [r["call"] for r in json_lines(bus_log) if "call" in r] == ["Activate"]
        assert not any('"launch-fallback"' in line for line in agent.stderr), agent.stderr
    finally:
        kill_apps(app_log)
        kill_apps(exec_log)


def test_an_exec_app_gets_the_notifications_activation_token_in_its_environment(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    desktop.install("org.example.ExecApp", "org.example.ExecApp", [TYPE], app_log)
    try:
        agent, sender, published = continue_from_a(a, b, desktop, ports, socket_path, "By Exec")
        launch = agent_event(agent, "launch", bundle="org.example.ExecApp")
        assert launch["how"] == "exec" and launch["token"] is True, launch
        connected = app_event(app_log, "connected")
        assert connected["activation_token"] == TOKEN and connected["startup_id"] == TOKEN, connected
        restored(app_log, sender, published, "By Exec")
    finally:
        kill_apps(app_log)


@pytest.mark.parametrize("failure", ["no-service-file", "error-answer"])
def test_when_dbus_activation_fails_the_agent_falls_back_to_exec(pair, ports, tmp_path, procs, failure):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    exec_log, never_log, bus_log = tmp_path / "exec.jsonl", tmp_path / "never.jsonl", tmp_path / "bus.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    name = "org.example.Falls"
    desktop.install(name, name, [TYPE], exec_log, dbus_activatable=True)
    if failure == "error-answer":
        desktop.install_service(name, name, [TYPE], never_log, bus_log, desktop.env(b.env, socket_path),
                                "--fail-activate")
    try:
        agent, sender, published = continue_from_a(a, b, desktop, ports, socket_path, "Falls back")
        assert agent_event(agent, "launch", bundle=name)["how"] == "dbus"
        fallback = agent_event(agent, "launch-fallback", bundle=name)
        expected = "ServiceUnknown" if failure == "no-service-file" else "told to fail"
        assert expected in fallback["message"], fallback
        connected = app_event(exec_log, "connected")
        assert connected["activation_token"] == TOKEN and connected["startup_id"] == TOKEN, connected
        restored(exec_log, sender, published, "Falls back")
        if failure == "error-answer":
            assert [r["call"] for r in json_lines(bus_log) if "call" in r] == ["Activate"]
        assert json_lines(never_log) == []
    finally:
        kill_apps(exec_log)
        kill_apps(never_log)


def test_no_systemd_user_manager_is_said_once_not_at_every_launch(pair, ports, tmp_path, procs):
    """The private bus has no systemd user manager, as many desktops and
    containers: the first Exec launch logs `scope-none` once; the next
    launch logs nothing more about it (issue 28: log noise)."""
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    desktop.install("org.example.ExecApp", "org.example.ExecApp", [TYPE], app_log)
    try:
        agent, sender, published = continue_from_a(a, b, desktop, ports, socket_path, "First")
        restored(app_log, sender, published, "First")
        agent_event(agent, "scope-none")
        sender.kill()
        kill_apps(app_log)
        agent_event(agent, "closed", reason="peer")
        # A second launch of the app (it is not running any more).
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Second", "--info", "n=42")
        desktop.click(desktop.notified("Second")["id"], token=TOKEN)
        launches = wait_for(lambda: [e for e in map(json.loads, (l for l in list(agent.stderr) if l.startswith("{")))
                                     if e.get("event") == "launch"][1:], "a second launch")
        assert launches[0]["how"] == "exec", launches
        # The second copy connects long after the bus answered the scope call.
        wait_for(lambda: len([e for e in json_lines(app_log) if e.get("event") == "connected"]) == 2,
                 "the second copy connected")
        events = [json.loads(l) for l in list(agent.stderr) if l.startswith("{")]
        assert [e["event"] for e in events].count("scope-none") == 1, agent.stderr
        assert not [e for e in events if e["event"] == "scope-failed"], agent.stderr
    finally:
        kill_apps(app_log)
