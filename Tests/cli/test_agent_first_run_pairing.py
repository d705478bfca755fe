# SPDX-License-Identifier: MIT OR Apache-2.0
"""Pairing from the waiting agent's tray (docs/agent.md §10), as a person
meets it: a new device's agent, started before it has an account, runs on a
private dbus-daemon with the fake notification server and the fake
StatusNotifierWatcher; its tray says "Handoff is not set up" and offers
"Pair this device…". A device with an account runs its agent on another
private bus (it sponsors, §9). The test clicks as the person would.

- "Pair this device…", then Pair on both devices: the new device joins,
  its agent starts the engine on the same socket without a restart, and
  the running tray takes over from the waiting one;
- the menu's "Pair" answers the comparison as the notification's does;
- "Cancel" on the new device's question: nothing stored, the sponsor's
  question withdrawn, "This device was not paired" said once;
- "Cancel pairing" in the menu while it looks: nothing stored, nothing
  said, the menu offers pairing again;
- notifications off (--no-notifications): the tray alone carries the pairing."""

import re
import signal

from agent_desktop import Desktop, wait_for
from cli_support import WAIT, Device, free_port
from test_agent_first_run import ERROR, NOT_FOUND, WELCOME, hello
from test_agent_launch import agent_event
from test_agent_pairing import PROMPT, sponsor_agent
from tray_host import Tray, click, item_property, labelled, layout

ASK = "Pair this device?"
CODE = re.compile(r"\d{3} \d{3}")


def waiting_agent(tmp_path, procs, desktop, sponsor_port, name="Ada's laptop", *extra):
    """A device with no account, named, whose agent beacons to the sponsor."""
    device = Device(tmp_path, "new", procs)
    assert device.run("device", "--name", name).code == 0
    path = tmp_path / "new-run" / "agent.sock"
    agent = device.spawn("--json", "agent", *extra, "--socket", path, "--beacon-port", free_port(), "--no-multicast",
                         "--peer", f"127.0.0.1:{sponsor_port}", "--channel", "127.0.0.1:0",
                         env=desktop.env(device.env, path))
    agent.expect_stderr('"event":"waiting"')
    return device, agent, path


class Scene:
    """A device with an account and its agent (sponsoring) on one private
    bus; the new device's waiting agent on another, with a watcher whose
    registered item is `item`."""

    def __init__(self, tmp_path, procs, *extra, sponsor=True):
        port = free_port()
        if sponsor:
            self.sponsor_desktop = Desktop(tmp_path / "sponsor-desktop", procs)
            self.s, self.sponsor = sponsor_agent(tmp_path, procs, self.sponsor_desktop, port)
        self.desktop = Desktop(tmp_path / "desktop", procs)
        self.tray = Tray(self.desktop, procs, tmp_path / "watcher.jsonl")
        self.device, self.agent, self.path = waiting_agent(tmp_path, procs, self.desktop, port, "Ada's laptop", *extra)
        self.item = self.tray.registered()


def menu(desktop, item):
    return layout(desktop.address, item)[1]


def menu_shows(desktop, item, text):
    return wait_for(lambda: labelled(menu(desktop, item), text), f"{text!r} in the menu; got {menu(desktop, item)}")


def start_pairing(desktop, item, agent):
    items = menu(desktop, item)
    assert labelled(items, "Handoff is not set up")[1]["enabled"] is False, items
    assert click(desktop.address, item, labelled(items, "Pair this device")[0])[0]
    agent_event(agent, "joining")


def compared(sponsor_desktop, desktop, item):
    """The sponsor's question and the new device's, with the same code,
    also in the new device's menu."""
    prompt = sponsor_desktop.notified(PROMPT)
    asked = desktop.notified(ASK)
    code = CODE.search(prompt["body"]).group(0)
    assert code in asked["body"], (prompt, asked)
    assert asked["actions"] == ["pair", "Pair", "cancel", "Cancel"], asked
    assert "Ada's laptop" in prompt["body"], prompt
    menu_shows(desktop, item, f"Compare: {code}")
    return prompt, asked, code


def test_pair_this_device_joins_and_the_engine_starts_on_the_same_socket(tmp_path, procs):
    scene = Scene(tmp_path, procs)
    sponsor_desktop, s, sponsor, desktop, tray = scene.sponsor_desktop, scene.s, scene.sponsor, scene.desktop, scene.tray
    device, agent, path, waiting_item = scene.device, scene.agent, scene.path, scene.item
    assert re.fullmatch(r"org\.kde\.StatusNotifierItem-\d+-2", waiting_item), waiting_item
    assert item_property(desktop.address, waiting_item, "ToolTip")[2] == "Handoff is not set up"
    start_pairing(desktop, waiting_item, agent)
    prompt, asked, _ = compared(sponsor_desktop, desktop, waiting_item)
    assert labelled(menu(desktop, waiting_item), "Cancel pairing")

    sponsor_desktop.click(prompt["id"], "pair")
    desktop.click(asked["id"], "pair")
    paired = agent_event(agent, "paired", role="joiner")
    assert paired["peer"] == "Sponsor"
    sponsor.expect_stderr('"event":"paired"')
    assert device.account_file.read_text() == s.account_file.read_text()
    # The engine starts on the socket apps already knew, no restart.
    agent.expect_stderr('"event":"listening"')
    kind, body = hello(path)
    assert kind == WELCOME, body
    assert desktop.notified("Paired with Sponsor")
    # The running agent's tray follows the waiting one.
    running_item = tray.registered(2)
    assert re.fullmatch(r"org\.kde\.StatusNotifierItem-\d+-1", running_item), running_item
    assert labelled(menu(desktop, running_item), "Pause Handoff")
    assert len([n for n in desktop.notifications() if n.get("summary") == ASK]) == 1
    agent.signal(signal.SIGTERM)
    assert agent.proc.wait(timeout=WAIT) == 0


def test_the_menus_pair_answers_the_comparison_too(tmp_path, procs):
    scene = Scene(tmp_path, procs)
    sponsor_desktop, s, desktop, device, agent, item = (scene.sponsor_desktop, scene.s, scene.desktop, scene.device,
                                                        scene.agent, scene.item)
    start_pairing(desktop, item, agent)
    prompt, asked, _ = compared(sponsor_desktop, desktop, item)
    assert click(desktop.address, item, labelled(menu(desktop, item), "Pair (the other device")[0])[0]
    agent_event(agent, "joining-answer", match=True)
    # The question it answered goes.
    wait_for(lambda: desktop.closed(asked["id"]), "the question withdrawn")
    sponsor_desktop.click(prompt["id"], "pair")
    agent_event(agent, "paired", role="joiner")
    assert device.account_file.read_text() == s.account_file.read_text()
    agent.expect_stderr('"event":"listening"')


def test_cancel_on_the_question_stores_nothing_and_says_so_once(tmp_path, procs):
    scene = Scene(tmp_path, procs)
    sponsor_desktop, sponsor, desktop, device, agent, path, item = (scene.sponsor_desktop, scene.sponsor, scene.desktop,
                                                                    scene.device, scene.agent, scene.path, scene.item)
    start_pairing(desktop, item, agent)
    prompt, asked, _ = compared(sponsor_desktop, desktop, item)
    desktop.click(asked["id"], "cancel")
    ended = agent_event(agent, "pairing-ended")
    assert ended["cancelled"] is False, ended
    # The sponsor hears the no: its question goes unanswered.
    sponsor.expect_stderr('"event":"pairing-ended"')
    wait_for(lambda: sponsor_desktop.closed(prompt["id"]), "the sponsor's question withdrawn")
    assert not device.account_file.exists()
    failed = desktop.notified("This device was not paired")
    assert "nothing was exchanged" in failed["body"], failed
    menu_shows(desktop, item, "Pair this device")
    # Still waiting: apps are told so.
    kind, body = hello(path)
    assert kind == ERROR and body["code"] == NOT_FOUND, body
    assert len([n for n in desktop.notifications() if n.get("summary") == "This device was not paired"]) == 1


def test_cancel_pairing_in_the_menu_while_looking_says_nothing(tmp_path, procs):
    scene = Scene(tmp_path, procs, sponsor=False)  # nobody answers where it beacons
    desktop, device, agent, item = scene.desktop, scene.device, scene.agent, scene.item
    start_pairing(desktop, item, agent)
    menu_shows(desktop, item, "Looking for your other device")
    assert item_property(desktop.address, item, "ToolTip")[3] == "Looking for your other device…"
    assert click(desktop.address, item, labelled(menu(desktop, item), "Cancel pairing")[0])[0]
    ended = agent_event(agent, "pairing-ended")
    assert ended["cancelled"] is True, ended
    menu_shows(desktop, item, "Pair this device")
    assert not device.account_file.exists()
    assert not [n for n in desktop.notifications() if n.get("summary") == "This device was not paired"]
    # A second run starts as the first did.
    start_pairing(desktop, item, agent)
    menu_shows(desktop, item, "Cancel pairing")
    agent.signal(signal.SIGTERM)
    assert agent.proc.wait(timeout=WAIT) == 0
    assert not device.account_file.exists()


def test_with_notifications_off_the_tray_alone_pairs(tmp_path, procs):
    scene = Scene(tmp_path, procs, "--no-notifications")
    sponsor_desktop, s, desktop, device, agent, item = (scene.sponsor_desktop, scene.s, scene.desktop, scene.device,
                                                        scene.agent, scene.item)
    start_pairing(desktop, item, agent)
    prompt = sponsor_desktop.notified(PROMPT)
    code = CODE.search(prompt["body"]).group(0)
    menu_shows(desktop, item, f"Compare: {code}")
    assert click(desktop.address, item, labelled(menu(desktop, item), "Pair (the other device")[0])[0]
    sponsor_desktop.click(prompt["id"], "pair")
    agent_event(agent, "paired", role="joiner")
    assert device.account_file.read_text() == s.account_file.read_text()
    assert not [n for n in desktop.notifications() if n.get("call") == "Notify"], desktop.notifications()
