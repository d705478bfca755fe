# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent speaks the person's language in its notifications: a sponsor
agent started with LANGUAGE=de on a private D-Bus with the fake
notification server (Tests/agent/fake_notifications.c) asks "Ein neues
Gerät koppeln?" with German buttons when a new device runs `handoff pair`,
and the pairing goes through on the German "Koppeln". The joiner's
`handoff --json pair` stays as scripts read it: JSON is never translated.
And an activity another device offers: "In E2E app fortsetzen · von
Device A", "Fortsetzen", and
the click continues it."""

import os
import subprocess

from agent_desktop import Desktop, kill_apps
from cli_support import TOOL, WAIT, Device, Process, free_port, pair_of_devices, publish
from pairing_support import answer, outcome


def german(env):
    env = {k: v for k, v in env.items() if not k.startswith(("LC_", "LANG"))}
    return dict(env, LANGUAGE="de", LANG="C.UTF-8", HANDOFF_LOCALEDIR=os.environ["HANDOFF_LOCALEDIR"])


def test_the_pairing_prompt_is_german_and_pairs(tmp_path, procs):
    desktop = Desktop(tmp_path / "desktop", procs)
    port = free_port()
    sponsor = Device(tmp_path, "sponsor", procs)
    assert sponsor.run("account", "create").code == 0
    assert sponsor.run("device", "--name", "Sponsor").code == 0
    socket_path = tmp_path / "run" / "agent.sock"
    agent = sponsor.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", port, "--no-multicast",
                          "--peer", f"127.0.0.1:{free_port()}", "--channel", "127.0.0.1:0",
                          env=german(desktop.env(sponsor.env, socket_path)))
    agent.expect_stderr('"event":"listening"')

    joiner = Device(tmp_path, "Gerät-B", procs)
    assert joiner.run("device", "--name", "Gerät B").code == 0
    new = Process([str(TOOL), "--json", "pair", "--timeout", "90", "--beacon-port", str(free_port()),
                   "--no-multicast", "--peer", f"127.0.0.1:{port}", "--listen", "127.0.0.1:0"],
                  german(joiner.env), stdin=subprocess.PIPE)
    procs.append(new)
    code = new.event("code", timeout=WAIT * 2)
    assert code["text"] and "Vergleich" not in str(code)  # JSON events stay as they are

    shown = desktop.notified("Ein neues Gerät koppeln?")
    # The joiner names itself (its device name): the prompt says so, in German quotes.
    assert shown["body"] == f"Ein Gerät, das sich „Gerät B“ nennt, möchte beitreten. Vergleichen Sie: {code['text']}", shown
    assert shown["actions"] == ["pair", "Koppeln", "not-now", "Nicht jetzt"], shown
    desktop.click(shown["id"], "pair")
    answer(new, "y")
    status, paired = outcome(new)
    assert status == 0 and paired["event"] == "paired", (new.lines, new.stderr)
    done = desktop.notified("Mit Gerät B gekoppelt")
    assert done["body"] == "Es ist dem Konto dieses Geräts beigetreten.", done


def test_an_activity_notification_is_german_and_continues(tmp_path, procs):
    # Device A publishes; device B's agent, in German, offers it through the
    # app installed for its type: "von Device A", "Fortsetzen"; the click continues it.
    a, b = pair_of_devices(tmp_path, procs)
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.L10n", "org.example.L10n", ["com.example.l10n.edit"], app_log)
    socket_path = tmp_path / "run" / "agent.sock"
    ports = free_port(), free_port()
    try:
        agent = b.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", ports[1], "--no-multicast",
                        "--peer", f"127.0.0.1:{ports[0]}", "--channel", "127.0.0.1:0",
                        env=german(desktop.env(b.env, socket_path)))
        agent.expect_stderr('"event":"listening"')
        sender, published = publish(a, ports[0], ports[1], "--type", "com.example.l10n.edit", "--title", "Entwurf 7")
        shown = desktop.notified("Entwurf 7")
        assert shown["body"] == "In E2E app fortsetzen · von Device A", shown  # AgentTexts.continueIn
        assert shown["actions"] == ["default", "Fortsetzen", "continue", "Fortsetzen"], shown
        desktop.click(shown["id"])
        sender.event("continued", id=published["id"])
    finally:
        kill_apps(app_log)  # launched by the agent: not our child


def test_the_tray_menu_and_tooltip_are_german(tmp_path, procs):
    # The tray (Tests/cli/tray_host.py: the fake StatusNotifierWatcher, busctl
    # as the panel): German labels, and the tooltip's plural form.
    from tray_host import Tray, item_property, labelled, layout
    from agent_desktop import wait_for
    a, b = pair_of_devices(tmp_path, procs)
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.L10n", "org.example.L10n", ["com.example.l10n.edit"], app_log)
    socket_path = tmp_path / "run" / "agent.sock"
    ports = free_port(), free_port()
    try:
        agent = b.spawn("--json", "agent", "--socket", socket_path, "--beacon-port", ports[1], "--no-multicast",
                        "--peer", f"127.0.0.1:{ports[0]}", "--channel", "127.0.0.1:0",
                        env=german(desktop.env(b.env, socket_path)))
        agent.expect_stderr('"event":"listening"')
        name = tray.registered()
        _, items = layout(desktop.address, name)
        assert labelled(items, "Nichts zum Fortsetzen") and labelled(items, "Handoff pausieren"), items
        assert labelled(items, "Ein neues Gerät koppeln…") and labelled(items, "Geräte"), items
        assert item_property(desktop.address, name, "ToolTip")[3] == "Nichts zum Fortsetzen"
        publish(a, ports[0], ports[1], "--type", "com.example.l10n.edit", "--title", "Entwurf 9")
        tip = wait_for(lambda: (lambda t: t[2] != "Handoff" and t)(item_property(desktop.address, name, "ToolTip")),
                       "the tooltip names the offer")
        assert tip[2] == "1 Aktivität zum Fortsetzen" and tip[3] == "Entwurf 9 von Device A", tip
        _, items = layout(desktop.address, name)
        assert labelled(items, "Entwurf 9 — "), items  # "<title> — <app> (von Device A)"
        assert labelled(items, "(von Device A)"), items
    finally:
        kill_apps(app_log)


def test_search_results_are_described_in_german(tmp_path, procs):
    # The desktop's search of the history (docs/history.md): GNOME Shell's
    # metas and KRunner's subtext say "App · Gerät · vor 5 min".
    from test_history_search import GNOME, History
    a, b = pair_of_devices(tmp_path, procs)
    desktop = Desktop(tmp_path / "desktop", procs)
    history = History(b, desktop, tmp_path, (free_port(), free_port()), language=german)
    history.serving()
    entry = history.add("Einkaufsliste", bundle="org.example.Fehlt", device="Küche", seconds_ago=330)
    assert history.search("einkauf") == [entry]
    meta = history.metas(entry)[0]
    assert meta["description"] == "org.example.Fehlt · Küche · vor 5 min", meta
    assert history.match("einkauf")[0][5]["subtext"]["data"] == "org.example.Fehlt · Küche · vor 5 min"
    assert history.call(GNOME, "LaunchSearch", "asu", 0, 0) == []
