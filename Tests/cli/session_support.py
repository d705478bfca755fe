# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff session` as a script runs it: a process whose standard input
the test writes JSON lines to, and whose output lines (one JSON object of
one key each, docs/cli.md "handoff session") it reads as they arrive.
Killed with the test (the `procs` fixture)."""

import json
import subprocess

from cli_support import TOOL, Process

APP = "org.example.Session"
TYPE = "org.example.session.edit"


class Session(Process):
    def __init__(self, device, *args, env=None, app=APP):
        super().__init__(device.prefix + [str(TOOL), "session", "--app", app, *map(str, args)], env or device.env,
                         stdin=subprocess.PIPE)
        device.procs.append(self)

    def send(self, message):
        """One line: a JSON object, or text as it is (bad lines too)."""
        text = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def close_input(self):
        self.proc.stdin.close()

    def next(self, name, check=lambda body: True):
        """The body of the first `name` line for which check holds."""
        return self.expect(lambda line: name in line and check(line[name]))[name]

    def all(self, name):
        return [line[name] for line in self.events() if name in line]


def start(device, *args, env=None):
    """A session and its "ready" body."""
    session = Session(device, *args, env=env)
    return session, session.next("ready")
