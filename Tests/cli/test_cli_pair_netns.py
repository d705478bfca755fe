# SPDX-License-Identifier: MIT OR Apache-2.0
"""`handoff pair` between network namespaces (docs/PROTOCOL.md §9): real
processes on their defaults (multicast pairing beacons on port 52370, the
joiner's TCP listener on a free port), in namespaces each test creates and
always deletes (hpair-<pid>-<x>; needs root and iproute2).

- a pairing that succeeds, after which the two hand off to each other;
- a comparison one side rejects (wrong digits): both fail, nothing stored;
- a timeout with nobody on the other side;
- a man in the middle: a namespace between the two runs its own sponsor
  toward the joiner and its own joiner toward the sponsor (the `handoff`
  tool itself); the honest sides' codes differ, so the comparison fails;
- a flood of pairing beacons, garbage datagrams and garbage connections
  from a third host during a pairing that still succeeds.
"""

import json
import os
import subprocess

import pytest

import netns
from cli_support import TOOL, WAIT, Device, Process
from pairing_support import HANDOFF_FAILED, TIMED_OUT, answer, failed_with, outcome

PREFIX = "hpair-"
BEACON_PORT = 52370
GROUP = "239.255.72.79"
# Long enough for both people to answer on a loaded machine, short enough
# that a failing test ends.
WINDOW = "90"


# ------------------------------------------------------------ helpers

def pairing(device, *args):
    """`handoff --json pair ARGS` in the device's namespace, its answers
    written to standard input by the test (answer())."""
    proc = Process(device.prefix + [str(TOOL), "--json", "pair", *args], device.env, stdin=subprocess.PIPE)
    device.procs.append(proc)
    return proc


def code_of(proc):
    return proc.event("code", timeout=WAIT * 2)["code"]


def account_of(device):
    result = device.run("--json", "account", "show")
    assert result.code == 0, result
    return result.json()["account"]


def sponsor_and_joiner(tmp_path, procs, hosts):
    """S (with an account) in namespace a, J (none) in namespace b."""
    s = Device(tmp_path, "sponsor", procs, hosts["a"])
    j = Device(tmp_path, "joiner", procs, hosts["b"])
    assert s.run("account", "create").code == 0
    assert s.run("device", "--name", "Sponsor").code == 0
    assert j.run("device", "--name", "Joiner").code == 0
    return s, j


# ------------------------------------------------------------ topologies

@pytest.fixture
def space():
    netns.require()
    with netns.Namespaces(PREFIX) as namespaces:
        yield namespaces


@pytest.fixture
def link(space):
    """Namespaces a and b on one veth pair (10.216.N.1/.2)."""
    hosts = space.veth(("a", "b"))
    for number, x in enumerate(("a", "b"), start=1):
        netns.address(hosts[x], f"{netns.subnet(216)}.{number}/24")
    netns.wait_up(hosts.values())
    return hosts


# ------------------------------------------------------------ success

def test_pairing_between_two_hosts_then_a_handoff(link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    joiner = pairing(j, "--timeout", WINDOW)
    joiner.event("listening")
    sponsor = pairing(s, "--timeout", WINDOW)
    codes = code_of(sponsor), code_of(joiner)
    assert codes[0] == codes[1] and len(codes[0]) == 6, codes
    # The sponsor heard what the new device calls itself (its named beacon) before the code.
    assert sponsor.event("joiner-name")["name"] == "Joiner"
    answer(joiner, "y")
    answer(sponsor, "y")
    s_status, s_paired = outcome(sponsor)
    j_status, j_paired = outcome(joiner)
    assert (s_status, j_status) == (0, 0), (sponsor.lines, sponsor.stderr, joiner.lines, joiner.stderr)
    assert s_paired["event"] == "paired" and s_paired["role"] == "sponsor" and s_paired["peer"] == "Joiner"
    assert j_paired["event"] == "paired" and j_paired["role"] == "joiner" and j_paired["peer"] == "Sponsor"
    assert s_paired["account"] == j_paired["account"] == account_of(s) == account_of(j)
    assert j.account_file.read_text() == s.account_file.read_text()

    # Now one account: J continues what S publishes, over multicast.
    sender = s.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "Paired",
                     "--info", "page:int=7", "--once")
    published = sender.event("publishing")
    continued = j.run("--json", "continue", published["id"], "--timeout", "40")
    assert continued.code == 0, continued
    assert continued.json()["user_info"] == {"page": 7}
    sender.event("continued", id=published["id"])
    assert sender.wait() == 0


# ------------------------------------------------------------ wrong digits

@pytest.mark.parametrize("rejecting", ["joiner", "sponsor"])
def test_a_rejected_comparison_fails_both_and_stores_nothing(rejecting, link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    before = s.account_file.read_text()
    joiner = pairing(j, "--timeout", WINDOW)
    joiner.event("listening")
    sponsor = pairing(s, "--timeout", WINDOW)
    assert code_of(sponsor) == code_of(joiner)
    # The person on one side sees other digits than on the other (as with
    # a man in the middle) and says no; the other says yes.
    answer(joiner, "n" if rejecting == "joiner" else "y")
    answer(sponsor, "n" if rejecting == "sponsor" else "y")
    failed_with(joiner, HANDOFF_FAILED)
    failed_with(sponsor, HANDOFF_FAILED)
    assert not j.account_file.exists()
    assert s.account_file.read_text() == before


def test_yes_if_code_with_other_digits_says_no(link, tmp_path, procs):
    """The scripted answer: a joiner told --yes-if-code 000000 answers no
    by itself to any other code; the sponsor's yes cannot save it."""
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    joiner = Process(j.prefix + [str(TOOL), "--json", "pair", "--timeout", WINDOW, "--yes-if-code", "000000"], j.env)
    procs.append(joiner)
    joiner.event("listening")
    sponsor = pairing(s, "--timeout", WINDOW)
    code = code_of(sponsor)
    assert code_of(joiner) == code
    if code == "000000":
        pytest.skip("the one code in a million that matches")
    answer(sponsor, "y")
    failed_with(joiner, HANDOFF_FAILED)
    failed_with(sponsor, HANDOFF_FAILED)
    assert not j.account_file.exists()


# ------------------------------------------------------------ timeout

def test_nobody_on_the_other_side_times_out(link, tmp_path, procs):
    s, j = sponsor_and_joiner(tmp_path, procs, link)
    # Each alone: the joiner in b, the sponsor in a, at different times.
    joiner = pairing(j, "--timeout", "3")
    joiner.event("listening")
    error = failed_with(joiner, TIMED_OUT)
    assert "pair" in error["message"] or "sponsor" in error["message"] or "device" in error["message"], error
    assert not j.account_file.exists()
    sponsor = pairing(s, "--timeout", "3")
    sponsor.event("looking")
    failed_with(sponsor, TIMED_OUT)


# ------------------------------------------------------------ man in the middle

@pytest.fixture
def chain(space):
    """a — m — b: namespace m has eth0 toward a (10.217.N.0/24) and eth1
    toward b (10.218.N.0/24), and forwards nothing (a fresh namespace does
    not route). Multicast from one side reaches m only."""
    hosts = space.veth(("a", "m"))
    hosts["b"] = space.add("b")
    netns.ip("-n", hosts["m"], "link", "add", "eth1", "type", "veth", "peer", "name", "eth0", "netns", hosts["b"])
    netns.address(hosts["a"], f"{netns.subnet(217)}.1/24")
    netns.address(hosts["m"], f"{netns.subnet(217)}.2/24")
    netns.address(hosts["m"], f"{netns.subnet(218)}.2/24", dev="eth1")
    netns.address(hosts["b"], f"{netns.subnet(218)}.1/24")
    netns.wait_up([hosts["a"], hosts["b"]])
    return hosts


def test_a_man_in_the_middle_fails_the_comparison(chain, tmp_path, procs):
    """M plays joiner toward S and sponsor (of an account of its own)
    toward J, with the tool itself. Each honest side completes a key
    agreement — with M — and shows a code; the two codes differ, so the
    people (here: the test comparing them) say no, and M gets nothing."""
    s, j = sponsor_and_joiner(tmp_path, procs, chain)
    m_sponsor = Device(tmp_path, "m-sponsor", procs, chain["m"])
    m_joiner = Device(tmp_path, "m-joiner", procs, chain["m"])
    assert m_sponsor.run("account", "create").code == 0
    assert m_sponsor.run("device", "--name", "Sponsor").code == 0  # M pretends: the names prove nothing
    assert m_joiner.run("device", "--name", "Joiner").code == 0

    joiner = pairing(j, "--timeout", WINDOW)
    joiner.event("listening")
    # M's sponsor hears J's multicast beacons on eth1 only; M's joiner
    # sends its beacons unicast to S (never looped back to M's sponsor).
    evil_sponsor = pairing(m_sponsor, "--timeout", WINDOW, "--interface", "eth1")
    evil_sponsor.event("looking")
    evil_joiner = pairing(m_joiner, "--timeout", WINDOW, "--no-multicast",
                          "--peer", f"{netns.subnet(217)}.1:{BEACON_PORT}")
    evil_joiner.event("listening")
    sponsor = pairing(s, "--timeout", WINDOW)

    s_code, j_code = code_of(sponsor), code_of(joiner)
    # Each honest side agreed with M, and M's halves show the same codes.
    assert code_of(evil_joiner) == s_code and code_of(evil_sponsor) == j_code
    # (The joiner listens on [::]: IPv4 peers are IPv4-mapped.)
    assert f"{netns.subnet(217)}.2" in sponsor.event("found")["address"]
    assert f"{netns.subnet(218)}.2" in joiner.event("found")["address"]
    # M could not make them equal (probability 10^-6 per attempt).
    assert s_code != j_code
    # M accepts everything; the honest people compare and refuse.
    answer(evil_sponsor, "y")
    answer(evil_joiner, "y")
    answer(sponsor, "n")
    answer(joiner, "n")
    failed_with(sponsor, HANDOFF_FAILED)
    failed_with(joiner, HANDOFF_FAILED)
    failed_with(evil_sponsor, HANDOFF_FAILED)
    failed_with(evil_joiner, HANDOFF_FAILED)
    assert not j.account_file.exists() and not m_joiner.account_file.exists()


# ------------------------------------------------------------ flood

@pytest.fixture
def switch(space):
    """Namespaces a, b and f (the flooder) on one bridge, 10.219.N.1-3."""
    hosts = space.bridged(("a", "b", "f"))
    for number, x in enumerate(sorted(hosts), start=1):
        netns.address(hosts[x], f"{netns.subnet(219)}.{number}/24")
    netns.wait_up(hosts.values())
    return hosts


FLOODER = r"""
import json, os, socket, struct, sys, time
group, sponsor, joiner, port_file, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
# A TCP port in this namespace that accepts and never speaks, and one
# that is closed: fake sessions point at both.
mute = socket.socket(); mute.bind(("0.0.0.0", 0)); mute.listen(128)
closed = socket.socket(); closed.bind(("0.0.0.0", 0)); closed_port = closed.getsockname()[1]; closed.close()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
# No default route in the namespace: name the interface by its address.
udp.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[7]))
def beacon(port, session=None):
    return b"HOFFPAIR" + bytes([1, 1]) + struct.pack(">H", port) + (session or os.urandom(16)) + bytes(68)
counts = {"beacons": 0, "garbage": 0, "connections": 0}
sockets = []
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end and not os.path.exists(sys.argv[6]):
    n += 1
    for target in (group, sponsor):
        udp.sendto(beacon(mute.getsockname()[1] if n % 2 else closed_port), (target, 52370))
        udp.sendto(os.urandom(96), (target, 52370))                   # pairing-sized garbage
        udp.sendto(b"HOFFPAIR" + os.urandom(88), (target, 52370))      # the magic, then garbage
        udp.sendto(os.urandom(28 + 64 * 2), (target, 52370))           # discovery-sized garbage
        counts["beacons"] += 1; counts["garbage"] += 3
    # Garbage connections to the joiner's listener, once its port is known.
    try:
        jport = int(open(port_file).read())
    except (OSError, ValueError):
        jport = 0
    if jport and n % 4 == 0:
        try:
            c = socket.create_connection((joiner, jport), timeout=1)
            c.setblocking(False)
            try:
                c.send(os.urandom(60) if n % 8 else struct.pack(">I", 50) + bytes([0x21, 1]) + os.urandom(48))
            except OSError:
                pass
            sockets.append(c); counts["connections"] += 1
            if len(sockets) > 16:
                sockets.pop(0).close()
        except OSError:
            pass
    if n == 60:
        print("flooding", flush=True)  # the test starts the sponsor now
    time.sleep(0.01)
print(json.dumps(counts), flush=True)
"""


def test_a_pairing_succeeds_through_a_flood(switch, tmp_path, procs):
    hosts = switch
    s, j = sponsor_and_joiner(tmp_path, procs, hosts)
    subnet = netns.subnet(219)
    port_file = tmp_path / "joiner-port"
    stop_file = tmp_path / "stop-flood"
    joiner = pairing(j, "--timeout", WINDOW)
    port_file.write_text(str(joiner.event("listening")["port"]))
    flooder = Process(["ip", "netns", "exec", hosts["f"], "python3", "-c", FLOODER, GROUP, f"{subnet}.1",
                       f"{subnet}.2", str(port_file), str(WAIT * 4), str(stop_file), f"{subnet}.3"], dict(os.environ))
    procs.append(flooder)
    try:
        # The sponsor starts into a flood already under way (60 rounds sent).
        flooder.expect_line("flooding")
        sponsor = pairing(s, "--timeout", WINDOW)
        codes = code_of(sponsor), code_of(joiner)
        assert codes[0] == codes[1], codes
        answer(joiner, "y")
        answer(sponsor, "y")
        s_status, s_paired = outcome(sponsor)
        j_status, j_paired = outcome(joiner)
    finally:
        stop_file.write_text("")
    assert flooder.wait(timeout=WAIT) == 0, flooder.stderr
    counts = json.loads(flooder.lines[-1])
    assert counts["beacons"] > 50 and counts["garbage"] > 150 and counts["connections"] > 0, counts
    assert (s_status, j_status) == (0, 0), (sponsor.lines, sponsor.stderr, joiner.lines, joiner.stderr)
    assert s_paired["account"] == j_paired["account"] == account_of(s) == account_of(j)
    # The sponsor reached J itself (over IPv4 or IPv6), not a fake session.
    assert s_paired["peer"] == "Joiner" and f"{subnet}.3" not in sponsor.event("found")["address"], sponsor.lines


# ------------------------------------------------------------ rotation

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def account_key(device):
    """The 32-byte account key in a device's pairing code (docs/PROTOCOL.md §4)."""
    number = 0
    for c in device.account_file.read_text().strip().replace("-", ""):
        number = number << 5 | CROCKFORD.index(c)
    return (number >> 2).to_bytes(36, "big")[:32]


def test_rotation_shuts_out_the_old_key(switch, tmp_path, procs):
    """R rotates; N (still with R) pairs again; O (the lost device) keeps
    the old key. O's beacons show R nothing (they arrive: doctor counts
    them as another account's); a channel under the old key to R fails
    the handshake (4608); R and N hand off again."""
    hosts = {"r": switch["a"], "n": switch["b"], "o": switch["f"]}
    subnet = netns.subnet(219)
    r = Device(tmp_path, "r", procs, hosts["r"])
    n = Device(tmp_path, "n", procs, hosts["n"])
    o = Device(tmp_path, "o", procs, hosts["o"])
    assert r.run("account", "create").code == 0
    code = r.run("account", "code").out.strip()
    for device, name in ((r, "Rotated"), (n, "Kept"), (o, "Lost")):
        if device is not r:
            assert device.run("account", "join", code).code == 0
        assert device.run("device", "--name", name).code == 0
    old = account_of(r)
    old_key = account_key(r)

    rotated = r.run("--json", "account", "rotate")
    assert rotated.code == 0, rotated
    assert rotated.json()["previous"] == old and rotated.json()["account"] == account_of(r) != old
    assert account_key(r) != old_key and account_of(o) == old
    human = r.run("account", "rotate")  # again, as a person sees it: the ceremony is printed
    assert human.code == 0 and "handoff pair --join --force" in human.err and "handoff pair" in human.err
    new = account_of(r)

    # N pairs again, by the comparison.
    joiner = pairing(n, "--timeout", WINDOW, "--join", "--force")
    joiner.event("listening")
    sponsor = pairing(r, "--timeout", WINDOW)
    assert code_of(sponsor) == code_of(joiner)
    answer(joiner, "y")
    answer(sponsor, "y")
    assert outcome(sponsor)[0] == 0 and outcome(joiner)[0] == 0, (sponsor.lines, joiner.lines)
    assert account_of(n) == new

    # O (old key) and N (new key) publish; R lists N's activity, never O's.
    lost = o.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "From the lost device")
    lost_id = lost.event("publishing")["id"]
    kept = n.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "From the kept device")
    kept_id = kept.event("publishing")["id"]
    seen = r.run("--json", "nearby", "--timeout", "15")
    events = [json.loads(line) for line in seen.out.splitlines() if line.strip()]
    ids = {e.get("id") for e in events if e.get("event") == "available"}
    assert kept_id in ids and lost_id not in ids, events
    # O's beacons do reach R: they are another account's now.
    report = r.run("--json", "doctor", "--listen", "6").json()
    foreign = [f for f in report["findings"] if f["check"] == "beacons.foreign"]
    assert foreign and f"{subnet}.3" in foreign[0]["what"], report["findings"]
    lost.kill()
    kept.kill()

    # R and N hand off again.
    sender = r.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "After rotation",
                     "--info", "page:int=9", "--once")
    published = sender.event("publishing")
    continued = n.run("--json", "continue", published["id"], "--timeout", "40")
    assert continued.code == 0, continued
    assert continued.json()["user_info"] == {"page": 9}
    assert sender.wait() == 0

    # A channel under the old key: O, which keeps it, tries R's channel (the
    # handshake the engine's verification makes, as doctor runs it by hand).
    target = r.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "Still here")
    channel_port = target.event("publishing")["channel_port"]
    tried = o.run("--json", "doctor", "--listen", "0", "--peer", f"{subnet}.1:{channel_port}")
    assert tried.code == 1, tried
    (finding,) = [f for f in tried.json()["findings"] if f["check"] == "channel.peer"]
    assert finding["status"] == "fail" and "TLS handshake fails" in finding["what"], finding
    assert "another account" in finding["todo"], finding
