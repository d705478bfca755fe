# SPDX-License-Identifier: MIT OR Apache-2.0
"""The `handoff` command's own watcher under a beacon flood (issue 13 item
3: "the same holds for the handoff command's own watcher"): `handoff nearby`
and `handoff publish`, on loopback, while a device holding the key floods
them with 5,000 device ids. The watcher keeps seeing what the publisher
offers, and both stay within the victims' bounds."""

import signal
import sys
from pathlib import Path

import pytest

from harness import free_port
from measure import Sampler
from victims import bounds_broken

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from cli_support import TOOL, Device, loopback, publish  # noqa: E402

# docs/PROTOCOL.md §4: the pairing code of the test key 000102..1f, the
# attacker's default key.
TEST_CODE = "000G4-0R40M-30E20-9185G-R38E1-W8124-GK2GA-HC5RR-34D1P-70X3R-FP63E-D54"
TYPE = "com.example.hostile.cli"
REPUBLISH = 3  # activities the publisher offers anew during the flood


@pytest.fixture
def procs():
    started = []
    yield started
    for p in started:
        p.kill()


def test_beacon_flood_against_the_command(tmp_path, procs, attack, record):
    if not TOOL.exists():
        pytest.skip("%s is missing: build it first (make tool)" % TOOL)
    watcher_dev, publisher_dev = Device(tmp_path, "w", procs), Device(tmp_path, "p", procs)
    for device, name in ((watcher_dev, "Watcher"), (publisher_dev, "Publisher")):
        joined = device.run("account", "join", TEST_CODE)
        assert joined.code == 0, joined
        assert device.run("device", "--name", name).code == 0
    wport, pport, trap = free_port(), free_port(), free_port()
    watcher = watcher_dev.spawn("--json", "nearby", *loopback(wport, pport)[:5])
    watcher.event("listening")
    publisher, published = publish(publisher_dev, pport, wport, "--type", TYPE)
    watcher.event("available", id=published["id"])

    seen = 0
    sampler = Sampler({"publisher": publisher.proc.pid, "watcher": watcher.proc.pid})
    with sampler:
        flood = attack("beacon-flood", 5000, "--rounds", 2, "--rate", 2500, "--seconds", 60,
                       "--bind", "127.0.0.2", "--listen", "127.0.0.2:%d" % trap,
                       "--to", "127.0.0.1:%d" % wport, "--to", "127.0.0.1:%d" % pport)
        flood.wait_for("engaged", timeout=30)
        # The publisher offers new activities while the flood goes on; the
        # watcher must announce each.
        for _ in range(REPUBLISH):
            publisher.signal(signal.SIGINT)
            assert publisher.wait() == 0
            publisher, published = publish(publisher_dev, pport, wport, "--type", TYPE)
            sampler.peaks["publisher"].pid = publisher.proc.pid
            try:
                watcher.event("available", id=published["id"], timeout=20)
                seen += 1
            except AssertionError:
                pass
        flood.wait_for("result", timeout=90)
        result = dict(flood.matches("result")[0])
    record("beacon-flood 5000 vs handoff nearby/publish", seen, REPUBLISH, sampler, attacker=result)
    assert watcher.proc.poll() is None and publisher.proc.poll() is None
    assert seen == REPUBLISH, "the watcher announced %d of %d activities" % (seen, REPUBLISH)
    assert int(result["connections_to_attacker"]) < 5000, result
    broken = bounds_broken(sampler)
    assert not broken, "; ".join(broken)
