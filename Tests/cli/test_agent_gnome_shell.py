# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent inside a real GNOME Shell (Debian's 43, headless Wayland,
Tests/support/gnome_shell.py): the shell itself serves the
notifications. Device A offers an activity; B's agent notifies, and what
the shell shows reads whole, in the banner and in the message list (the
date menu): the activity's title and the app that will open it, neither
cut by the shell. The person's click on the banner continues it: the app
is launched and restores the activity. Skipped without gnome-shell (the
install script installs it)."""

import json
import shutil
from pathlib import Path

import pytest

import gnome_shell
from agent_desktop import Desktop, kill_apps, wait_for
from cli_support import publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event

pytestmark = pytest.mark.skipif(gnome_shell.available() is not None,
                                reason=f"no GNOME Shell here: {gnome_shell.available()}")

TITLE = "Shopping list for Saturday"
APP = "E2E app"  # the Name= of the test's desktop entry

# The notification with this title, as the message list (the date menu)
# shows it; the menu is opened so the shell lays it out.
MESSAGE_LIST = """(() => {
    const menu = imports.ui.main.panel.statusArea.dateMenu;
    menu.menu.open(false);
    const messages = menu._messageList._notificationSection._messages;
    const message = messages.find(m => m.notification && m.notification.title === %s);
    if (!message || !message.titleLabel.has_allocation()) return null;
    const cut = label => label.clutter_text.get_layout().is_ellipsized();
    return {title: message.titleLabel.text, body: message.bodyLabel.actor.text,
            titleCut: cut(message.titleLabel), bodyCut: cut(message.bodyLabel.actor)};
})()"""

ACTIVATE = """(() => {
    for (const source of imports.ui.main.messageTray.getSources())
        for (const notification of source.notifications)
            if (notification.title === %s) { notification.activate(); return true; }
    return false;
})()"""


def shown_whole(seen):
    """`seen` (title, body, and whether the shell cut them) names the
    activity and the app, and the shell cut neither."""
    text = f"{seen['title']} {seen['body']}"
    return TITLE in text and APP in text and not seen["titleCut"] and not seen["bodyCut"]


def test_an_offer_reads_whole_in_gnome_shell_and_a_click_continues_it(pair, ports, tmp_path, procs):
    a, b = pair
    root = tmp_path / "desktop"
    shell = gnome_shell.GnomeShell(tmp_path / "shell", servicedirs=[Desktop.services_folder(root)])
    procs.append(shell)
    desktop = Desktop(root, procs, fake=False, bus=shell.bus)
    app_log = tmp_path / "app.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    desktop.install("org.example.Shell", "org.example.Shell", [TYPE], app_log)
    try:
        agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
        agent_event(agent, "notifications", available=True)
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", TITLE)

        banner = wait_for(lambda: (lambda seen: seen if seen and TITLE in seen["title"] + seen["body"] else None)(
            shell.banner()), "GNOME Shell shows the offer's banner")
        screenshot(shell, "gnome-shell-offer-banner")
        assert shown_whole(banner), banner

        listed = wait_for(lambda: shell.eval(MESSAGE_LIST % repr_js(banner["title"])),
                          "the offer in the message list")
        screenshot(shell, "gnome-shell-offer-message-list")
        assert shown_whole(listed), listed
        shell.eval("imports.ui.main.panel.statusArea.dateMenu.menu.close(false); true")

        # The person clicks it: the shell activates the default action.
        assert shell.eval(ACTIVATE % repr_js(banner["title"])) is True
        app_event(app_log, "will_continue", type=TYPE)
        done = app_event(app_log, "continue", type=TYPE)
        assert done["title"] == TITLE, done
        sender.event("continued", id=published["id"])
    finally:
        kill_apps(app_log)


def repr_js(text):
    """`text` as a JavaScript string literal."""
    return json.dumps(text)


def screenshot(shell, name):
    """Into /work/screens when that folder exists (a person looks at it;
    not part of the assertions)."""
    folder = Path("/work/screens")
    if folder.is_dir() and shutil.which("gdbus"):
        shell.screenshot(folder / f"{name}.png")
