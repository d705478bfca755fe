# SPDX-License-Identifier: MIT OR Apache-2.0
"""KDE Plasma's tray hands the item an activation token
(`ProvideXdgActivationToken`, Plasma 5.26+) just before Activate or a menu
event (docs/agent.md §15 "Tokens end to end"): the app that event launches
or raises gets it, and only that event. Device B's agent on a private
dbus-daemon, registered with the fake StatusNotifierWatcher
(Tests/agent/fake_watcher.c); the test is the tray host (busctl), as
Plasma would be.

- An Exec app launched by a menu click holds the token as
  XDG_ACTIVATION_TOKEN and DESKTOP_STARTUP_ID; the next click, with no new
  token, launches it with neither; a token before SecondaryActivate (which
  does nothing) is not left for the click after it; nor is a token another
  bus client gave spent by the host's click.
- A D-Bus-activatable app started by the item's Activate gets the token as
  `activation-token` and `desktop-startup-id` platform data.
- The method is in the item's introspection; a wrong signature is
  refused ("takes (s)").
Apps the agent launched are not our children: killed by the pid they log."""

import json

from agent_desktop import Desktop, json_lines, kill_apps, wait_for
from cli_support import publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event
from tray_host import ITEM, Tray, busctl, click, labelled, layout, provide_then

TOKEN = "plasma-tray-token-51c2"
STALE = "plasma-tray-token-stale"


def provide(address, name, token, signature="s"):
    return busctl(address, "call", name, "/StatusNotifierItem", ITEM, "ProvideXdgActivationToken", signature, token,
                  check=False)


def offer_in_menu(address, name, title):
    _, items = wait_for(lambda: (lambda r: labelled(r[1], title) and r)(layout(address, name)), f"{title} in the menu")
    return labelled(items, title)[0]


def connections(log):
    return [e for e in json_lines(log) if e.get("event") == "connected"]


def test_a_menu_click_launches_the_app_with_the_hosts_token_and_the_next_click_has_none(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.TokenApp", "org.example.TokenApp", [TYPE], app_log)
    try:
        agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
        name = tray.registered()
        introspection = busctl(desktop.address, "call", name, "/StatusNotifierItem",
                               "org.freedesktop.DBus.Introspectable", "Introspect")[1]["data"][0]
        assert ('<method name="ProvideXdgActivationToken"><arg name="token" type="s" direction="in"/></method>'
                in introspection), introspection
        ok, error = provide(desktop.address, name, "42", signature="u")
        assert not ok and "ProvideXdgActivationToken takes (s), not (u)" in error, error

        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Tokened", "--info", "n=1")
        item = offer_in_menu(desktop.address, name, "Tokened")
        assert provide_then(desktop.address, name, TOKEN, item)
        chosen = agent_event(agent, "chosen", surface="tray")
        assert chosen["token"] is True, chosen
        assert agent_event(agent, "launch", bundle="org.example.TokenApp")["token"] is True
        first = wait_for(lambda: connections(app_log), "the app connected")[0]
        assert first["activation_token"] == TOKEN and first["startup_id"] == TOKEN, first
        app_event(app_log, "continue", type=TYPE)
        sender.event("continued", id=published["id"])
        sender.kill()
        kill_apps(app_log)
        agent_event(agent, "closed", reason="peer")

        # A token before SecondaryActivate was that event's (it does
        # nothing); the click after it, with no token of its own, has none.
        assert provide(desktop.address, name, STALE)[0]
        assert busctl(desktop.address, "call", name, "/StatusNotifierItem", ITEM, "SecondaryActivate", "ii", "0", "0")
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Untokened", "--info", "n=2")
        item = offer_in_menu(desktop.address, name, "Untokened")
        assert click(desktop.address, name, item)[0]
        second = wait_for(lambda: connections(app_log)[1:], "the app connected again")[0]
        assert second["activation_token"] is None and second["startup_id"] is None, second
        chosen = [e for e in map(json.loads, (l for l in list(agent.stderr) if l.startswith("{")))
                  if e.get("event") == "chosen"]
        assert [e["token"] for e in chosen] == [True, False], chosen
        sender.kill()
        kill_apps(app_log)

        # Another client's token (busctl's own connection) is not the
        # host's: its click, on the host's connection, launches without it.
        assert provide(desktop.address, name, STALE)[0]
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Others", "--info", "n=3")
        item = offer_in_menu(desktop.address, name, "Others")
        assert click(desktop.address, name, item)[0]
        third = wait_for(lambda: connections(app_log)[2:], "the app connected a third time")[0]
        assert third["activation_token"] is None and third["startup_id"] is None, third
        sender.kill()
    finally:
        kill_apps(app_log)


def test_activate_starts_a_dbus_activatable_app_with_the_token_as_platform_data(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    app_log, exec_log, bus_log = tmp_path / "app.jsonl", tmp_path / "exec.jsonl", tmp_path / "bus.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    bus_name = "org.example.TrayBusApp"
    desktop.install(bus_name, bus_name, [TYPE], exec_log, dbus_activatable=True)
    desktop.install_service(bus_name, bus_name, [TYPE], app_log, bus_log, desktop.env(b.env, socket_path))
    try:
        agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
        name = tray.registered()
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "By Activate", "--info", "n=3")
        offer_in_menu(desktop.address, name, "By Activate")
        assert provide_then(desktop.address, name, TOKEN, "activate")
        activate = wait_for(lambda: next((r for r in json_lines(bus_log) if r.get("call") == "Activate"), None),
                            "Activate reached the app")
        assert activate["platform_data"] == {"activation-token": TOKEN, "desktop-startup-id": TOKEN}, activate
        assert agent_event(agent, "chosen", surface="tray")["token"] is True
        connected = app_event(app_log, "connected")
        assert connected["activation_token"] == TOKEN, connected
        app_event(app_log, "continue", type=TYPE)
        sender.event("continued", id=published["id"])
        assert json_lines(exec_log) == [], "the Exec ran too"
    finally:
        kill_apps(app_log)
        kill_apps(exec_log)
