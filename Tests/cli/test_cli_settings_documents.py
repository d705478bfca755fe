# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff settings folder …` and `handoff settings documents …`
(docs/documents.md §5, docs/cli.md): the file they write, what they show,
and clear errors for what is wrong."""
import json
import subprocess

from cli_support import TOOL


def settings(device, *args):
    result = device.run("--json", "settings", *args)
    assert result.code == 0, result
    return result.json()


def test_folders_are_declared_and_removed(device, tmp_path):
    papers = tmp_path / "My Papers"
    papers.mkdir()
    shown = settings(device, "folder", "Papers", str(papers) + "/")
    assert shown["documents"]["folders"] == [{"name": "Papers", "path": str(papers)}]
    text = (device.directory / "settings").read_text()
    assert f"[Folder Papers]\nPath={papers}\n" in text, text
    human = device.run("settings")
    assert f"Folder Papers: {papers}" in human.out, human
    assert settings(device, "folder", "Papers", "remove")["documents"]["folders"] == []
    assert "[Folder" not in (device.directory / "settings").read_text()


def test_documents_limits_exclusions_and_elsewhere(device, tmp_path):
    assert settings(device, "documents", "max-size", "1048576")["documents"]["max_size"] == 1048576
    assert settings(device, "documents", "sync-wait", "12")["documents"]["sync_wait"] == 12
    private = tmp_path / "Private;semi"
    shown = settings(device, "documents", "exclude", str(private))
    assert shown["documents"]["exclude"] == [str(private)]
    # Twice is once.
    assert settings(device, "documents", "exclude", str(private))["documents"]["exclude"] == [str(private)]
    assert settings(device, "documents", "elsewhere", "on")["documents"]["elsewhere"] is True
    text = (device.directory / "settings").read_text()
    assert "[Documents]\nMaxSize=1048576\nSyncWait=12\n" in text, text
    assert "Exclude=" + str(private).replace(";", "\\;") + ";\n" in text, text
    assert "Elsewhere=true\n" in text, text
    assert settings(device, "documents", "include", str(private))["documents"]["exclude"] == []
    # Back to the defaults: the group goes.
    settings(device, "documents", "max-size", "67108864")
    settings(device, "documents", "sync-wait", "5")
    settings(device, "documents", "elsewhere", "off")
    assert "[Documents]" not in (device.directory / "settings").read_text()


def test_an_apps_documents_off_and_on(device):
    assert settings(device, "app", "org.xfce.mousepad", "documents", "off")["documents"]["apps_off"] == ["org.xfce.mousepad"]
    assert "[App org.xfce.mousepad]\nDocuments=false\n" in (device.directory / "settings").read_text()
    assert settings(device, "app", "org.xfce.mousepad", "documents", "on")["documents"]["apps_off"] == []
    assert "org.xfce.mousepad" not in (device.directory / "settings").read_text()


def test_relative_paths_are_made_absolute(device, tmp_path):
    (tmp_path / "work" / "Scores").mkdir(parents=True)
    completed = subprocess.run(device.prefix + [str(TOOL), "--json", "settings", "folder", "Band Scores", "./Scores/../Scores"],
                               capture_output=True, text=True, env=device.env, cwd=tmp_path / "work", timeout=30)
    assert completed.returncode == 0, completed
    folders = json.loads(completed.stdout)["documents"]["folders"]
    assert folders == [{"name": "Band Scores", "path": str(tmp_path / "work" / "Scores")}]


def test_mistakes_are_refused_with_a_reason(device, tmp_path):
    cases = [
        (["folder", "Papers"], "folder takes a name and a path"),
        (["folder", "Thèse", str(tmp_path)], "is not a folder name"),
        (["folder", "Papers", str(tmp_path / "missing")], "is not a folder"),
        (["documents", "max-size", "lots"], "max-size takes a whole number"),
        (["documents", "max-size", "9007199254740993"], "max-size takes a whole number"),
        (["documents", "sync-wait", "301"], "sync-wait takes whole seconds from 0 to 300"),
        (["documents", "elsewhere", "maybe"], "neither on nor off"),
        (["documents", "colour", "blue"], "is not a documents setting"),
    ]
    for args, reason in cases:
        result = device.run("settings", *args)
        assert result.code != 0 and reason in result.err, (args, result)
    assert not (device.directory / "settings").exists()


def test_doctor_names_a_damaged_place_file_and_the_folders_found(device, tmp_path):
    home = tmp_path / "home"
    (home / ".config" / "syncthing").mkdir(parents=True)
    (home / ".config" / "syncthing" / "config.xml").write_text("<configuration><folder")
    (device.config / "Nextcloud").mkdir(parents=True)
    (device.config / "Nextcloud" / "nextcloud.cfg").write_text(
        "[Accounts]\n0\\url=https://cloud.example.com\n0\\dav_user=alice\n"
        "0\\Folders\\1\\localPath=/home/alice/Nextcloud/\n0\\Folders\\1\\targetPath=/\n")
    env = dict(device.env, HOME=str(home))
    env.pop("STCONFDIR", None), env.pop("STHOMEDIR", None), env.pop("XDG_STATE_HOME", None)
    result = device.run("doctor", env=env)
    text = result.out + result.err
    assert f"Syncthing's {home}/.config/syncthing/config.xml is not used" in text, text
    assert "documents are described by their place: 1 cloud folder(s)" in text, text
