# SPDX-License-Identifier: MIT OR Apache-2.0
"""A tab handed between two devices (issue 25): device A runs a real
browser (Firefox ESR, Chromium) with the extension (bridges/browser/extension)
and the real native host, `handoff browser-host`, connected to A's agent;
device B's agent runs with a recording notification server and a fake
xdg-open. The page A's focused window shows is offered to B (B's
notification names its title); focus loss on A withdraws it; Continue on B
opens it there (xdg-open: B has no browser bridge). Back: a page B offers,
continued on A, opens in a new tab of A's browser through the extension,
whose window comes forward. Skipped only when the browser is not installed."""

import os
import shutil
import signal

import pytest

from agent_desktop import Desktop
from browser_support import Chromium, Display, Firefox, Pages, RealHost, wait_for
from cli_support import TOOL, free_port, loopback


@pytest.fixture(params=[Firefox, Chromium], ids=["firefox", "chromium"])
def kind(request):
    if not shutil.which(request.param.BINARY):
        pytest.skip(f"{request.param.BINARY} is not installed (scripts/install-deps.sh installs it)")
    return request.param


def agent_of(device, desktop, root, own_port, peer_port, name):
    """The device's agent on its own socket and bus, with a fake xdg-open
    (records the URLs) first on its PATH."""
    bin_dir = root / f"{name}-bin"
    bin_dir.mkdir()
    opened = root / f"{name}-opened"
    (bin_dir / "xdg-open").write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n')
    os.chmod(bin_dir / "xdg-open", 0o755)
    socket_path = root / f"{name}-run" / "agent.sock"
    env = desktop.env(device.env, socket_path)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', os.environ['PATH'])}"
    agent = device.spawn("--json", "agent", "--socket", socket_path, *loopback(own_port, peer_port), env=env)
    agent.expect_stderr('"event":"listening"')
    return agent, env, opened


def test_a_tab_is_offered_to_the_other_device_and_pages_come_back_as_tabs(kind, pair, ports, tmp_path, procs):
    a, b = pair
    desktop_a = Desktop(tmp_path / "desktop-a", procs)
    desktop_b = Desktop(tmp_path / "desktop-b", procs)
    agent_a, env_a, opened_a = agent_of(a, desktop_a, tmp_path, ports[0], ports[1], "a")
    agent_b, env_b, opened_b = agent_of(b, desktop_b, tmp_path, ports[1], ports[0], "b")
    display = Display(tmp_path)
    pages = Pages()
    host = RealHost(tmp_path, TOOL, env_a)
    browser = None
    try:
        browser = (Firefox(tmp_path, display, host, free_port()) if kind is Firefox
                   else Chromium(tmp_path, display, host))
        url = pages.url("A page to hand off")
        browser.open(url)
        display.focus_window_named("A page to hand off", kind.TITLE_SUFFIX)
        first = desktop_b.notified("A page to hand off")
        # Focus goes to another program: the offer is withdrawn on B.
        display.focus_elsewhere()
        wait_for(lambda: desktop_b.closed(first["id"]), "B's notification to close when A's browser loses focus")
        # Focus back: offered again; Continue on B opens the page there.
        display.focus_window_named("A page to hand off", kind.TITLE_SUFFIX)
        shown = wait_for(lambda: next((r for r in desktop_b.notifications() if r.get("call") == "Notify"
                                       and "A page to hand off" in (r.get("summary") or "")
                                       and r.get("id") != first["id"]), None), "B's notification again")
        desktop_b.click(shown["id"])
        wait_for(lambda: opened_b.exists() and url in opened_b.read_text().split("\n"),
                 f"B to open the page; host log: {host.log.read_text() if host.log.exists() else ''}")
        # And back: B offers a page; Continue on A opens it in A's browser
        # through the extension (A's browser bridge is connected).
        page = pages.url("A page from B")
        display.focus_elsewhere()
        sender = b.spawn("--json", "publish", "--agent", "--type", "NSUserActivityTypeBrowsingWeb",
                         "--team", "LIBHANDOFF", "--title", "A page from B", "--url", page, env=env_b)
        sender.event("publishing")
        shown = desktop_a.notified("A page from B")
        desktop_a.click(shown["id"])
        wait_for(lambda: page in browser.tab_urls(), "the page from B in a tab of A's browser")
        wait_for(lambda: display.active_window_name().startswith("A page from B"), "A's browser window to come forward")
        assert not opened_a.exists(), "A's xdg-open got the page: the extension should have opened it"
        sender.signal(signal.SIGTERM)
        sender.wait()
    finally:
        if browser:
            browser.close()
        pages.close()
        display.close()
    for agent in (agent_a, agent_b):
        agent.signal(signal.SIGTERM)
        assert agent.wait() == 0
