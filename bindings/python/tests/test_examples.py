# SPDX-License-Identifier: MIT OR Apache-2.0
"""The examples in examples/python, run as a person would from the
checkout: the create-shape sender with the receiver, and with the asyncio
receiver; a receiver that refuses a newer activity version."""

import sys

from conftest import EXAMPLES
from processes import spawn  # noqa: F401  (fixture)


def run_pair(spawn, ports, receiver_script, sender_args=(), python=sys.executable, cwd=None,
             env=None):
    sport, rport = ports(2)
    receiver = spawn("receiver", [python, EXAMPLES / receiver_script, "--port", rport,
                                  "--peer", f"127.0.0.1:{sport}", "--timeout", 20],
                     cwd=cwd, env=env)
    receiver.wait_for("receiver: waiting for a shape", timeout=20)
    sender = spawn("sender", [python, EXAMPLES / "create_shape_sender.py", "--port", sport,
                              "--peer", f"127.0.0.1:{rport}", "--timeout", 20, *sender_args],
                   cwd=cwd, env=env)
    return sender, receiver


def test_the_create_shape_pair(spawn, ports):
    sender, receiver = run_pair(spawn, ports, "create_shape_receiver.py", ["--shape", "square"])
    assert sender.finish() == 0, sender.transcript()
    assert receiver.finish() == 0, receiver.transcript()
    assert sender.lines == ['sender: offering "Creating a square"',
                            'sender: "Creating a square" was continued on the other device']
    assert receiver.matching("receiver: restored a square (activity-version 1)")


def test_the_asyncio_receiver(spawn, ports):
    sender, receiver = run_pair(spawn, ports, "asyncio_receiver.py", ["--shape", "triangle"])
    assert sender.finish() == 0, sender.transcript()
    assert receiver.finish() == 0, receiver.transcript()
    assert receiver.matching("receiver: restored a triangle; the loop ran")


def test_a_newer_activity_version_is_not_restored(spawn, ports):
    sender, receiver = run_pair(spawn, ports, "create_shape_receiver.py",
                                ["--activity-version", "2", "--timeout", "3"])
    assert receiver.finish() == 1
    assert "receiver: cannot restore activity-version 2" in receiver.stderr
    assert sender.finish() == 1  # the receiver did not handle it: never "continued"
    assert sender.lines == ['sender: offering "Creating a circle"']
