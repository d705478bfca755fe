# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff browser-host` as a person meets it (docs/browser.md §1,
docs/cli.md): --print-manifest, --install-user into a temporary home, and
what `handoff doctor` says of the registration."""

import json
import os

from cli_support import TOOL


def person(device, tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(device.env, HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"),
                XDG_CONFIG_HOME=str(home / ".config")), home


def test_print_manifest_names_the_extension_each_browser_knows(device):
    firefox = json.loads(device.run("browser-host", "--print-manifest", "firefox", "--program", "/opt/h/host").out)
    assert firefox == {"name": "org.libhandoff.browser", "description": "Handoff for Linux: the browser bridge",
                       "path": "/opt/h/host", "type": "stdio", "allowed_extensions": ["browser@libhandoff.org"]}
    chromium = json.loads(device.run("browser-host", "--print-manifest", "chromium", "--program", "/opt/h/host").out)
    assert chromium["allowed_origins"] == ["chrome-extension://cdiicohphfndcodichmbdfomjidpfinc/"]
    refused = device.run("browser-host", "--print-manifest", "safari")
    assert refused.code == 2 and "firefox or chromium" in refused.err, refused


def test_install_user_writes_a_launcher_and_both_manifests(device, tmp_path):
    env, home = person(device, tmp_path)
    result = device.run("--json", "browser-host", "--install-user", env=env)
    assert result.code == 0, result
    launcher = home / ".local" / "share" / "handoff" / "browser-host"
    written = result.json()["written"]
    assert written == [str(launcher), str(home / ".mozilla" / "native-messaging-hosts" / "org.libhandoff.browser.json"),
                       str(home / ".config" / "chromium" / "NativeMessagingHosts" / "org.libhandoff.browser.json")]
    assert os.access(launcher, os.X_OK)
    assert f"exec '{os.path.realpath(TOOL)}' browser-host" in launcher.read_text()
    for path in written[1:]:
        assert json.loads(open(path).read())["path"] == str(launcher)
    # Again: the same files, rewritten.
    assert device.run("browser-host", "--install-user", env=env).code == 0


def doctor_finding(device, env, prefix):
    report = json.loads(device.run("--json", "doctor", "--listen", "0", env=env).out.splitlines()[-1])
    return [f for f in report["findings"] if f["check"].startswith(prefix)]


def test_doctor_says_whether_the_browsers_find_the_host(pair, tmp_path):
    a, _ = pair
    env, home = person(a, tmp_path)
    env["XDG_CONFIG_HOME"] = a.env["XDG_CONFIG_HOME"]  # the account stays the device's
    [unset] = doctor_finding(a, env, "browser")
    assert unset["status"] == "ok" and "not set up" in unset["what"], unset
    assert a.run("browser-host", "--install-user", env=dict(env, XDG_CONFIG_HOME=str(home / ".config"))).code == 0
    # Chromium's user manifest sits under XDG_CONFIG_HOME: the doctor reads the same one.
    env_installed = dict(env, XDG_CONFIG_HOME=str(home / ".config"))
    (home / ".config" / "handoff").mkdir(parents=True, exist_ok=True)
    [found] = doctor_finding(a, env_installed, "browser")
    assert found["status"] == "ok" and "firefox" in found["what"] and "chromium" in found["what"], found
    (home / ".local" / "share" / "handoff" / "browser-host").unlink()
    broken = doctor_finding(a, env_installed, "browser")
    assert {f["check"] for f in broken} == {"browser.firefox", "browser.chromium"}, broken
    assert all(f["status"] == "warn" and "--install-user" in f["todo"] for f in broken), broken
