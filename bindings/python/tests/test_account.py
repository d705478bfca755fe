# SPDX-License-Identifier: MIT OR Apache-2.0
"""Accounts: creating, pairing codes, keys, storage."""

import os
import stat

import pytest

from handoff import Account, HandoffError, Status


def test_a_pairing_code_joins_the_same_account():
    account = Account.create()
    code = account.pairing_code
    joined = Account.from_pairing_code(code)
    assert joined.id == account.id and len(account.id) == 16
    sloppy = code.lower().replace("-", " ").replace("0", "o")
    assert Account.from_pairing_code(sloppy).id == account.id
    assert Account.create().id != account.id


def test_a_typo_in_a_pairing_code_is_caught():
    code = Account.create().pairing_code
    i = next(i for i, ch in enumerate(code) if ch.isalnum())
    typo = code[:i] + ("2" if code[i] != "2" else "3") + code[i + 1:]
    with pytest.raises(HandoffError) as caught:
        Account.from_pairing_code(typo)
    assert caught.value.code == Status.INVALID_VALUE and caught.value.message
    with pytest.raises(HandoffError):
        Account.from_pairing_code("")


def test_keys():
    key = bytes(range(32))
    assert Account.from_key(key).id == Account.from_key(bytearray(key)).id
    with pytest.raises(HandoffError) as caught:
        Account.from_key(key[:31])
    assert caught.value.code == Status.INVALID_ARGUMENT and "32" in caught.value.message
    with pytest.raises(TypeError):
        Account.from_key("00" * 32)
    with pytest.raises(TypeError, match="Account.create"):
        Account()


def test_save_and_load(tmp_path):
    folder = tmp_path / "handoff"
    with pytest.raises(HandoffError) as caught:
        Account.load(folder)
    assert caught.value.code == Status.NOT_FOUND
    account = Account.create()
    account.save(folder)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    files = list(folder.iterdir())
    assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    assert Account.load(folder).id == account.id
    assert Account.load(str(folder)).id == account.id


def test_a_key_readable_by_others_is_refused(tmp_path):
    Account.create().save(tmp_path)
    for f in tmp_path.iterdir():
        f.chmod(0o644)
    with pytest.raises(HandoffError) as caught:
        Account.load(tmp_path)
    assert caught.value.code == Status.PERMISSION
    assert "600" in caught.value.message


def test_the_default_place_follows_xdg_config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    account = Account.create()
    account.save()
    assert (tmp_path / "handoff").is_dir()
    assert Account.load().id == account.id
