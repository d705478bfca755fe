# SPDX-License-Identifier: MIT OR Apache-2.0
"""Web domains end to end (issue 25 item 2, docs/agent.md §13): device A
offers a browser's page (NSUserActivityTypeBrowsingWeb, as the browser
bridge does); device B's agent runs on a private dbus-daemon with the fake
notification server and an app whose desktop entry claims the page's
domain. Clicking Continue launches that app, which gets the page as a
browsing-web continuation; with its web domains turned off by the person
(or off the domain) the page goes to the browser (a fake xdg-open on the
agent's PATH) and the notification says "Open in browser"."""

import os
import signal

from agent_desktop import Desktop, kill_apps, wait_for
from cli_support import loopback, publish
from test_agent_e2e import app_event

BROWSING = "NSUserActivityTypeBrowsingWeb"
BUNDLE = "org.example.Docs"
PAGE = "https://guide.docs.example.com/start?page=2"


def start(b, desktop, tmp_path, ports):
    """B's agent with a fake xdg-open first on its PATH (records the URL)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opened = tmp_path / "opened"
    (bin_dir / "xdg-open").write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n')
    os.chmod(bin_dir / "xdg-open", 0o755)
    socket_path = tmp_path / "run" / "agent.sock"
    env = desktop.env(b.env, socket_path)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', os.environ['PATH'])}"
    agent = b.spawn("--json", "agent", "--socket", socket_path, *loopback(ports[1], ports[0]), env=env)
    agent.expect_stderr('"event":"listening"')
    return agent, opened


def offer_page(a, ports, title):
    return publish(a, ports[0], ports[1], "--type", BROWSING, "--team", "LIBHANDOFF", "--title", title, "--url", PAGE)


def test_a_page_on_a_claimed_domain_launches_the_app_that_claims_it(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install(BUNDLE, BUNDLE, [], app_log, web_domains=["*.Example.com"])
    agent, opened = start(b, desktop, tmp_path, ports)
    try:
        sender, published = offer_page(a, ports, "The guide")
        shown = desktop.notified("The guide")
        assert "E2E app" in shown["body"], (shown, agent.stderr)  # the app, not the browser
        desktop.click(shown["id"])
        app_event(app_log, "will_continue", type=BROWSING)
        restored = app_event(app_log, "continue", type=BROWSING)
        assert restored["webpage_url"] == PAGE and restored["title"] == "The guide", restored
        sender.event("continued", id=published["id"])
        assert not opened.exists(), "the browser opened it too"
        sender.signal(signal.SIGTERM)
        assert sender.wait() == 0
    finally:
        kill_apps(app_log)
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0


def test_with_web_domains_off_the_page_opens_in_the_browser(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    app_log = tmp_path / "app.jsonl"
    desktop.install(BUNDLE, BUNDLE, [], app_log, web_domains=["*.example.com"])
    result = b.run("--json", "settings", "app", BUNDLE, "web-domains", "off")
    assert result.code == 0 and result.json()["web_domains_off"] == [BUNDLE], result
    agent, opened = start(b, desktop, tmp_path, ports)
    try:
        sender, _ = offer_page(a, ports, "Elsewhere")
        shown = desktop.notified("Elsewhere")
        assert "E2E app" not in shown["body"] and "Open in browser" in str(shown["actions"]), shown
        desktop.click(shown["id"])
        assert wait_for(lambda: opened.exists() and opened.read_text() == PAGE + "\n", "xdg-open got the page")
        assert not app_log.exists() or "continue" not in app_log.read_text()
        sender.signal(signal.SIGTERM)
        assert sender.wait() == 0
    finally:
        kill_apps(app_log)
    agent.signal(signal.SIGTERM)
    assert agent.wait() == 0
