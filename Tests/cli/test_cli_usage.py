# SPDX-License-Identifier: MIT OR Apache-2.0
"""The command line itself: help for every command, the exit statuses, and
what a wrong command line gets (status 2, a message naming the problem,
nothing done)."""

import json
import re
from pathlib import Path

import pytest

from cli_help import listed_commands, listed_options

COMMANDS = ["account", "pair", "device", "nearby", "devices", "publish", "continue", "doctor", "agent", "settings", "history", "relay",
            "browser-host", "mpris-bridge", "session", "documents-bridge"]

ROOT = Path(__file__).resolve().parents[2]


def test_tool_help_lists_every_command_and_the_exit_codes(device):
    result = device.run("--help")
    assert result.code == 0
    assert listed_commands(result.out) == COMMANDS
    assert "0 ok; 1 failure" in result.out and "2 usage error" in result.out


@pytest.mark.parametrize("command", COMMANDS)
def test_the_documents_describe_every_command_and_option(device, command):
    """docs/cli.md has a section for each command and names each of its
    options; README's paragraph on the tool names each command."""
    reference = (ROOT / "docs" / "cli.md").read_text()
    readme = (ROOT / "README.md").read_text()
    assert f"### `handoff {command}" in reference
    assert f"`{command}" in readme.split("### The `handoff` command", 1)[1].split("\n## ", 1)[0]
    options = set(listed_options(device.run(command, "--help").out)) - {"--help", "--json"}
    # settings takes words, no options of its own.
    assert options or command == "settings", command
    missing = sorted(o for o in options if not re.search(re.escape(o) + r"(?![a-z-])", reference))
    assert not missing, f"docs/cli.md does not name {missing} of `handoff {command}`"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(device, command):
    result = device.run(command, "--help")
    assert result.code == 0, result
    assert result.out.startswith("Usage:\n  handoff " + command)
    assert "Options:" in result.out and "--json" in result.out
    assert "Exit status: 0 ok" in result.out
    # help is the same as `handoff help COMMAND`
    assert device.run("help", command).out == result.out


def test_version(device):
    assert device.run("--version").out.startswith("handoff 0.")
    assert json.loads(device.run("--json", "--version").out)["version"].startswith("0.")


@pytest.mark.parametrize("args, says", [
    ([], "no command given"),
    (["frobnicate"], 'unknown command "frobnicate"'),
    (["--frob"], "unknown option --frob"),
    (["nearby", "--frob"], "unknown option --frob for `handoff nearby`"),
    (["nearby", "extra"], 'unexpected argument "extra"'),
    (["nearby", "--timeout"], "--timeout needs a value (SECONDS)"),
    (["nearby", "--timeout", "soon"], '--timeout "soon" is not a number of seconds'),
    (["nearby", "--timeout", "-1"], '--timeout "-1" is not a number of seconds'),
    (["nearby", "--beacon-port", "70000"], '--beacon-port "70000" is not a port number'),
    (["nearby", "--no-multicast"], "--no-multicast needs at least one --peer"),
    (["nearby", "--peer", "exa mple.com:52370"], '--peer "exa mple.com:52370" is not HOST:PORT'),
    (["pair", "--peer", "example.com:52370"], '--peer "example.com:52370" is a name: here only a numeric HOST:PORT'),
    (["nearby", "--no-tailnet", "--tailnet-socket", "/tmp/x.sock"], "--no-tailnet and --tailnet-socket contradict"),
    (["nearby", "--beacon-port", "0", "--no-multicast", "--tailnet-socket", "/tmp/x.sock"],
     "--tailnet-socket needs a fixed --beacon-port"),
    (["nearby", "--beacon-port", "0"], "--beacon-port 0 (a free port) works only with --no-multicast"),
    (["nearby", "--once=yes"], "--once takes no value"),
    (["nearby", "--type", "a.b", "--type", "c.d"], "--type is given twice"),
    (["publish"], "--type TYPE is required"),
    (["publish", "--type", "bad\ttype"], "control character"),
    (["publish", "--type", "com.example.t", "--info", "novalue"], '--info "novalue" is not KEY=VALUE'),
    (["publish", "--type", "com.example.t", "--info", "n:int=three"], '--info n: "three" is not an integer'),
    (["publish", "--type", "com.example.t", "--url", "ftp://example.com/x"], "http or https"),
    (["publish", "--type", "com.example.t", "--team", "not a team!"], "team"),
    (["continue"], "missing an argument"),
    (["continue", "not-a-uuid"], '"not-a-uuid" is not an activity id'),
    (["continue", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "--peer", "nowhere"], '--peer "nowhere"'),
    (["continue", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "--fetch-timeout", "0"], "--fetch-timeout must be more"),
    (["publish", "--type", "com.example.t", "--channel", "nowhere"], "--channel"),
    (["doctor", "--peer", "[::1]"], "--peer"),
    (["account"], "missing an argument"),
    (["account", "sell"], 'unknown account action "sell"'),
    (["account", "join"], "join needs the pairing code"),
    (["account", "join", "ABCDE-12345"], "a pairing code has 58 letters and digits"),
    (["device", "--role", "watch"], '--role "watch" is not a role'),
    (["device", "--name", ""], "a device name cannot be empty"),
])
def test_a_wrong_command_line_is_status_2(device, args, says):
    result = device.run(*args)
    assert result.code == 2, result
    assert says in result.err, result
    assert "--help" in result.err
    assert result.out == ""
    # Nothing was done: no account directory appeared.
    assert not device.directory.exists()


def test_a_usage_error_with_json_is_an_error_object(device):
    result = device.run("--json", "nearby", "--frob")
    assert result.code == 2
    assert result.json()["error"]["name"] == "usage"
