# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff account` and `handoff device`: the account file, the pairing
code, joining, and what is (never) printed."""

import json
import os
import shutil
import stat
import subprocess

import pytest


def test_create_stores_a_private_account(device):
    result = device.run("--json", "account", "create")
    assert result.code == 0, result
    created = result.json()
    assert len(created["account"]) == 16
    assert created["path"] == str(device.account_file)
    assert stat.S_IMODE(os.stat(device.account_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(device.directory).st_mode) == 0o700
    # A second create refuses to replace it ...
    again = device.run("account", "create")
    assert again.code == 1 and created["account"] in again.err and "--force" in again.err
    # ... unless forced, which makes another account.
    forced = device.run("--json", "account", "create", "--force")
    assert forced.code == 0 and forced.json()["account"] != created["account"]


def test_show_never_prints_the_key(device):
    assert device.run("account", "create").code == 0
    code = device.run("account", "code").out.strip()
    key_file = device.account_file.read_text()
    for args in (["account", "show"], ["--json", "account", "show"]):
        result = device.run(*args)
        assert result.code == 0, result
        for secret in (code, code.replace("-", ""), key_file.strip()):
            assert secret not in result.out and secret not in result.err
    shown = device.run("--json", "account", "show").json()
    assert shown["device"]["role"] == "full" and len(shown["device"]["id"]) == 32


def test_code_warns_that_it_is_the_secret(device):
    assert device.run("account", "create").code == 0
    result = device.run("account", "code")
    assert result.code == 0
    assert len(result.out.strip().replace("-", "")) == 58
    assert "secret" in result.err


def test_join_puts_a_second_device_on_the_same_account(pair):
    a, b = pair
    assert a.run("--json", "account", "show").json()["account"] == b.run("--json", "account", "show").json()["account"]
    ids = {a.run("--json", "device").json()["device"]["id"], b.run("--json", "device").json()["device"]["id"]}
    assert len(ids) == 2  # two devices, one account


def test_join_forgives_how_people_type_codes(device, tmp_path, procs):
    from cli_support import Device
    other = Device(tmp_path, "other", procs)
    assert other.run("account", "create").code == 0
    code = other.run("account", "code").out.strip()
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    result = device.run("--json", "account", "join", *typed.split(" "))
    assert result.code == 0, result
    assert result.json()["account"] == other.run("--json", "account", "show").json()["account"]
    # Joining the same account again changes nothing.
    again = device.run("--json", "account", "join", code)
    assert again.code == 0 and again.json()["joined"] is False


def test_join_reads_the_code_from_standard_input(device, tmp_path, procs):
    from cli_support import Device
    other = Device(tmp_path, "other", procs)
    assert other.run("account", "create").code == 0
    code = other.run("account", "code").out.strip()
    result = device.run("--json", "account", "join", "-", input=code + "\n")
    assert result.code == 0, result


def test_join_refuses_a_mistyped_code(device, tmp_path, procs):
    from cli_support import Device
    other = Device(tmp_path, "other", procs)
    assert other.run("account", "create").code == 0
    code = other.run("account", "code").out.strip()
    flipped = ("1" if code[0] != "1" else "2") + code[1:]
    result = device.run("account", "join", flipped)
    assert result.code == 2
    assert "typo" in result.err
    assert not device.account_file.exists()


def test_join_keeps_another_account_unless_forced(pair, tmp_path, procs):
    from cli_support import Device
    a, _ = pair
    other = Device(tmp_path, "other", procs)
    assert other.run("account", "create").code == 0
    code = other.run("account", "code").out.strip()
    before = a.account_file.read_text()
    refused = a.run("account", "join", code)
    assert refused.code == 1 and "--force" in refused.err
    assert a.account_file.read_text() == before
    assert a.run("account", "join", code, "--force").code == 0
    assert a.account_file.read_text() != before


def test_without_an_account_commands_say_how_to_get_one(device):
    for args in (["account", "show"], ["account", "code"], ["nearby", "--timeout", "1"]):
        result = device.run(*args)
        assert result.code == 1, result
        assert "handoff account create" in result.err


def test_a_world_readable_key_is_refused(device):
    assert device.run("account", "create").code == 0
    os.chmod(device.account_file, 0o644)
    result = device.run("--json", "account", "show")
    assert result.code == 1
    assert result.json()["error"]["code"] == 11
    assert f"chmod 600 {device.account_file}" in result.json()["error"]["message"]


def test_device_name_and_role(device):
    assert device.run("account", "create").code == 0
    renamed = device.run("--json", "device", "--name", "Kitchen laptop", "--role", "send-only")
    assert renamed.code == 0, renamed
    assert renamed.json()["device"] == {**renamed.json()["device"], "name": "Kitchen laptop", "role": "send-only"}
    assert renamed.json()["changed"] is True
    shown = device.run("--json", "device").json()
    assert shown["changed"] is False and shown["device"]["name"] == "Kitchen laptop"
    assert "role=send-only" in (device.directory / "device").read_text()
    assert stat.S_IMODE(os.stat(device.directory / "device").st_mode) == 0o600


def test_a_symlinked_config_directory_is_refused(device, tmp_path):
    """`account create --force` once wrote through a linked directory; now
    every command refuses it and says what to do, and nothing is written
    where the link points."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    device.directory.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, device.directory)
    for args in (["account", "create", "--force"], ["account", "show"], ["device"]):
        result = device.run("--json", *args)
        assert result.code == 1, (args, result)
        error = result.json()["error"]
        assert error["code"] == 11, (args, error)
        assert "is a symbolic link" in error["message"]
        assert "replace the link with a real directory" in error["message"]
    assert list(elsewhere.iterdir()) == []


def test_a_config_directory_others_may_write_is_refused(device):
    assert device.run("account", "create").code == 0
    os.chmod(device.directory, 0o777)
    result = device.run("--json", "account", "show")
    assert result.code == 1
    assert result.json()["error"]["code"] == 11
    assert f"chmod 700 {device.directory}" in result.json()["error"]["message"]
    forced = device.run("account", "create", "--force")
    assert forced.code == 1 and "writable by others" in forced.err


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_config_directory_of_another_user_is_refused(device):
    assert device.run("account", "create").code == 0
    os.chown(device.directory, 4242, -1)
    result = device.run("--json", "account", "show")
    assert result.code == 1
    assert "belongs to user id 4242" in result.json()["error"]["message"]


# ------------------------------------------------------------ code --qr

def qr_pixels(drawing):
    """The light (1) and dark (0) modules of qrencode's UTF8 drawing: each
    character is two pixels, upper and lower (█ both light, ▀ upper light,
    ▄ lower light, space both dark), as the tool draws for dark terminals."""
    halves = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}
    rows = []
    for line in drawing:
        upper, lower = zip(*(halves[c] for c in line))
        rows += [list(upper), list(lower)]
    return rows


def test_code_as_a_qr_code(device, tmp_path):
    if shutil.which("qrencode") is None:
        pytest.skip("qrencode is not installed (scripts/install-deps.sh installs it)")
    assert device.run("account", "create").code == 0
    code = device.run("account", "code").out.strip()
    result = device.run("account", "code", "--qr")
    assert result.code == 0, result
    lines = result.out.rstrip("\n").split("\n")
    assert lines[-1] == code  # the text too, under the drawing
    drawing = lines[:-1]
    # A square block of half blocks: version 3 (29 modules) at level M, with
    # a 2-module quiet zone: 33 columns and 33 pixel rows (17 lines).
    assert set("".join(drawing)) <= set("█▀▄ ") and len(drawing) >= 10, drawing
    widths = {len(line) for line in drawing}
    assert len(widths) == 1, widths
    pixels = qr_pixels(drawing)
    assert widths.pop() in (len(pixels), len(pixels) - 1), (len(drawing), len(pixels))
    assert all(pixels[0]) and all(row[0] for row in pixels)  # the quiet zone is light
    assert "secret" in result.err
    # The key is not on the command line of any process: qrencode read it
    # from standard input (nothing to assert from here but the JSON form).
    as_json = device.run("--json", "account", "code", "--qr").json()
    assert as_json["pairing_code"] == code and as_json["qr"].rstrip("\n").split("\n") == drawing
    if shutil.which("zbarimg") is None:
        return
    # Decode it: the pixels, 8 times larger and dark on light, as a PGM image.
    scale = 8
    image = tmp_path / "code.pgm"
    width, height = len(pixels[0]) * scale, len(pixels) * scale
    body = bytearray()
    for row in pixels:
        line = bytes(255 if p else 0 for p in row for _ in range(scale))
        body += line * scale
    image.write_bytes(b"P5 %d %d 255\n" % (width, height) + bytes(body))
    decoded = subprocess.run(["zbarimg", "-q", "--raw", str(image)], capture_output=True, text=True, timeout=30)
    assert decoded.returncode == 0, decoded
    assert decoded.stdout.strip() == code


def test_code_qr_without_qrencode_says_how_to_get_it(device, tmp_path):
    assert device.run("account", "create").code == 0
    bare = tmp_path / "bin"  # a PATH with nothing on it
    bare.mkdir()
    result = device.run("--json", "account", "code", "--qr", env=dict(device.env, PATH=str(bare)))
    assert result.code == 1, result
    error = result.json()["error"]
    assert error["code"] == 4 and "qrencode" in error["message"] and "apt install qrencode" in error["message"]
    code = device.run("account", "code").out.strip()
    assert code not in result.out and code not in result.err  # nothing half-done is printed


# ------------------------------------------------------------ rotate

def test_rotate_replaces_the_key_through_the_store(device):
    created = device.run("--json", "account", "create").json()
    before = device.account_file.read_text()
    result = device.run("--json", "account", "rotate")
    assert result.code == 0, result
    rotated = result.json()
    assert rotated["previous"] == created["account"] and rotated["account"] != created["account"]
    assert device.account_file.read_text() != before
    assert stat.S_IMODE(os.stat(device.account_file).st_mode) == 0o600
    assert [p.name for p in device.directory.iterdir() if p.name.startswith(".")] == []  # no temporary left
    assert device.run("--json", "account", "show").json()["account"] == rotated["account"]
    human = device.run("account", "rotate")
    assert human.code == 0 and "handoff pair --join --force" in human.err


def test_rotate_keeps_the_file_checks(device):
    """A key file others may read is refused, not silently replaced."""
    assert device.run("account", "create").code == 0
    os.chmod(device.account_file, 0o644)
    before = device.account_file.read_text()
    result = device.run("--json", "account", "rotate")
    assert result.code == 1 and result.json()["error"]["code"] == 11, result
    assert device.account_file.read_text() == before


def test_rotate_without_an_account_says_how_to_get_one(device):
    result = device.run("account", "rotate")
    assert result.code == 1 and "handoff account create" in result.err
