# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff settings`: every form, the file it writes (atomic, mode 0600,
the format of docs/agent.md §11), and clear errors for what is wrong. No
network: nothing here needs another device (test_cli_settings_devices.py
has the settings at work between devices)."""
import os
import stat

A_ID = "0123456789abcdef0123456789abcdef"
B_ID = "fedcba9876543210fedcba9876543210"


def settings(device, *args):
    result = device.run("--json", "settings", *args)
    assert result.code == 0, result
    return result.json()


def settings_file(device):
    return device.directory / "settings"


def test_show_without_a_file_is_the_defaults(device):
    shown = settings(device)
    assert shown == {"path": str(settings_file(device)), "paused": False, "devices": [], "muted_apps": [], "web_domains_off": [],
                     "history": {"on": True, "other_devices": False, "days": 30, "entries": 10000, "apps_off": []},
                     "documents": {"max_size": 67108864, "sync_wait": 5, "exclude": [], "elsewhere": False, "apps_off": [], "folders": []}}
    assert not settings_file(device).exists()
    human = device.run("settings")
    assert human.code == 0 and "Handoff: on" in human.out and "Muted apps: none" in human.out, human


def test_pause_and_resume_write_a_private_file_atomically(device):
    assert settings(device, "pause")["paused"] is True
    path = settings_file(device)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "[Handoff]\nPaused=true\n" in path.read_text()
    # Nothing left behind by the atomic write.
    assert sorted(p.name for p in device.directory.iterdir() if p.name.startswith(".")) == []
    assert settings(device)["paused"] is True
    human = device.run("settings")
    assert "Handoff: paused" in human.out, human
    assert settings(device, "resume")["paused"] is False
    assert "Paused=false" in path.read_text()


def test_device_offer_and_accept_by_full_id_and_by_known_prefix(device):
    shown = settings(device, "device", A_ID, "offer", "off")
    assert shown["devices"] == [{"id": A_ID, "name": None, "offer": False, "accept": True, "history": True}]
    # Upper case is the same id; a prefix finds a device the settings name.
    shown = settings(device, "device", B_ID.upper(), "accept", "off")
    assert {d["id"] for d in shown["devices"]} == {A_ID, B_ID}
    shown = settings(device, "device", "0123", "accept", "off")
    assert shown["devices"][0] == {"id": A_ID, "name": None, "offer": False, "accept": False, "history": True}
    text = settings_file(device).read_text()
    assert f"[Device {A_ID}]\nOffer=false\nAccept=false\n" in text, text
    # Both back on: the device is no longer listed, nor written.
    settings(device, "device", A_ID, "offer", "on")
    shown = settings(device, "device", A_ID, "accept", "on")
    assert [d["id"] for d in shown["devices"]] == [B_ID]
    assert A_ID not in settings_file(device).read_text()


def test_app_mute_and_unmute(device):
    assert settings(device, "app", "com.example.Notes", "mute")["muted_apps"] == ["com.example.Notes"]
    assert settings(device, "app", "org.example.b", "mute")["muted_apps"] == ["com.example.Notes", "org.example.b"]
    assert "[App com.example.Notes]\nMuted=true\n" in settings_file(device).read_text()
    assert settings(device, "app", "com.example.Notes", "unmute")["muted_apps"] == ["org.example.b"]
    human = device.run("settings")
    assert "Muted apps: org.example.b" in human.out, human


def test_app_web_domains_off_and_on(device):
    shown = settings(device, "app", "org.example.Docs", "web-domains", "off")
    assert shown["web_domains_off"] == ["org.example.Docs"] and shown["muted_apps"] == []
    assert "[App org.example.Docs]\nWebDomains=false\n" in settings_file(device).read_text()
    settings(device, "app", "org.example.Docs", "mute")
    assert "[App org.example.Docs]\nMuted=true\nWebDomains=false\n" in settings_file(device).read_text()
    assert "Web domains off for: org.example.Docs" in device.run("settings").out
    assert settings(device, "app", "org.example.Docs", "web-domains", "on")["web_domains_off"] == []
    assert "WebDomains" not in settings_file(device).read_text()
    assert "\"maybe\" is neither on nor off" in usage_error(device, "app", "org.example.Docs", "web-domains", "maybe")
    assert "app needs a bundle identifier" in usage_error(device, "app", "org.example.Docs", "web-domains")
    assert "app needs a bundle identifier" in usage_error(device, "app", "org.example.Docs", "mute", "now")
    assert "unexpected argument \"now\"" in usage_error(device, "app", "org.example.Docs", "web-domains", "on", "now")


def usage_error(device, *args):
    result = device.run("settings", *args)
    assert result.code == 2, result
    return result.err


def test_wrong_command_lines_are_usage_errors_and_change_nothing(device):
    assert "unknown settings action \"stop\"" in usage_error(device, "stop")
    assert "unexpected argument \"now\"" in usage_error(device, "pause", "now")
    assert "device needs a device" in usage_error(device, "device", A_ID)
    assert "\"share\" is not a device setting" in usage_error(device, "device", A_ID, "share", "off")
    assert "\"maybe\" is neither on nor off" in usage_error(device, "device", A_ID, "offer", "maybe")
    assert "\"a b\" is not a bundle identifier" in usage_error(device, "app", "a b", "mute")
    assert "\"silence\" is not an app setting" in usage_error(device, "app", "com.example.Notes", "silence")
    assert "app needs a bundle identifier" in usage_error(device, "app")
    assert not settings_file(device).exists()


def test_an_unknown_device_is_an_error_that_lists_the_known_ones(device):
    settings(device, "device", A_ID, "offer", "off")
    result = device.run("settings", "device", "Laptop", "offer", "off")
    assert result.code == 1 and "HANDOFF_E_NOT_FOUND" in result.err, result
    assert "no device is named \"Laptop\"" in result.err and A_ID in result.err, result
    # A prefix of two devices is ambiguous.
    settings(device, "device", "0123456789abcdef0123456789abcdee", "offer", "off")
    result = device.run("settings", "device", "0123", "offer", "off")
    assert result.code == 1 and "names 2 devices" in result.err, result


def test_a_damaged_file_is_reported_shown_as_defaults_and_never_overwritten(device):
    settings(device, "pause")
    path = settings_file(device)
    path.write_text("[Handoff]\nPaused=yes\n")
    shown = device.run("--json", "settings")
    assert shown.code == 0, shown
    report = shown.json()
    assert report["paused"] is False and "Paused: \"yes\" is not a boolean" in report["problem"], report
    assert "warning: the settings file is not used" in shown.err, shown
    changed = device.run("settings", "resume")
    assert changed.code == 1 and "the settings were not changed" in changed.err, changed
    assert path.read_text() == "[Handoff]\nPaused=yes\n"
    # Readable by others: refused as the account files are, with the fix.
    path.write_text("[Handoff]\nPaused=true\n")
    os.chmod(path, 0o644)
    report = device.run("--json", "settings").json()
    assert report["paused"] is False and "chmod 600" in report["problem"], report


def test_keys_of_a_newer_version_survive_a_change(device):
    device.directory.mkdir(parents=True, exist_ok=True)
    path = settings_file(device)
    path.write_text("[Handoff]\nPaused=false\nTheme=dark\n\n[Schedule]\nQuiet=22-07\n")
    os.chmod(path, 0o600)
    settings(device, "pause")
    text = path.read_text()
    assert "Paused=true" in text and "Theme=dark" in text and "[Schedule]\nQuiet=22-07" in text, text


def test_history_settings_and_their_bounds(device):
    shown = settings(device, "history", "off")
    assert shown["history"]["on"] is False
    assert "History=false" in settings_file(device).read_text()
    shown = settings(device, "history", "other-devices", "on")
    assert shown["history"]["other_devices"] is True
    assert settings(device, "history", "days", "7")["history"]["days"] == 7
    assert settings(device, "history", "entries", "500")["history"]["entries"] == 500
    shown = settings(device, "app", "org.example.Diary", "history", "off")
    assert shown["history"]["apps_off"] == ["org.example.Diary"]
    shown = settings(device, "device", A_ID, "history", "off")
    assert shown["devices"] == [{"id": A_ID, "name": None, "offer": True, "accept": True, "history": False}]
    text = settings_file(device).read_text()
    for line in ["History=false", "HistoryFromOtherDevices=true", "HistoryDays=7", "HistoryEntries=500",
                 "[App org.example.Diary]\nHistory=false", f"[Device {A_ID}]\nOffer=true\nAccept=true\nHistory=false"]:
        assert line in text, (line, text)
    human = device.run("settings")
    assert "History: off" in human.out and "History off for: org.example.Diary" in human.out, human
    for bad in [("history", "days", "0"), ("history", "days", "3651"), ("history", "entries", "99"),
                ("history", "sometimes"), ("app", "org.example.Diary", "history", "maybe")]:
        result = device.run("settings", *bad)
        assert result.code == 2 and "handoff:" in result.err, (bad, result)
    # Back to the defaults: nothing of the history is written.
    settings(device, "history", "on")
    settings(device, "history", "other-devices", "off")
    settings(device, "app", "org.example.Diary", "history", "on")
    settings(device, "device", A_ID, "history", "on")
    text = settings_file(device).read_text()
    assert "History=" not in text and "HistoryFromOtherDevices" not in text, text
