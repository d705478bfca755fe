# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tray (issue #28 item 1, docs/agent.md §6 "The tray"), as a panel
meets it: device B's agent on a private dbus-daemon with the fake
notification server and the fake StatusNotifierWatcher of
Tests/agent/fake_watcher.c; the test acts as the tray host with busctl
(reads the item's properties and the menu's layout, sends "clicked").

- B registers org.kde.StatusNotifierItem-<pid>-1, Active (Xfce and GNOME's
  AppIndicator hide a Passive item) with the idle icon; device A
  publishes; the icon turns handoff-available, the menu lists the offer
  with the app's name and A's name; its "clicked" launches the app on B,
  which restores what A published; A's withdrawal brings the idle icon
  back, still Active.
- Pause: "Resume Handoff" and the paused icon, Active; every change a
  LayoutUpdated with a new revision, NewIcon on each icon change.
- Two real agents: B's menu shows A online, A's rename (`handoff device
  --name` while A's agent runs) and A going offline, without the host
  calling AboutToShow, each announced by LayoutUpdated.
- No watcher: "no tray" is logged once, the agent works, and a watcher
  that appears later (and another after it) gets the registration again;
  the first one going is logged once too.
- Malformed calls from any process get D-Bus errors, the agent answers on.
- --no-tray: no item at all."""

import re

import pytest

from agent_desktop import Desktop, kill_apps, wait_for
from cli_support import publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event
from tray_host import ITEM, MENU, Signals, Tray, busctl, click, item_property, labelled, layout


def test_the_menu_lists_the_offer_and_its_click_continues_it_on_this_device(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    app_log = tmp_path / "app.jsonl"
    desktop.install("org.example.Tray", "org.example.Tray", [TYPE], app_log, icon="accessories-text-editor")
    socket_path = tmp_path / "run" / "agent.sock"
    try:
        agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
        name = tray.registered()
        assert re.fullmatch(r"org\.kde\.StatusNotifierItem-\d+-1", name), name
        assert item_property(desktop.address, name, "Category") == "ApplicationStatus"
        assert item_property(desktop.address, name, "Id") == "handoff"
        assert item_property(desktop.address, name, "ItemIsMenu") is True
        assert item_property(desktop.address, name, "Menu") == "/MenuBar"
        assert item_property(desktop.address, name, "IconThemePath").endswith("/share/icons")
        assert item_property(desktop.address, name, "Status") == "Active"
        assert item_property(desktop.address, name, "IconName") == "handoff"
        _, items = layout(desktop.address, name)
        assert labelled(items, "Nothing to continue")[1]["enabled"] is False
        pause = labelled(items, "Pause Handoff")
        assert "toggle-type" not in pause[1], pause
        assert labelled(items, "Pair a new device")
        assert busctl(desktop.address, "get-property", name, "/MenuBar", MENU, "Version")[1]["data"] == 3

        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Draft 9", "--info", "n=42")
        wait_for(lambda: item_property(desktop.address, name, "IconName") == "handoff-available", "the offer's icon")
        assert item_property(desktop.address, name, "Status") == "Active"
        tip = item_property(desktop.address, name, "ToolTip")
        assert tip[2] == "1 thing to continue" and "Draft 9 from Device A" in tip[3], tip
        revision, items = wait_for(lambda: (lambda r: labelled(r[1], "Draft 9") and r)(layout(desktop.address, name)),
                                   "the offer in the menu")
        offer = labelled(items, "Draft 9")
        assert offer[1]["label"] == "Draft 9 — E2E app (from Device A)", offer
        assert offer[1]["icon-name"] == "accessories-text-editor", offer  # the app's Icon=
        assert labelled(items, "Nothing to continue") is None
        agent_event(agent, "tray", state="registered", offers=1)

        ok, _ = click(desktop.address, name, offer[0])
        assert ok
        agent_event(agent, "chosen", surface="tray")
        assert agent_event(agent, "launch", bundle="org.example.Tray")["how"] == "exec"
        app_event(app_log, "will_continue", type=TYPE)
        continued = app_event(app_log, "continue", type=TYPE)
        assert continued["title"] == "Draft 9" and continued["user_info"] == {"n": "42"}, continued
        sender.event("continued", id=published["id"])

        sender.kill()  # A stops offering: its withdrawal reaches B
        wait_for(lambda: item_property(desktop.address, name, "IconName") == "handoff", "the idle icon again")
        assert item_property(desktop.address, name, "Status") == "Active"
        new_revision, items = layout(desktop.address, name)
        assert new_revision > revision and labelled(items, "Draft 9") is None, items
    finally:
        kill_apps(app_log)


def test_pause_offers_resume_the_icon_follows_and_each_change_is_announced(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    signals = Signals(desktop.address, procs, tmp_path / "monitor.txt")
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
    name = tray.registered()
    revision, items = layout(desktop.address, name)
    assert click(desktop.address, name, labelled(items, "Pause Handoff")[0])[0]
    agent_event(agent, "pause", paused=True)
    revision_paused, items = layout(desktop.address, name)
    assert labelled(items, "Resume Handoff") and not labelled(items, "Pause Handoff"), items
    assert item_property(desktop.address, name, "IconName") == "handoff-paused"
    assert item_property(desktop.address, name, "Status") == "Active", "paused, still in reach"
    assert revision_paused > revision
    wait_for(lambda: revision_paused in signals.revisions(), f"LayoutUpdated {revision_paused}; {signals.revisions()}")
    wait_for(lambda: signals.heard("NewIcon"), "NewIcon")
    assert click(desktop.address, name, labelled(items, "Resume Handoff")[0])[0]
    agent_event(agent, "pause", paused=False)
    assert item_property(desktop.address, name, "IconName") == "handoff"
    assert labelled(layout(desktop.address, name)[1], "Pause Handoff")
    # The tray's pause is the settings file's (docs/agent.md §11), both ways:
    # what it wrote, and a pause set by `handoff settings` shows in the tray.
    assert "Paused=false" in (b.directory / "settings").read_text()
    assert b.run("settings", "pause").code == 0
    wait_for(lambda: item_property(desktop.address, name, "IconName") == "handoff-paused", "the tray showed the pause")
    assert b.run("settings", "resume").code == 0
    wait_for(lambda: item_property(desktop.address, name, "IconName") == "handoff", "the tray showed the resume")
    revisions = wait_for(lambda: (lambda r: len(r) >= 4 and r)(signals.revisions()), "four LayoutUpdated")
    assert revisions == sorted(set(revisions)), revisions
    # Only Active was ever said: no NewStatus for a state the item never leaves.
    assert all(args == ['string "Active"'] for args in signals.heard("NewStatus")), signals.heard("NewStatus")
    assert not any("member=AboutToShow" in line for line in signals.log.read_text().splitlines())
    assert click(desktop.address, name, labelled(items, "Pair a new device")[0])[0]
    agent_event(agent, "pair-help")
    helped = desktop.notified("Pair a new device")
    assert helped["app_icon"] == "handoff", helped


def test_devices_renames_and_going_offline_reach_the_menu_without_about_to_show(pair, ports, tmp_path, procs):
    """Two real agents on loopback: B's menu, read with GetLayout only (as
    Xfce does after a LayoutUpdated), follows A."""
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    signals = Signals(desktop.address, procs, tmp_path / "monitor.txt")
    agent_b = start_agent(b, desktop, tmp_path / "run" / "b.sock", ports[1], ports[0])
    desktop_a = Desktop(tmp_path / "desktop-a", procs)
    agent_a = start_agent(a, desktop_a, tmp_path / "run" / "a.sock", ports[0], ports[1])
    name = tray.registered()

    def device_line(text):
        return wait_for(lambda: labelled(layout(desktop.address, name)[1], text), f"{text!r} in B's menu; "
                        f"{layout(desktop.address, name)[1]}")

    assert device_line("This device: Device B")
    device_line("Device A — online")
    # A renamed while its agent runs: it tells the others at once.
    before = len(signals.revisions())
    assert a.run("device", "--name", "Kitchen iMac").code == 0
    agent_event(agent_a, "renamed", device="Kitchen iMac")
    device_line("Kitchen iMac — online")
    wait_for(lambda: len(signals.revisions()) > before, "a LayoutUpdated for the rename")
    # B renamed: its own menu says so.
    assert b.run("device", "--name", "Desk").code == 0
    agent_event(agent_b, "renamed", device="Desk")
    device_line("This device: Desk")
    # A stops: offline in B's menu, announced, nobody asked.
    before = len(signals.revisions())
    agent_a.proc.terminate()
    agent_a.proc.wait(timeout=30)
    device_line("Kitchen iMac — offline")
    wait_for(lambda: len(signals.revisions()) > before, "a LayoutUpdated for going offline")
    assert not any("member=AboutToShow" in line for line in signals.log.read_text().splitlines())
    assert agent_b.proc.poll() is None


def test_without_a_watcher_it_says_so_once_and_registers_with_each_watcher_that_appears(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    desktop.install("org.example.Tray", "org.example.Tray", [TYPE], tmp_path / "app.jsonl")
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
    agent_event(agent, "tray", state="no watcher")
    # The agent works without it: A's offer still reaches the notifications.
    sender, _ = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "No tray")
    desktop.notified("No tray")

    first = Tray(desktop, procs, tmp_path / "watcher1.jsonl")
    name = first.registered()
    agent_event(agent, "tray", state="registered")
    first.stop()
    agent_event(agent, "tray", message="no tray: the StatusNotifierWatcher went away (the agent works without it; "
                "a tray that starts later shows it)")
    second = Tray(desktop, procs, tmp_path / "watcher2.jsonl")
    assert second.registered() == name
    # Once at the start, once when the first watcher went (after a registration in between).
    assert sum('"no tray:' in line for line in agent.stderr) == 2, agent.stderr
    assert agent.proc.poll() is None


MALFORMED = [
    # (path, interface, member, signature, args, what the D-Bus error says); busctl shows the message only
    ("/MenuBar", MENU, "GetLayout", "s", ["x"], "GetLayout takes (iias), not (s)"),
    ("/MenuBar", MENU, "GetLayout", "iias", ["424242", "-1", "0"], "no menu item 424242"),
    ("/MenuBar", MENU, "GetLayout", "", [], "GetLayout takes (iias), not ()"),
    ("/MenuBar", MENU, "Event", "isvu", ["-7", "clicked", "s", "", "0"], "no menu item -7"),
    ("/MenuBar", MENU, "Event", "is", ["1", "clicked"], "Event takes (isvu)"),
    ("/MenuBar", MENU, "EventGroup", "a(isvu)", ["1", "99999", "clicked", "i", "3", "0"], "no menu item among"),
    ("/MenuBar", MENU, "EventGroup", "ai", ["2", "1", "2"], "EventGroup takes (a(isvu))"),
    ("/MenuBar", MENU, "GetProperty", "is", ["1", "no-such"], "no property no-such"),
    ("/MenuBar", MENU, "GetProperty", "is", ["31337", "label"], "no menu item 31337"),
    ("/MenuBar", MENU, "AboutToShow", "s", ["0"], "AboutToShow takes (i)"),
    ("/MenuBar", MENU, "NoSuchMethod", "", [], "no method NoSuchMethod"),
    ("/MenuBar", "org.freedesktop.DBus.Properties", "Get", "ss", [MENU, "Nope"], "no property Nope"),
    ("/MenuBar", "org.freedesktop.DBus.Properties", "Set", "ssv", [MENU, "Version", "u", "4"], "read-only"),
    ("/MenuBar", "org.freedesktop.DBus.Properties", "GetAll", "i", ["3"], "GetAll takes (s)"),
    ("/StatusNotifierItem", ITEM, "Activate", "s", ["x"], "Activate takes (ii)"),
    ("/StatusNotifierItem", ITEM, "Scroll", "ii", ["1", "2"], "Scroll takes (is)"),
    ("/StatusNotifierItem", "org.freedesktop.DBus.Properties", "Get", "s", [ITEM], "Get takes (ss)"),
    ("/StatusNotifierItem", "org.freedesktop.DBus.Properties", "Get", "ss", ["org.x", "Id"], "no interface org.x"),
    ("/StatusNotifierItem", "org.freedesktop.DBus.Introspectable", "Introspect", "s", ["x"], "Introspect takes ()"),
    ("/NotOurs", ITEM, "Activate", "ii", ["0", "0"], "Unknown object"),
]


def test_malformed_calls_get_dbus_errors_and_the_agent_answers_on(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
    name = tray.registered()
    for path, interface, member, signature, args, expected in MALFORMED:
        ok, error = busctl(desktop.address, "call", name, path, interface, member, signature, *args, check=False)
        assert not ok and expected in error, (member, signature, args, error)
    # A group with unknown and known ids: the known ones answer, unknown ones are left out.
    reply = busctl(desktop.address, "call", name, "/MenuBar", MENU, "GetGroupProperties", "aias",
                   "3", "1", "-5", "77777", "0")[1]
    assert [entry[0] for entry in reply["data"][0]] == [1], reply
    introspection = busctl(desktop.address, "call", name, "/StatusNotifierItem",
                           "org.freedesktop.DBus.Introspectable", "Introspect")[1]["data"][0]
    assert '<interface name="org.kde.StatusNotifierItem">' in introspection
    assert busctl(desktop.address, "call", name, "/MenuBar", MENU, "AboutToShow", "i", "0")[1]["data"] == [False]
    assert labelled(layout(desktop.address, name)[1], "Pause Handoff")
    assert agent.proc.poll() is None


def test_no_tray_turns_it_off(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    desktop.install("org.example.Tray", "org.example.Tray", [TYPE], tmp_path / "app.jsonl")
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0], "--no-tray")
    sender, _ = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Only notified")
    desktop.notified("Only notified")
    assert tray.registrations() == []
    names = busctl(desktop.address, "list")[1]
    assert not any(entry["name"].startswith("org.kde.StatusNotifierItem") for entry in names), names
    assert not any('"event":"tray"' in line for line in agent.stderr)


def _random_call(rng, name):
    """One call: a third well-typed with random values, the rest with a
    member the objects serve (or not) and arguments of random types."""
    if rng.randrange(3) == 0:
        item = str(rng.choice([0, 1, 2, 3, 4, 5, 6, 10, 11, 100, 1000, -1, 2**31 - 1]))
        return rng.choice([
            [name, "/MenuBar", MENU, "GetLayout", "iias", item, str(rng.randrange(-2, 3)), "1", "label"],
            [name, "/MenuBar", MENU, "GetProperty", "is", item, rng.choice(["label", "enabled", "type", "x"])],
            [name, "/MenuBar", MENU, "Event", "isvu", item, rng.choice(["hovered", "opened", "closed"]), "i", "0", "0"],
            [name, "/MenuBar", MENU, "AboutToShow", "i", item],
            [name, "/MenuBar", MENU, "GetGroupProperties", "aias", "2", item, "1", "0"],
            [name, "/StatusNotifierItem", ITEM, "Scroll", "is", item, "vertical"],
            [name, "/StatusNotifierItem", "org.freedesktop.DBus.Properties", "GetAll", "s", ITEM],
        ])
    path = rng.choice(["/MenuBar", "/StatusNotifierItem", "/MenuBar/0", "/"])
    interface = rng.choice([MENU, ITEM, "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable"])
    member = rng.choice(["GetLayout", "GetGroupProperties", "GetProperty", "Event", "EventGroup", "AboutToShow",
                         "AboutToShowGroup", "Activate", "SecondaryActivate", "ContextMenu", "Scroll", "Get", "GetAll",
                         "Set", "Introspect", "Nope"])
    signature, args = "", []
    for _ in range(rng.randrange(0, 5)):
        kind = rng.choice("isuvab")
        if kind == "i":
            signature += "i"
            args.append(str(rng.choice([0, 1, 2, -1, 2**31 - 1, -2**31, 1000, rng.randrange(-99999, 99999)])))
        elif kind == "u":
            signature += "u"
            args.append(str(rng.choice([0, 3, 2**32 - 1])))
        elif kind == "s":
            signature += "s"
            args.append(rng.choice(["", "clicked", "Id", MENU, ITEM, "ü" * 50, "x" * 4000]))
        elif kind == "b":
            signature += "b"
            args.append(rng.choice(["true", "false"]))
        elif kind == "v":
            signature += "v"
            args += rng.choice([["s", "hi"], ["i", "5"], ["as", "2", "a", "b"]])
        else:
            signature += "ai"
            count = rng.randrange(0, 6)
            args += [str(count)] + [str(rng.randrange(-5, 1005)) for _ in range(count)]
    return [name, path, interface, member, signature, *args]


def test_random_calls_never_take_the_agent_down(pair, ports, tmp_path, procs):
    """Fuzz-ish: 300 calls of random members, types and values (fixed seed),
    each answered (a reply or an error); then the menu still answers and
    the agent still runs. Clicks that land on Pause or Pair are fine."""
    import random
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    agent = start_agent(b, desktop, tmp_path / "run" / "agent.sock", ports[1], ports[0])
    name = tray.registered()
    rng = random.Random(28)
    outcomes = {"reply": 0, "refused": 0, "busctl": 0}
    for _ in range(300):
        ok, answer = busctl(desktop.address, "call", *_random_call(rng, name), check=False)
        # "Call failed": the bus or the agent answered an error; else busctl
        # itself would not send such arguments.
        kind = "reply" if ok else "refused" if "Call failed" in answer else "busctl"
        outcomes[kind] += 1
    print(outcomes)
    # Most reach the agent, some are answered.
    assert outcomes["reply"] > 0 and outcomes["refused"] > 100, outcomes
    assert labelled(layout(desktop.address, name)[1], "Pair a new device")
    assert agent.proc.poll() is None
