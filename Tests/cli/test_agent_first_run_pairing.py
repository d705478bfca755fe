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


def test_a_no_on_the_other_device_is_told_as_its_answer_not_as_codes_that_differed(tmp_path, procs):
    """Issue 34: the sponsor's "Not now" (or its window closing: REJECT is
    empty, the same message on the wire) read "refused or the codes
    differed" here. Now it says the other device ended it, without
    claiming which of the two it was."""
    scene = Scene(tmp_path, procs)
    sponsor_desktop, desktop, device, agent, item = (scene.sponsor_desktop, scene.desktop, scene.device, scene.agent,
                                                     scene.item)
    start_pairing(desktop, item, agent)
    prompt, asked, _ = compared(sponsor_desktop, desktop, item)
    desktop.click(asked["id"], "pair")
    sponsor_desktop.click(prompt["id"], "not-now")
    agent_event(agent, "pairing-ended")
    failed = desktop.notified("This device was not paired")
    assert failed["body"].startswith("Your other device ended the pairing"), failed
    assert "declined, or not answered in time" in failed["body"], failed
    assert "codes differ" not in failed["body"], failed
    assert failed["app_icon"] == "handoff", failed
    assert not device.account_file.exists()


def test_the_tray_joins_under_the_name_the_person_gave_the_machine(tmp_path, procs):
    """Issue 34: a device whose name was made up at first use ("root's
    computer") joined under it. The tray cannot ask; it says the name
    beforehand and takes the machine's pretty host name (what GNOME calls
    "Device Name") over a made-up one, saved; the outcome says how to
    rename."""
    port = free_port()
    sponsor_desktop = Desktop(tmp_path / "sponsor-desktop", procs)
    s, sponsor = sponsor_agent(tmp_path, procs, sponsor_desktop, port)
    desktop = Desktop(tmp_path / "desktop", procs)
    tray = Tray(desktop, procs, tmp_path / "watcher.jsonl")
    device = Device(tmp_path, "new", procs)
    unnamed = tmp_path / "machine-info-unnamed"
    unnamed.write_text("")
    named = tmp_path / "machine-info"
    named.write_text('PRETTY_HOSTNAME="Ada\'s tablet"\n')
    # Created before the person named the machine: the made-up name.
    assert device.run("device", env=dict(device.env, HANDOFF_TEST_MACHINE_INFO=str(unnamed))).code == 0
    made_up = (device.directory / "device").read_text()
    assert "Ada's tablet" not in made_up, made_up
    path = tmp_path / "new-run" / "agent.sock"
    agent = device.spawn("--json", "agent", "--socket", path, "--beacon-port", free_port(), "--no-multicast",
                         "--peer", f"127.0.0.1:{port}", "--channel", "127.0.0.1:0",
                         env=dict(desktop.env(device.env, path), HANDOFF_TEST_MACHINE_INFO=str(named)))
    agent.expect_stderr('"event":"waiting"')
    item = tray.registered()
    menu_shows(desktop, item, "This device: Ada's tablet")
    start_pairing(desktop, item, agent)
    prompt = sponsor_desktop.notified(PROMPT)
    assert "Ada's tablet" in prompt["body"], prompt
    asked = desktop.notified(ASK)
    sponsor_desktop.click(prompt["id"], "pair")
    desktop.click(asked["id"], "pair")
    agent_event(agent, "paired", role="joiner")
    assert "name=Ada's tablet\n" in (device.directory / "device").read_text()
    done = desktop.notified("Paired with Sponsor")
    assert "as “Ada's tablet”" in done["body"] and "handoff device --name" in done["body"], done
    sponsor.expect_stderr('"event":"paired"')
