# SPDX-License-Identifier: MIT OR Apache-2.0
"""The tailnet peer source (docs/PROTOCOL.md "Peer sources") between real
hosts with no multicast between them: namespaces a and b, each on its own
veth to a router namespace r that forwards IPv4 and IPv6 (no multicast
routing, so a link beacon stays on its link: asserted). tailscaled cannot
run here, so each host's "tailscaled" is a Unix socket served by the test
with real HTTP and the JSON of tailscale's ipnstate.Status, naming the
other host's addresses as its Tailscale IPs; the routed network is the
tailnet. Discovery and a real handoff work through that source alone;
peers of another user, shared-in and offline peers get no beacon (a UDP
listener on their addresses, in r, counts none). Needs root and iproute2;
the namespaces are always deleted."""

import subprocess
from pathlib import Path
import sys

import pytest

import netns
from cli_support import Device, pair_of_devices
from tailnet_support import TAGGED_DEVICES, FakeTailscaled, peer_status, status

PREFIX = "htn-"
TYPE = "com.example.tailnet.edit"


@pytest.fixture(scope="module")
def hosts():
    """a (10.216.N.1, fd00:216::1) - r - b (10.217.N.1, fd00:217::1)."""
    netns.require()
    with netns.Namespaces(PREFIX) as space:
        a, r, b = space.add("a"), space.add("r"), space.add("b")
        netns.run("sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1", netns=r)
        nets = {}
        for x, ns, second, port in (("a", a, 216, "ra"), ("b", b, 217, "rb")):
            netns.ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", r)
            v4, v6 = netns.subnet(second), f"fd00:{second}:"
            netns.address(ns, f"{v4}.1/24", f"{v6}:1/64")
            netns.address(r, f"{v4}.254/24", f"{v6}:fe/64", dev=port)
            netns.ip("-n", ns, "route", "add", "default", "via", f"{v4}.254")
            netns.ip("-n", ns, "-6", "route", "add", "default", "via", f"{v6}:fe")
            nets[x] = (v4, v6)
        netns.wait_up([a, b])
        # Host names for the configured-peer tests; no query leaves.
        for ns in (a, b):
            space.names(ns, {name: [f"{nets[x][0]}.1", f"{nets[x][1]}:1"]
                             for x, name in (("a", "laptop-a.test"), ("b", "desk-b.test"))})
        yield {"a": a, "r": r, "b": b, "nets": nets}


def own_ips(hosts, x):
    v4, v6 = hosts["nets"][x]
    return [f"{v4}.1", f"{v6}:1"]


def router_ips(hosts, x):
    v4, v6 = hosts["nets"][x]
    return [f"{v4}.254", f"{v6}:fe"]


@pytest.fixture
def tailscaleds(hosts, tmp_path):
    """A's and B's LocalAPI: each lists the other as an online device of
    the same user. A's also lists a device of another user, a shared-in
    node, an offline device of the person and a tagged node with the
    person's UserID (Headscale kept it: owned by its tag, not the person),
    all on the router's addresses (where `Counter` listens)."""
    ra, rb = router_ips(hosts, "a"), router_ips(hosts, "b")
    a_peers = {
        "nodekey:b": peer_status("desk", 7, own_ips(hosts, "b")),
        "nodekey:c": peer_status("bobs-laptop", 8, [ra[0]]),
        "nodekey:d": peer_status("shared-in", 7, [ra[1]], sharee=True),
        "nodekey:e": peer_status("asleep", 7, [rb[0]], online=False),
        "nodekey:f": peer_status("build-server", 7, [rb[1]], tags=["tag:server"]),
    }
    b_peers = {"nodekey:a": peer_status("laptop", 7, own_ips(hosts, "a"))}
    served = [FakeTailscaled(tmp_path / "a-tailscaled.sock", status("laptop", own_ips(hosts, "a"), a_peers)),
              FakeTailscaled(tmp_path / "b-tailscaled.sock", status("desk", own_ips(hosts, "b"), b_peers))]
    yield served
    for s in served:
        s.close()


COUNTER = r"""
import select, socket, sys
socks = []
for family, host in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
    s = socket.socket(family, socket.SOCK_DGRAM)
    if family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((host, 52370))
    socks.append(s)
print("ready", flush=True)
count = 0
while True:
    readable, _, _ = select.select(socks + [sys.stdin], [], [])
    if sys.stdin in readable:
        break
    for s in readable:
        s.recv(2048)
        count += 1
print(count, flush=True)
"""


class Counter:
    """Counts UDP datagrams to port 52370 on the router's addresses (not
    a multicast member: unicast only) until `stop()`."""

    def __init__(self, ns):
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c", COUNTER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def stop(self):
        self.proc.stdin.close()
        out = self.proc.stdout.readline().strip()
        self.proc.wait(timeout=10)
        return int(out)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def findings_of(result):
    report = result.json()
    return report, {f["check"]: f for f in report["findings"]}


def test_a_link_beacon_does_not_cross_the_router(hosts, tmp_path, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    a.spawn("--json", "publish", "--type", TYPE, "--no-tailnet").event("publishing")
    result = b.run("--json", "doctor", "--listen", "6", "--no-tailnet")
    _, findings = findings_of(result)
    assert findings["multicast.membership"]["status"] == "ok"  # multicast is on, on each link
    assert findings["beacons"]["status"] == "warn", findings["beacons"]  # and nothing crossed r


def test_discovery_and_handoff_through_the_tailnet_source(hosts, tailscaleds, tmp_path, procs):
    sa, sb = tailscaleds
    counter = Counter(hosts["r"])
    try:
        a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
        sender = a.spawn("--json", "publish", "--type", TYPE, "--title", "Through the tailnet",
                         "--info", "page:int=4", "--tailnet-socket", sa.path)
        published = sender.event("publishing")

        continued = b.run("--json", "continue", published["id"], "--timeout", "40", "--tailnet-socket", sb.path)
        assert continued.code == 0, continued
        assert continued.json()["user_info"] == {"page": 4}
        assert continued.json()["title"] == "Through the tailnet"
        sender.event("continued", id=published["id"])

        # What the engine makes of A's tailnet: B only, and why the rest are left out.
        result = a.run("--json", "doctor", "--listen", "2", "--tailnet-socket", sa.path)
        report, findings = findings_of(result)
        assert findings["sources.tailnet"]["status"] == "ok", findings["sources.tailnet"]
        assert "1 device(s)" in findings["sources.tailnet"]["what"]
        tailnet = [s for s in report["sources"] if s["kind"] == "tailnet"]
        v4, v6 = own_ips(hosts, "b")
        assert tailnet == [{"kind": "tailnet", "name": sa.path, "condition": "ok", "peers": 1,
                            "addresses": [f"{v4}:52370", f"[{v6}]:52370"],
                            "message": "left out: 1 offline, 1 of other users, 1 shared in, 1 with other tags"}]
    finally:
        datagrams = counter.stop() if counter.proc.poll() is None else -1
        counter.kill()
    # Every beacon A sent went to B alone: none to another user's device,
    # a shared-in node, an offline one or a node owned by its tag.
    assert datagrams == 0

    # tailscaled was asked as its own client asks it.
    for served in (sa, sb):
        assert served.requests, "tailscaled was never asked"
        for line, headers in served.requests:
            assert line == "GET /localapi/v0/status HTTP/1.1"
            assert headers.get("host") == "local-tailscaled.sock" and "origin" not in headers
            assert headers.get("connection") == "close"


def test_tagged_devices_find_those_sharing_a_tag_and_no_other_tagged_node(hosts, tmp_path, procs):
    """Both devices tagged: every tagged node has the UserID of
    "tagged-devices", so only a tag in common says they are one owner's.
    A's tailnet also lists tagged nodes of the same UserID with other
    tags, on the router's addresses: they get no beacon."""
    ra, rb = router_ips(hosts, "a"), router_ips(hosts, "b")
    a_peers = {
        "nodekey:b": peer_status("desk", TAGGED_DEVICES, own_ips(hosts, "b"), tags=["tag:ada", "tag:desktops"]),
        "nodekey:c": peer_status("ci-runner", TAGGED_DEVICES, [ra[0], ra[1]], tags=["tag:ci"]),
        "nodekey:d": peer_status("db", TAGGED_DEVICES, [rb[0], rb[1]], tags=["tag:server", "tag:prod"]),
    }
    b_peers = {"nodekey:a": peer_status("laptop", TAGGED_DEVICES, own_ips(hosts, "a"), tags=["tag:ada"])}
    sa = FakeTailscaled(tmp_path / "a-tailscaled.sock",
                        status("laptop", own_ips(hosts, "a"), a_peers, user=TAGGED_DEVICES, self_tags=["tag:ada"]))
    sb = FakeTailscaled(tmp_path / "b-tailscaled.sock",
                        status("desk", own_ips(hosts, "b"), b_peers, user=TAGGED_DEVICES, self_tags=["tag:desktops", "tag:ada"]))
    counter = Counter(hosts["r"])
    try:
        a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
        sender = a.spawn("--json", "publish", "--type", TYPE, "--title", "Tagged", "--tailnet-socket", sa.path)
        published = sender.event("publishing")
        continued = b.run("--json", "continue", published["id"], "--timeout", "40", "--tailnet-socket", sb.path)
        assert continued.code == 0, continued
        assert continued.json()["title"] == "Tagged"
        sender.event("continued", id=published["id"])

        report, _ = findings_of(a.run("--json", "doctor", "--listen", "2", "--tailnet-socket", sa.path))
        [tailnet] = [s for s in report["sources"] if s["kind"] == "tailnet"]
        assert tailnet["condition"] == "ok" and tailnet["peers"] == 1, tailnet
        assert tailnet["message"] == "left out: 2 with other tags", tailnet
    finally:
        datagrams = counter.stop() if counter.proc.poll() is None else -1
        counter.kill()
        sa.close()
        sb.close()
    assert datagrams == 0


def test_discovery_and_handoff_through_configured_host_names(hosts, tmp_path, procs):
    """No tailnet, no multicast across r: each names the other by host
    name (/etc/hosts there), resolved by the engine."""
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    sender = a.spawn("--json", "publish", "--type", TYPE, "--title", "By name", "--no-tailnet",
                     "--peer", "desk-b.test:52370")
    published = sender.event("publishing")
    continued = b.run("--json", "continue", published["id"], "--timeout", "40", "--no-tailnet",
                      "--peer", "laptop-a.test:52370")
    assert continued.code == 0, continued
    assert continued.json()["title"] == "By name"
    sender.event("continued", id=published["id"])


def test_the_agent_uses_the_tailnet_and_doctor_reports_each_source(hosts, tailscaleds, tmp_path, procs):
    sa, sb = tailscaleds
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    agent_socket = tmp_path / "b-run" / "agent.sock"
    agent = b.spawn("--json", "agent", "--no-notifications", "--no-tray", "--no-launch", "--socket", agent_socket,
                    "--tailnet-socket", sb.path, "--peer", "nowhere.invalid:52370", "--peer", "laptop-a.test:52370")
    agent.expect_stderr('"event":"listening"')
    through_agent = dict(b.env, HANDOFF_AGENT_SOCKET=str(agent_socket))

    sender = a.spawn("--json", "publish", "--type", TYPE, "--title", "To the agent", "--tailnet-socket", sa.path)
    published = sender.event("publishing")
    continued = b.run("--json", "continue", published["id"], "--timeout", "40", env=through_agent)
    assert continued.code == 0, continued
    assert continued.json()["via"] == "agent"
    sender.event("continued", id=published["id"])

    result = b.run("--json", "doctor", "--listen", "1", env=through_agent)
    report, findings = findings_of(result)
    assert report["via"] == "agent"
    assert findings["sources.tailnet"]["status"] == "ok" and sb.path in findings["sources.tailnet"]["what"]
    peers = [f for f in report["findings"] if f["check"] == "sources.peer"]
    assert [f["status"] for f in peers] == ["warn", "ok"], peers
    assert "nowhere.invalid:52370 does not resolve" in peers[0]["what"]
    v4, v6 = own_ips(hosts, "a")
    assert peers[1]["what"].startswith("peer laptop-a.test:52370: resolves to 2 address(es): ")
    [named] = [s for s in report["sources"] if s["name"] == "laptop-a.test:52370"]
    assert sorted(named["addresses"]) == sorted([f"{v4}:52370", f"[{v6}]:52370"])  # in the resolver's order
    kinds = [s["kind"] for s in report["sources"]]
    assert kinds == ["link", "peer", "peer", "tailnet"], report["sources"]


def test_a_name_is_looked_up_again_when_the_network_changes(hosts, tmp_path, procs):
    """B's agent names A by a host name that first resolves where nothing
    is (/etc/hosts in B's namespace). The name then moves to A, and B's
    network changes (an interface appears): the agent looks the name up
    again within a second or two, not at the next minute, and solicits A,
    whose answer is the only way B can hear of A's activity here (no
    multicast across r, A has no peers): `continue`, which gives up after
    30 s, works."""
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    hosts_file = Path("/etc/netns") / hosts["b"] / "hosts"
    original = hosts_file.read_text()
    (av4, av6), (bv4, _) = hosts["nets"]["a"], hosts["nets"]["b"]
    nowhere = f"{bv4}.77"  # on B's own link, nobody there
    try:
        # Written in place: `ip netns exec` bound this file over /etc/hosts.
        hosts_file.write_text(original + f"{nowhere} moving-a.test\n")
        agent_socket = tmp_path / "b-run" / "agent.sock"
        agent = b.spawn("--json", "agent", "--no-notifications", "--no-tray", "--no-launch", "--socket", agent_socket,
                        "--no-tailnet", "--peer", "moving-a.test:52370")
        agent.expect_stderr('"event":"listening"')
        through_agent = dict(b.env, HANDOFF_AGENT_SOCKET=str(agent_socket))

        def named():
            report, _ = findings_of(b.run("--json", "doctor", "--listen", "0", env=through_agent))
            [state] = [s for s in report["sources"] if s["name"] == "moving-a.test:52370"]
            return state

        for _ in range(50):
            if named()["addresses"] == [f"{nowhere}:52370"]:
                break
        assert named()["addresses"] == [f"{nowhere}:52370"]

        sender = a.spawn("--json", "publish", "--type", TYPE, "--title", "Moved", "--no-tailnet")
        published = sender.event("publishing")
        hosts_file.write_text(original + f"{av4}.1 moving-a.test\n{av6}:1 moving-a.test\n")
        # A new link with multicast, inside B (a veth pair: the kernel here may have no dummy).
        netns.ip("-n", hosts["b"], "link", "add", "hmove0", "type", "veth", "peer", "name", "hmove1")
        netns.ip("-n", hosts["b"], "addr", "add", "10.250.0.1/24", "dev", "hmove0")
        netns.ip("-n", hosts["b"], "link", "set", "hmove1", "up")
        netns.ip("-n", hosts["b"], "link", "set", "hmove0", "up")

        continued = b.run("--json", "continue", published["id"], "--timeout", "30", env=through_agent)
        assert continued.code == 0, continued
        assert continued.json()["title"] == "Moved" and continued.json()["via"] == "agent"
        sender.event("continued", id=published["id"])
        assert sorted(named()["addresses"]) == sorted([f"{av4}.1:52370", f"[{av6}:1]:52370"])
    finally:
        hosts_file.write_text(original)
        subprocess.run(["ip", "-n", hosts["b"], "link", "del", "hmove0"], capture_output=True)


# ------------------------------------------------- tailscaled absent, refusing, broken

@pytest.fixture
def alone(hosts, tmp_path, procs):
    """A device with an account in namespace r (no other device there)."""
    device = Device(tmp_path, "alone", procs, hosts["r"])
    assert device.run("account", "create").code == 0
    return device


def tailnet_state(device, *options, env=None):
    """doctor's tailnet finding and source state (its own engine)."""
    result = device.run("--json", "doctor", "--listen", "6", *options, env=env)
    assert result.code in (0, 1), result  # a report, not a crash
    report, findings = findings_of(result)
    [state] = [s for s in report["sources"] if s["kind"] == "tailnet"]
    return findings["sources.tailnet"], state


def test_no_tailscaled_is_a_quiet_state(alone, tmp_path):
    finding, state = tailnet_state(alone, env=dict(alone.env, HANDOFF_TAILNET_SOCKET=str(tmp_path / "none" / "ts.sock")))
    assert state["condition"] == "absent" and state["addresses"] == []
    assert finding["status"] == "ok" and "no tailscaled (socket" in finding["what"] and "absent" in finding["what"]
    off = alone.run("--json", "doctor", "--listen", "0", "--no-tailnet")
    report, findings = findings_of(off)
    assert "sources.tailnet" not in findings and all(s["kind"] != "tailnet" for s in report["sources"])


def test_a_refusing_socket_is_reported(alone, tmp_path):
    import socket
    path = tmp_path / "refusing.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()  # the file stays, nobody listens: ECONNREFUSED
    finding, state = tailnet_state(alone, "--tailnet-socket", path)
    assert state["condition"] == "unavailable" and "refuses" in state["message"]
    assert finding["status"] == "warn"


@pytest.mark.parametrize("mode, words", [("garbage", "not an HTTP/1.1 response"),
                                         ("huge", "bytes"),
                                         ("slow", "no complete answer within 3 s")])
def test_a_broken_answer_is_bounded_and_reported(alone, tmp_path, mode, words):
    served = FakeTailscaled(tmp_path / f"{mode}.sock", mode=mode)
    try:
        finding, state = tailnet_state(alone, "--tailnet-socket", served.path)
        assert state["condition"] == "failed" and words in state["message"], state
        assert finding["status"] == "warn"
        # Asked at start, then every 10 s: never in a loop.
        assert 1 <= served.connections <= 2, served.connections
    finally:
        served.close()


def test_a_stopped_tailnet_has_no_peers(alone, tmp_path):
    served = FakeTailscaled(tmp_path / "stopped.sock", {"BackendState": "Stopped", "Self": None, "Peer": None})
    try:
        finding, state = tailnet_state(alone, "--tailnet-socket", served.path)
        assert state["condition"] == "unavailable" and "not running" in state["message"] and state["peers"] == 0
        assert finding["status"] == "warn"
    finally:
        served.close()
