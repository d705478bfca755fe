# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browser bridge as Debian installs extensions (docs/browser.md §1):
webext-handoff-firefox and webext-handoff-chromium in a fresh Debian root
that has Debian's firefox-esr and chromium. A person starts either browser
with a fresh profile and loads nothing by hand; the browser runs the
extension, the extension starts the native host of the handoff package,
the person's agent sees the browser (its host registers), and the page in
front is offered to another device of the account (`handoff nearby` there).

The browsers draw on an Xvfb of the host with openbox (Tests/cli's
Display: the chroot reaches the display's abstract socket) and load a page
served on the host's 127.0.0.1; every other address goes to a proxy that
does not exist. They run as a user of the root, chrooted, so without their
sandboxes (Chromium's --no-sandbox: a chroot cannot make user namespaces)."""

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import children
import ports
from streams import lines_of, wait_event

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from browser_support import Display, Pages  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXTENSION = "/usr/share/handoff/browser-extension"
FIREFOX_SYSTEM = "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}"
CHROMIUM_SYSTEM = "/usr/share/chromium/extensions"
HOST = "org.libhandoff.browser"
TITLE = "A page to hand off"
WAIT = 90  # seconds: a browser's first start in a fresh root on a busy machine


def chromium_id(key):
    """The id Chromium gives an extension whose manifest has `key` (base64
    DER public key): the first 128 bits of its SHA-256, digits 0-f as a-p."""
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(digit, 16)) for digit in digest)


def test_the_webext_packages_link_the_extension_where_the_browsers_look(browser_root):
    manifest = json.loads(browser_root.file(f"{EXTENSION}/manifest.json").read_text())
    gecko = manifest["browser_specific_settings"]["gecko"]["id"]
    # Firefox: a folder named by the extension's id in the system scope.
    firefox = f"{FIREFOX_SYSTEM}/{gecko}"
    chromium = f"{CHROMIUM_SYSTEM}/handoff"
    listed = {package: set(browser_root.run("dpkg", "-L", package).stdout.split())
              for package in ("webext-handoff-firefox", "webext-handoff-chromium")}
    assert firefox in listed["webext-handoff-firefox"], listed
    assert chromium in listed["webext-handoff-chromium"], listed
    for link in (firefox, chromium):
        resolved = browser_root.run("readlink", "-f", link).stdout.strip()
        assert resolved == EXTENSION, (link, resolved)
    # The ids the host manifests allow are the extension's own.
    mozilla = json.loads(browser_root.file(f"/usr/lib/mozilla/native-messaging-hosts/{HOST}.json").read_text())
    assert mozilla["allowed_extensions"] == [gecko]
    fixed = (REPO / "bridges" / "browser" / "extension-id.txt").read_text().strip()
    assert chromium_id(manifest["key"]) == fixed
    chrome = json.loads(browser_root.file(f"/etc/chromium/native-messaging-hosts/{HOST}.json").read_text())
    assert chrome["allowed_origins"] == [f"chrome-extension://{fixed}/"]


# A fresh profile's prefs that keep Firefox quiet and on this machine; none
# is about extensions.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": 9,
}


def firefox(browser_root, home, url):
    """firefox-esr with a new profile, as a person starts it."""
    profile = f"{home}/firefox-profile"
    browser_root.run("mkdir", "-p", profile, user=PERSON)
    browser_root.file(f"{profile}/user.js").write_text(
        "".join(f'user_pref("{k}", {json.dumps(v)});\n' for k, v in FIREFOX_PREFS.items()))
    return ["firefox-esr", "--no-remote", "--profile", profile, url]


def chromium(browser_root, home, url):
    """Debian's chromium command with a new profile, as a person starts it
    (through /usr/bin/chromium, which reads /etc/chromium.d/)."""
    return ["chromium", "--no-sandbox", f"--user-data-dir={home}/chromium-profile", "--no-first-run",
            "--password-store=basic", "--proxy-server=127.0.0.1:9", url]


BROWSERS = {"firefox": (firefox, " — Mozilla Firefox"), "chromium": (chromium, " - Chromium")}
PERSON = "ada"


@pytest.fixture(scope="module")
def person(browser_root):
    """A user of the root with a home, a runtime folder and an account of
    two devices: this one (the default config) and "the other device"."""
    browser_root.run("useradd", "--create-home", "--shell", "/bin/sh", PERSON)
    uid = browser_root.run("id", "-u", PERSON).stdout.strip()
    runtime = f"/run/user/{uid}"
    browser_root.run("install", "-d", "-m", "0700", "-o", PERSON, "-g", PERSON, runtime)
    home = f"/home/{PERSON}"
    env = {"HOME": home, "USER": PERSON, "LOGNAME": PERSON, "XDG_RUNTIME_DIR": runtime}
    other = dict(env, XDG_CONFIG_HOME=f"{home}/other-device")
    browser_root.run("handoff", "account", "create", env=env, user=PERSON)
    code = browser_root.run("handoff", "account", "code", env=env, user=PERSON).stdout.strip()
    browser_root.run("handoff", "account", "join", code, env=other, user=PERSON)
    return home, env, other


@pytest.fixture
def display(tmp_path):
    shown = Display(tmp_path)
    try:
        yield shown
    finally:
        shown.close()


@pytest.mark.parametrize("kind", list(BROWSERS))
def test_the_browser_starts_the_bridge_and_offers_its_tab(kind, browser_root, person, display, tmp_path):
    home, env, other = person
    command, suffix = BROWSERS[kind]
    pages = Pages()
    own, peer = ports.free_port(os.getpid() * 389 + 11), ports.free_port(os.getpid() * 389 + 17)
    agent = browser = nearby = None
    try:
        agent = browser_root.spawn("handoff", "--json", "agent", "--beacon-port", str(own), "--no-multicast",
                                   "--peer", f"127.0.0.1:{peer}", "--channel", "127.0.0.1:0",
                                   env=env, user=PERSON, stdout=subprocess.DEVNULL)
        agent_lines, agent_seen = lines_of(agent.stderr), []
        wait_event(agent_lines, lambda e: e.get("event") == "listening", "the agent to listen", seen=agent_seen)
        url = pages.url(TITLE)
        log = open(tmp_path / f"{kind}.log", "w")
        browser = browser_root.spawn(*command(browser_root, home, url), env=dict(env, DISPLAY=display.name),
                                     user=PERSON, stdout=log, stderr=log)
        log.close()
        # The agent sees the browser: the host the extension started registers.
        hello = wait_event(agent_lines, lambda e: e.get("event") == "hello" and e.get("bundle") == HOST,
                           f"{kind}'s native host to register with the agent", timeout=WAIT, seen=agent_seen)
        assert hello["team"] == "LIBHANDOFF"
        display.focus_window_named(TITLE, suffix)
        # The other device sees the tab offered.
        nearby = browser_root.spawn("handoff", "--json", "nearby", "--embedded", "--beacon-port", str(peer),
                                    "--no-multicast", "--peer", f"127.0.0.1:{own}", env=other, user=PERSON)
        offer = wait_event(lines_of(nearby.stdout), lambda e: e.get("event") == "available"
                           and e.get("webpage_url") == url, f"the other device to see {kind}'s tab offered",
                           timeout=WAIT)
        assert offer["title"] == TITLE and offer["bundle"] == HOST and offer["type"] == "NSUserActivityTypeBrowsingWeb"
    except AssertionError as failure:
        browser_log = tmp_path / f"{kind}.log"
        raise AssertionError(f"{failure}\n{kind} said: {browser_log.read_text()[-2000:] if browser_log.exists() else ''}")
    finally:
        for proc in (nearby, browser, agent):
            if proc is not None:
                children.kill(proc)
        pages.close()


def test_make_webext_zips_the_extension_as_the_stores_take_it(tmp_path):
    folder = REPO / "bridges" / "browser" / "extension"
    manifest = json.loads((folder / "manifest.json").read_text())
    made = []
    for run in ("first", "second"):
        subprocess.run([sys.executable, str(REPO / "mk" / "webext.py"), str(folder), str(tmp_path / run)],
                       check=True, capture_output=True)
        made.append({p.name: p.read_bytes() for p in (tmp_path / run).iterdir()})
    assert made[0] == made[1]  # reproducible
    version = manifest["version"]
    assert sorted(made[0]) == [f"handoff-chromium-{version}.zip", f"handoff-firefox-{version}.zip"]
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    with zipfile.ZipFile(tmp_path / "first" / f"handoff-firefox-{version}.zip") as firefox:
        assert sorted(firefox.namelist()) == files
        assert all(firefox.read(name) == (folder / name).read_bytes() for name in files)
    with zipfile.ZipFile(tmp_path / "first" / f"handoff-chromium-{version}.zip") as chromium:
        assert sorted(chromium.namelist()) == files
        store = json.loads(chromium.read("manifest.json"))
        # The Chrome Web Store refuses `key`; all else is the extension's.
        assert "key" not in store and store == {k: v for k, v in manifest.items() if k != "key"}
