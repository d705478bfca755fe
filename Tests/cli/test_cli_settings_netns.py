# SPDX-License-Identifier: MIT OR Apache-2.0
"""Offer=false between real hosts (docs/agent.md §11): three network
namespaces on one bridge (10.215.N.1-3), the tool with its defaults
(multicast, the dual-stack channel, which sees IPv4 peers as IPv4-mapped
IPv6 addresses). B stops offering to A: A's FETCH is refused (4608) while
C, on another address, still continues; turned on again, live, A
continues too. Needs root and iproute2; the namespaces are always deleted."""
import signal

import pytest

import netns
from cli_support import Device, pair_of_devices

PREFIX = "hset-"
TYPE = "com.example.settings.netns"


@pytest.fixture(scope="module")
def hosts():
    netns.require()
    with netns.Namespaces(PREFIX) as space:
        names = space.bridged(("a", "b", "c"))
        for number, x in enumerate(("a", "b", "c"), start=1):
            netns.address(names[x], f"{netns.subnet(215)}.{number}/24")
        netns.wait_up([names["a"], names["b"], names["c"]])
        yield names


def test_offer_off_refuses_one_host_and_serves_another(hosts, tmp_path, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    c = Device(tmp_path, "c", procs, hosts["c"])
    assert c.run("account", "join", a.run("account", "code").out.strip()).code == 0
    a_id = a.run("--json", "device").json()["device"]["id"]

    sender = b.spawn("--json", "publish", "--type", TYPE, "--title", "Not for A")
    published = sender.event("publishing")
    shown = b.run("--json", "settings", "device", a_id, "offer", "off")
    assert shown.code == 0, shown

    refused = a.run("--json", "continue", published["id"], "--timeout", "30")
    assert refused.code == 1, refused
    assert "4608" in refused.err and "not offered to this device" in refused.err, refused
    served = c.run("--json", "continue", published["id"], "--timeout", "30")
    assert served.code == 0, served
    assert served.json()["title"] == "Not for A"
    sender.event("continued", id=published["id"])

    assert b.run("settings", "device", a_id, "offer", "on").code == 0
    again = a.run("--json", "continue", published["id"], "--timeout", "30")
    assert again.code == 0, again
    sender.signal(signal.SIGTERM)
    assert sender.wait() == 0
