# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent's notifications under a real notification server (issue 28,
docs/agent.md §6): Debian's dunst on its own Xvfb display and the test's
private dbus-daemon (never the person's bus or display). Device A publishes;
B's agent shows the offer, which dunst displays (`dunstctl count
displayed`); dunst is killed and another dunst started: the agent shows the
offer again on the new server; `dunstctl action 0` (the person's click)
continues it: the app is launched and restores; the agent's log has nothing
alarming for the click and the close race. Skipped without dunst or Xvfb
(scripts/install-deps.sh installs them)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_desktop import Desktop, OwnedProcess, kill_apps, wait_for
from cli_support import WAIT, Process, publish
from test_agent_e2e import TYPE, app_event, start_agent
from test_agent_launch import agent_event
from test_agent_notifications import alarming

pytestmark = pytest.mark.skipif(not (shutil.which("dunst") and shutil.which("dunstctl") and shutil.which("Xvfb")),
                                reason="dunst and Xvfb are not installed (scripts/install-deps.sh)")

DUNSTRC = """[global]
    follow = none
    font = Monospace 10
    format = "<b>%s</b>\\n%b"
    icon_position = left
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""


class Display:
    """Xvfb on a free display number (it picks one: -displayfd)."""

    def __init__(self, procs):
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x600x24", "-nolisten", "tcp"],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        procs.append(OwnedProcess(self.proc))
        with os.fdopen(read) as f:
            number = f.readline().strip()
        assert number.isdigit(), f"Xvfb gave no display: {number!r}"
        self.name = f":{number}"


def start_dunst(desktop, display, config, procs):
    env = dict(os.environ, DISPLAY=display.name, DBUS_SESSION_BUS_ADDRESS=desktop.address)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen(["dunst", "-config", str(config)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(OwnedProcess(proc))
    wait_for(lambda: dunstctl(desktop, "is-paused") in ("true", "false"), "dunst owns the notifications name")
    return proc


def dunstctl(desktop, *args):
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=desktop.address)
    done = subprocess.run(["dunstctl", *args], env=env, capture_output=True, text=True, timeout=WAIT)
    return done.stdout.strip() if done.returncode == 0 else None


def displayed(desktop):
    count = dunstctl(desktop, "count", "displayed")
    return int(count) if count and count.isdigit() else 0


def test_dunst_shows_the_offer_again_after_a_restart_and_a_click_continues_quietly(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs, fake=False)
    display = Display(procs)
    config = tmp_path / "dunstrc"
    config.write_text(DUNSTRC)
    app_log = tmp_path / "app.jsonl"
    socket_path = tmp_path / "run" / "agent.sock"
    desktop.install("org.example.Dunst", "org.example.Dunst", [TYPE], app_log)
    first = start_dunst(desktop, display, config, procs)
    try:
        agent = start_agent(b, desktop, socket_path, ports[1], ports[0])
        agent_event(agent, "notifications", available=True)
        sender, published = publish(a, ports[0], ports[1], "--type", TYPE, "--title", "Under dunst",
                                    "--info", "n=5")
        wait_for(lambda: displayed(desktop) == 1, "dunst displays the offer")
        screenshot(display, "dunst-offer")

        # The server goes; another takes the name: the offer is shown again.
        first.kill()
        first.wait(timeout=WAIT)
        start_dunst(desktop, display, config, procs)
        wait_for(lambda: displayed(desktop) == 1, "the new dunst displays the offer again")

        # The person clicks it (dunst: the only action is the default).
        assert dunstctl(desktop, "action", "0") is not None
        app_event(app_log, "will_continue", type=TYPE)
        done = app_event(app_log, "continue", type=TYPE)
        assert done["title"] == "Under dunst", done
        sender.event("continued", id=published["id"])
        wait_for(lambda: displayed(desktop) == 0, "the offer is gone once continued")
        assert alarming(agent) == [], alarming(agent)
    finally:
        kill_apps(app_log)


def screenshot(display, name):
    """Into /work/screens when that folder exists (a person looks at it; not
    part of the assertions)."""
    folder = Path("/work/screens")
    if not folder.is_dir() or not shutil.which("import"):
        return
    subprocess.run(["import", "-display", display.name, "-window", "root", str(folder / f"{name}.png")],
                   capture_output=True, timeout=WAIT)
