# SPDX-License-Identifier: MIT OR Apache-2.0
"""What `handoff --help` and `handoff COMMAND --help` say, parsed: the
commands, each command's options with the value each takes, the account
actions. The one source the documentation and completion checks compare
against (test_cli_usage, test_cli_manpages, test_cli_completions)."""

import functools
import os
import re
import subprocess

from cli_support import TOOL


def help_text(*command):
    done = subprocess.run([str(TOOL), *command, "--help"], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, LC_ALL="C"))
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed_commands(text):
    """The command names of `handoff --help`'s "Commands:" block, in order."""
    block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]*)  ", block, re.M)


def listed_options(text):
    """{option: its value's placeholder, or None for a flag}, from the
    "Options:" lines of a command's help ("  --peer HOST:PORT   text")."""
    block = text.split("Options:\n", 1)[1].split("\n\n", 1)[0]
    lines = re.findall(r"^  (--[a-z][a-z-]*)(?: (\S+))?(?:  |$)", block, re.M)
    return {name: value or None for name, value in lines}


@functools.cache
def commands():
    return listed_commands(help_text())


@functools.cache
def global_options():
    """The options of the tool itself (before a command): --json, --help, --version."""
    text = help_text()
    return sorted(set(re.findall(r"(--[a-z][a-z-]*)", text.split("Commands:", 1)[1])))


@functools.cache
def options(command):
    """{option: placeholder or None} of one command, --json and --help included."""
    return listed_options(help_text(command))


@functools.cache
def account_actions():
    """create, code, join, ...: the words after `handoff account` in its usage."""
    usage = help_text("account").split("\n\n", 1)[0]
    return re.findall(r"^  handoff account ([a-z]+)", usage, re.M)


def all_options():
    return set(global_options()).union(*(options(command) for command in commands()))
