# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the agent's notifications say and what their click does (issue 28
item 2, docs/agent.md §5–§6), end to end as in test_agent_e2e.py: device A
publishes with `handoff publish`; device B's agent runs on a private
dbus-daemon.

With the recording server (Tests/agent/fake_notifications.c):
- the offer names the app (`Name`), sends its `Icon` and desktop id;
- an activity no app here declares gets one "No app here
  continues <type>" notice with "Install"; one with a web page is offered
  as "Open in the browser";
- a click with an activation token on an activity a running app continues
  reaches that app through the library (handoff_application_get_activation_token,
  Python `app.activation_token`) during will_continue and continue, and a
  running DBusActivatable app also gets Activate with the token as
  platform data; the agent logs nothing alarming on the click;
- a D-Bus-only app whose activation fails is named as having failed to
  start, not as "no app here continues"; an entry named like the sender's
  bundle id that declares nothing is named in the no-app log line.

With a real notification server (dunst under Xvfb), in
test_agent_notifications_dunst.py."""

from agent_desktop import FAKE, Desktop, app_command, json_lines, kill_apps, wait_for
from cli_support import Process, publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import TOKEN, agent_event

ALARMING = ('"notification call failed', "Invalid notification identifier", '"event":"choose-failed"',
            '"event":"error"')


def alarming(agent):
    return [line for line in agent.stderr if any(word in line for word in ALARMING)]


def test_the_offer_names_the_app_and_sends_its_icon(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    desktop.install("org.example.Named", "org.example.Named", [TYPE], app_log, icon="accessories-text-editor")
    start_agent(b, desktop, socket_path, ports[1], ports[0])
    publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Named draft")
    shown = desktop.notified("Named draft")
    # The title whole as the summary; the app first in the body (GNOME
    # Shell cuts each line at its end).
    assert shown["summary"] == "Named draft", shown
    assert shown["body"] == "Continue in E2E app · from Device A", shown
    assert shown["app_icon"] == "accessories-text-editor", shown
    assert shown["hints"].get("desktop-entry") == "org.example.Named", shown
    assert shown["actions"] == ["default", "Continue", "continue", "Continue"], shown
    assert "transient" not in shown["hints"], shown


def test_what_no_app_here_continues_is_told_once_and_a_web_page_is_offered_for_the_browser(pair, ports, tmp_path,
                                                                                          procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    # An app named like the sender's bundle id, D-Bus-activatable, that
    # declares nothing for Handoff: not asked, and the log says why.
    (desktop.data / "applications" / "org.libhandoff.handoff.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Handoff\nDBusActivatable=true\nExec=/bin/true\n")
    agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
    orphan, _ = publish(a, ports[0], ports[1], "--type", "com.example.nobody.here", "--title", "Orphan")
    # The sending app by name (its desktop entry's here), not the raw type.
    notice = desktop.notified("Orphan")
    assert notice["app_icon"] == "handoff", notice
    assert notice["body"] == "No app here continues Handoff · from Device A", notice
    # `handoff publish` sends as org.libhandoff.handoff: reverse-DNS, so "Install".
    assert notice["actions"] == ["install", "Install"], notice
    assert notice["hints"].get("transient") is True and notice["hints"].get("urgency") == 0, notice
    no_app = agent_event(agent, "no-app", type="com.example.nobody.here", bundle="org.libhandoff.handoff")
    assert "org.libhandoff.handoff.desktop is named like the sender's app but declares nothing" in no_app["message"], \
        no_app
    # One publisher at a time (two of one device would take turns: issue 28 item 3).
    orphan.kill()
    # Only its web page would open: said so, with "Open in browser".
    publish(a, ports[0], ports[1], "--type", "com.example.nobody.read", "--title", "Article",
            "--url", "https://example.org/article")
    web = desktop.notified("Article")
    assert web["body"] == "Open in the browser · from Device A", web
    assert web["actions"] == ["default", "Open in browser", "continue", "Open in browser"], web
    assert web["app_icon"] == "web-browser" and web["expire_timeout"] == 0, web
    # The notice was sent once, never again on the orphan's keep-alives.
    notices = [n for n in desktop.notifications() if n.get("call") == "Notify"
               and n.get("body", "").startswith("No app here continues")]
    assert len(notices) == 1, notices
    assert sum('"event":"no-app"' in line for line in agent.stderr) == 1, agent.stderr


def test_a_running_app_gets_the_clicks_token_through_the_library_and_dbus_activate(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log, bus_log = tmp_path / "app.jsonl", tmp_path / "bus.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    name = "org.example.Running"
    desktop.install(name, name, [TYPE], tmp_path / "never.jsonl", dbus_activatable=True)
    agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
    # The running app's D-Bus side (records Activate) and its Handoff side.
    bus_side = Process([str(FAKE), "--address", desktop.address, "--log", str(bus_log),
                        "--app", name, "/org/example/Running"], desktop.env(b.env, socket_path))
    procs.append(bus_side)
    bus_side.expect_line("ready")
    app = Process(app_command(app_log, name, [TYPE]), desktop.env(b.env, socket_path))
    procs.append(app)
    try:
        connected = app_event(app_log, "connected")
        assert connected["mode"] == "AGENT", connected
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Running draft",
                                    "--info", "n=1")
        shown = desktop.notified("Running draft")
        desktop.click(shown["id"], token=TOKEN)
        will = app_event(app_log, "will_continue", type=TYPE)
        assert will["activation_token"] == TOKEN, will
        done = app_event(app_log, "continue", type=TYPE)
        assert done["activation_token"] == TOKEN and done["title"] == "Running draft", done
        sender.event("continued", id=published["id"])
        activate = wait_for(lambda: next((r for r in json_lines(bus_log) if r.get("call") == "Activate"), None),
                            "Activate reached the running app")
        assert activate["platform_data"] == {"activation-token": TOKEN, "desktop-startup-id": TOKEN}, activate
        raised = agent_event(agent, "raise", bundle=name)
        assert raised["token"] is True, raised
        # Nothing was launched: it runs already.
        assert not any('"event":"launch"' in line for line in agent.stderr), agent.stderr
        assert json_lines(tmp_path / "never.jsonl") == []
        # The click closed the notification on the server, and the agent's
        # own close of it was answered "Invalid notification identifier":
        # nothing alarming in the log.
        wait_for(lambda: desktop.closed(shown["id"]), "the agent closed the notification")
        assert alarming(agent) == [], alarming(agent)
    finally:
        kill_apps(app_log)


def test_a_failed_bus_activation_is_named_as_such_not_as_no_app(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    socket_path = tmp_path / "run" / "agent.sock"
    name = "org.example.BusOnly"
    # D-Bus activation only (no Exec), and no service file: activation fails.
    desktop.install(name, name, [TYPE], None, dbus_activatable=True)
    agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
    publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Bus only")
    desktop.click(desktop.notified("Bus only")["id"], token=TOKEN)
    agent_event(agent, "launch-failed", bundle=name)
    failed = agent_event(agent, "choose-failed")
    assert f"{name}.desktop did not start" in failed["message"], failed
    assert "no app here continues" not in failed["message"], failed
