# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff relay set|show|clear`: the files it writes (mode 0600 in a 0700
directory, the password apart and never shown), the password prompt on a
real pseudo-terminal with echo off, `--password-file -`, and the refusals
(docs/cli.md "handoff relay"), and the CA file's check (at least one PEM
certificate). No broker: `set` tries to reach broker.example, which never
resolves (a warning, not a refusal); test_relay_recovery_netns.py checks
`set` against a real broker."""
import json
import os
import pty
import select
import signal
import re
import stat
import subprocess
import termios
import time

import certs  # Tests/support
from cli_support import TOOL

SECRET = "correct horse battery staple"


def relay(device, *args, input=None):
    result = device.run("--json", "relay", *args, input=input)
    assert result.code == 0, result
    return result.json()


def files(device):
    return device.directory / "relay", device.directory / "relay-password"


def assert_private(device):
    assert stat.S_IMODE(device.directory.stat().st_mode) == 0o700
    for path in files(device):
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    # Nothing left behind by the atomic writes.
    assert [p.name for p in device.directory.iterdir() if p.name.startswith(".")] == []


def test_show_without_a_relay(device):
    relay_file, password_file = files(device)
    expected = {"configured": False, "url": None, "username": None, "password_stored": False,
                "ca_file": None, "allow_plain": False, "account_tag": None, "path": str(relay_file),
                "password_path": str(password_file)}
    assert relay(device) == expected
    assert relay(device, "show") == expected
    human = device.run("relay")
    assert human.code == 0 and "Relay: none" in human.out and str(relay_file) in human.out, human


def test_set_show_clear_round_trip(device, tmp_path):
    password_file = tmp_path / "pw"
    password_file.write_text(SECRET + "\n")
    args = ["set", "mqtts://alice@Broker.Example:8884", "--password-file", password_file]
    shown = relay(device, *args)
    relay_file, stored = files(device)
    assert shown == {"configured": True, "url": "mqtts://alice@broker.example:8884", "username": "alice",
                     "password_stored": True, "ca_file": None, "allow_plain": False, "account_tag": None,
                     "path": str(relay_file), "password_path": str(stored)}
    assert relay(device, "show") == shown
    assert relay_file.read_text() == "url=mqtts://alice@broker.example:8884\n"
    assert stored.read_text() == SECRET + "\n"
    assert_private(device)
    # The password is in its own file only: never shown, never in argv.
    human = device.run("relay", "show")
    assert human.code == 0, human
    assert "mqtts://alice@broker.example:8884" in human.out and "alice" in human.out
    assert "Password: stored" in human.out and str(stored) in human.out
    for text in (human.out, human.err, json.dumps(shown), relay_file.read_text(), " ".join(map(str, args))):
        assert SECRET not in text
    # set says when the agent picks it up.
    assert "next start" in device.run("relay", *args).err

    cleared = relay(device, "clear")
    assert cleared["configured"] is False
    assert not relay_file.exists() and not stored.exists()
    assert relay(device, "clear")["configured"] is False, "clear twice is fine"


def test_ca_file_and_allow_plain(device, tmp_path, monkeypatch):
    ca = tmp_path / "ca.pem"
    ca.write_bytes(certs.ca_and_server(tmp_path, "broker.example", "192.0.2.7")[0].read_bytes())
    monkeypatch.chdir(tmp_path)
    done = device.run("relay", "set", "mqtts://broker.example", "--ca-file", "ca.pem")
    assert done.code == 0, done
    assert "could not check the relay broker now: cannot reach the relay broker broker.example:8883" in done.err, done
    shown = relay(device, "set", "mqtts://broker.example", "--ca-file", "ca.pem")
    assert shown["ca_file"] == str(ca), "a relative CA file is made absolute"
    assert shown["username"] is None and shown["password_stored"] is False
    relay_file, stored = files(device)
    assert relay_file.read_text() == f"url=mqtts://broker.example:8883\nca={ca}\n"
    assert not stored.exists()

    shown = relay(device, "set", "mqtt://192.0.2.7", "--allow-plain")
    assert shown["url"] == "mqtt://192.0.2.7:1883" and shown["allow_plain"] is True and shown["ca_file"] is None
    assert relay_file.read_text() == "url=mqtt://192.0.2.7:1883\nallow-plain=yes\n"
    # Loopback needs no consent, IPv6 included.
    assert relay(device, "set", "mqtt://[::1]:1884")["url"] == "mqtt://[::1]:1884"
    assert relay(device, "set", "mqtt://localhost")["allow_plain"] is False


def test_password_from_standard_input_replaces_the_old_one(device):
    relay(device, "set", "mqtts://bob@broker.example", "--password-file", "-", input="first\n")
    _, stored = files(device)
    assert stored.read_text() == "first\n"
    # Only one trailing newline is dropped; inner spaces stay.
    relay(device, "set", "mqtts://bob@broker.example", "--password-file", "-", input=" two words \n")
    assert stored.read_text() == " two words \n"
    # No user, so no password: the old password goes.
    assert relay(device, "set", "mqtts://broker.example")["password_stored"] is False
    assert not stored.exists()
    assert_private(device)


def test_refusals_change_nothing(device, tmp_path):
    relay(device, "set", "mqtts://alice@broker.example", "--password-file", "-", input="keep\n")
    relay_file, stored = files(device)
    before = relay_file.read_text(), stored.read_text()
    usage = [
        ["set", "mqtt://broker.example"],                         # plain across the network
        ["set", "mqtt://alice@192.0.2.1"],
        ["set", "mqtts://alice:hunter2@broker.example"],          # password in the URL
        ["set", "ftp://broker.example"],                          # scheme
        ["set", "broker.example"],
        ["set", "mqtts://broker.example:0"],                      # port
        ["set", "mqtts://broker.example:65536"],
        ["set", "mqtts://broker.example:x"],
        ["set", "mqtts://broker.example/topic"],                  # path
        ["set", "mqtts://broker.example?x=1"],
        ["set"],
        ["set", "mqtts://broker.example", "extra"],
        ["set", "mqtts://broker.example", "--password-file", "-"],  # a password needs a user
        ["show", "--allow-plain"],
        ["frobnicate"],
    ]
    for args in usage:
        result = device.run("relay", *args, input="")
        assert result.code == 2, (args, result)
        assert "hunter2" not in result.err
    plain = device.run("relay", "set", "mqtt://broker.example")
    assert "--allow-plain" in plain.err and "clear" in plain.err, plain
    in_url = device.run("relay", "set", "mqtts://alice:hunter2@broker.example")
    assert "--password-file" in in_url.err, in_url

    big = tmp_path / "big"
    big.write_text("x" * 1025 + "\n")
    exact = tmp_path / "exact"
    exact.write_text("y" * 1024 + "\n")
    empty = tmp_path / "empty"
    empty.write_text("")
    half = tmp_path / "half.pem"
    half.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n")
    key = certs.ca_and_server(tmp_path, "broker.example", "192.0.2.7")[2]
    failures = [
        (["--password-file", tmp_path / "missing"], "does not exist"),
        (["--password-file", big], "longer than 1024"),
        (["--password-file", empty], "empty"),
        (["--password-file", tmp_path], "directory"),
        (["--ca-file", tmp_path / "missing.pem"], "CA file"),
        # A file that holds no certificate: a PEM header alone, a key, not PEM at all.
        (["--ca-file", half], "holds no PEM certificate"),
        (["--ca-file", key], "holds no PEM certificate"),
        (["--ca-file", big], "holds no PEM certificate"),
    ]
    for extra, words in failures:
        result = device.run("--json", "relay", "set", "mqtts://dave@broker.example", *extra)
        assert result.code == 1, (extra, result)
        assert words in result.err, (extra, result)
        assert "error" in result.json()
    assert (relay_file.read_text(), stored.read_text()) == before, "a refused set writes nothing"
    # 1024 bytes is the limit, not over it.
    assert relay(device, "set", "mqtts://dave@broker.example", "--password-file", exact)["password_stored"]
    assert stored.read_text() == "y" * 1024 + "\n"


def test_no_terminal_means_password_file(device):
    # A new session has no controlling terminal: /dev/tty cannot be opened.
    result = subprocess.run([str(TOOL), "relay", "set", "mqtts://erin@broker.example"], input="pw\n",
                            capture_output=True, text=True, env=device.env, timeout=60,
                            start_new_session=True)
    assert result.returncode == 2, result
    assert "--password-file" in result.stderr, result
    assert not files(device)[0].exists(), "standard input is not read unless --password-file - says so"


def test_damaged_relay_file(device):
    relay(device, "set", "mqtts://broker.example")
    relay_file, _ = files(device)
    for text in ["url=gopher://x\n", "nonsense\n", "", "url=mqtt://broker.example\n"]:
        relay_file.write_text(text)
        result = device.run("--json", "relay", "show")
        assert result.code == 1, result
        error = result.json()["error"]
        assert error["code"] == 5, result
        assert str(relay_file) in error["message"] and "handoff relay clear" in error["message"]
    # The way out the message gives works.
    assert relay(device, "clear")["configured"] is False
    relay_file.write_text("url=mqtts://broker.example\n")
    os.chmod(relay_file, 0o644)
    result = device.run("relay", "show")
    assert result.code == 1 and "chmod 600" in result.err, result


def run_on_terminal(device, args, typed, deadline=30):
    """Runs the tool on a new pseudo-terminal (its controlling terminal);
    answers the password prompt with `typed`. Returns (exit status, all
    it wrote to the terminal, the terminal's lflag after it ended)."""
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execve(str(TOOL), [str(TOOL)] + [str(a) for a in args], device.env)
        finally:
            os._exit(127)
    seen = b""
    sent = False
    end = time.monotonic() + deadline
    status = None
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                seen += chunk
            if not sent and b"Password for" in seen:
                # Echo must be off before the answer is typed.
                assert not termios.tcgetattr(master)[3] & termios.ECHO
                os.write(master, typed.encode() + b"\n")
                sent = True
        lflag = termios.tcgetattr(master)[3] if status is None else None
        _, status = os.waitpid(pid, 0)
        pid = None
        return os.waitstatus_to_exitcode(status), seen.decode(errors="replace"), lflag
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(master)


def test_prompt_on_a_terminal_does_not_echo(device):
    code, screen, lflag = run_on_terminal(device, ["relay", "set", "mqtts://frank@broker.example"], SECRET)
    assert code == 0, screen
    assert "Password for frank at broker.example:8883" in screen
    assert SECRET not in screen, "the typed password is not echoed"
    assert lflag & termios.ECHO, "echo is back on afterwards"
    _, stored = files(device)
    assert stored.read_text() == SECRET + "\n"
    assert relay(device)["password_stored"] is True
    assert_private(device)
    # Enter alone: no password.
    code, screen, _ = run_on_terminal(device, ["relay", "set", "mqtts://frank@broker.example"], "")
    assert code == 0, screen
    assert relay(device)["password_stored"] is False and not stored.exists()


def test_interrupted_prompt_restores_echo(device):
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execve(str(TOOL), [str(TOOL), "relay", "set", "mqtts://gina@broker.example"], device.env)
        finally:
            os._exit(127)
    try:
        seen = b""
        end = time.monotonic() + 30
        while b"Password for" not in seen and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                seen += os.read(master, 4096)
        assert b"Password for" in seen, seen
        os.kill(pid, signal.SIGINT)
        _, status = os.waitpid(pid, 0)
        pid = None
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT
        assert termios.tcgetattr(master)[3] & termios.ECHO, "Ctrl-C leaves the terminal echoing"
        assert not files(device)[0].exists()
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(master)


def test_show_names_the_accounts_topics_for_a_brokers_acl(device):
    assert device.run("account", "create").code == 0
    shown = relay(device, "set", "mqtt://127.0.0.1:1883")
    tag = shown["account_tag"]
    assert re.fullmatch(r"[0-9a-f]{32}", tag), shown
    human = device.run("relay", "show")
    assert "topic readwrite hoff/%s/#" % tag in human.out, human
