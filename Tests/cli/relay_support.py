# SPDX-License-Identifier: MIT OR Apache-2.0
"""The relay's test bed (issue #24, docs/PROTOCOL.md §11): two homes, each
behind its own NAT router, and an "internet" with a real Mosquitto on it.

    home1 (device 192.168.1.2) -- r1 (LAN 192.168.1.1, WAN 203.0.113.11) --+
                                                                            br0 in inet (203.0.113.1: mosquitto)
    home2 (device 192.168.1.2) -- r2 (LAN 192.168.1.1, WAN 203.0.113.12) --+

A home's LAN is a bridge in its router, so more devices can share it
(`neighbours`: {"home1": ["home1b"]} adds home1b at 192.168.1.3): a
direct path beside the relay.

All WANs are on one bridge, br0 in the namespace `inet`, which also holds
the broker's address 203.0.113.1/24 (TEST-NET-3: never routed anywhere
real). Both homes use the same private subnet, as real homes do. Each
router forwards IPv4, masquerades what leaves its WAN, and drops what
arrives on its WAN unless it answers a connection from its LAN (forwarded
or to itself): a home router with no port forwarding. So the devices can
reach the broker and nothing can reach the devices. IPv6 is not forwarded.

The broker listens only on 203.0.113.1:8883 with TLS (a CA made here with
openssl; the server's certificate names broker.test and 203.0.113.1) and
password authentication (users ada and eve, anonymous refused); its ACL
gives each user `topic readwrite hoff/#`, so eve can publish under ada's
topics (the injection tests need that); persistence is on, in the bed's
folder; it logs every connection to a file (`log_text()`). The name
broker.test resolves to 203.0.113.1 in every namespace of the bed (its own
/etc/hosts), as does mirror.test, a name the certificate does not carry
(`alias_name`), and nothing else resolves: no DNS query leaves.

`RelayNetwork(tmpdir)` is a context manager: everything it starts
(mosquitto, tcpdump, processes from popen_in) is killed and reaped, and
every namespace (and so every veth) deleted, when the `with` ends however
it ends. Namespaces are hrelay-<pid>-<name> (Tests/support/netns.py), so
parallel runs never collide and leftovers of a dead run are removed by the
next. Needs root, iproute2, nftables, mosquitto, tcpdump and openssl (the
test is skipped otherwise; scripts/install-deps.sh installs them).
Tests/README.md describes the bed and everything it offers.
"""

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import certs  # Tests/support
import children  # Tests/support
import netns  # Tests/support
import pcap  # Tests/support

PREFIX = "hrelay-"
BROKER_IP = "203.0.113.1"
BROKER_NAME = "broker.test"
# Another name of the broker's address, one its certificate does not carry.
ALIAS_NAME = "mirror.test"
BROKER_PORT = 8883
WAN_IPS = {"home1": "203.0.113.11", "home2": "203.0.113.12"}
DEVICE_IP = "192.168.1.2"
LAN_GATEWAY = "192.168.1.1"
PASSWORDS = {"ada": "ada-relay-password", "eve": "eve-relay-password"}
TOOLS = ("nft", "mosquitto", "mosquitto_passwd", "tcpdump", "openssl")

# Bounds on waits: generous for a loaded machine; a test fails only when the
# thing never happens.
WAIT = 30


def require():
    """Skips the test unless the bed can be built here."""
    netns.require(*TOOLS)


def _checked(cmd, **kwargs):
    """Runs `cmd`; raises with its output when it fails."""
    done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=WAIT, **kwargs)
    if done.returncode != 0:
        raise RuntimeError("%s failed (%d): %s%s" % (" ".join(map(str, cmd)), done.returncode,
                                                     done.stdout, done.stderr))
    return done


# nftables of a home router: masquerade on the WAN; from the WAN only what
# answers a connection made from inside (a home router, no port forwards).
ROUTER_RULES = """\
table ip home {
    chain postrouting {
        type nat hook postrouting priority 100; policy accept;
        oifname "wan" masquerade
    }
    chain forward {
        type filter hook forward priority 0; policy accept;
        iifname "wan" ct state established,related accept
        iifname "wan" drop
    }
    chain input {
        type filter hook input priority 0; policy accept;
        iifname "wan" ct state established,related accept
        iifname "wan" drop
    }
}
"""

# A bounded TCP connect, run inside a namespace: prints what happened.
CONNECT_PROBE = """\
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=float(sys.argv[3])).close()
    print("connected")
except OSError as error:
    print("failed:", error)
    sys.exit(1)
"""


def read_line(stream, timeout):
    """One line of a process's pipe `stream`, or "" after `timeout` seconds
    (or at its end). Meant for a first line, before anything is buffered."""
    ready, _, _ = select.select([stream], [], [], timeout)
    return stream.readline() if ready else ""


class Capture:
    """A running `tcpdump -w FILE -U` in a namespace. `stop()` ends it (at
    exit of the bed at the latest); `bytes()` stops it and returns the pcap."""

    def __init__(self, network, ns, iface, path):
        self.path = Path(path)
        self.network = network
        # -Z root: tcpdump as root would switch to its own user, which
        # cannot write the test's folder. --immediate-mode: each packet
        # reaches tcpdump at once (else the kernel holds it in a ring block
        # that a SIGINT may never see); -U: and the file at once.
        self.proc = network.popen_in(ns, ["tcpdump", "-i", iface, "-n", "-U", "--immediate-mode", "-Z", "root",
                                          "-w", str(self.path)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # Ready once it says so on stderr ("listening on br0, ...").
        line = read_line(self.proc.stderr, WAIT)
        if "listening on" not in line:
            self.stop()
            raise RuntimeError("tcpdump did not start: %r" % line)

    def stop(self):
        """Stops the capture (SIGINT: tcpdump flushes and closes the file)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                pass
        children.kill(self.proc)
        if self.proc.stderr:
            self.proc.stderr.close()

    def bytes(self):
        self.stop()
        return self.path.read_bytes() if self.path.exists() else b""

    def packets(self):
        """Stops the capture; its IPv4 packets (pcap.ipv4_packets)."""
        return pcap.ipv4_packets(self.bytes())


class RelayNetwork:
    """The bed; see the module's doc. After `with RelayNetwork(tmp) as net:`
    `net.ns["home1"]` (and "home2", "r1", "r2", "inet") is a namespace's
    full name, for `ip netns exec` or cli_support.Device(netns=...); the
    short names do for run_in, popen_in, connect and capture."""

    def __init__(self, tmpdir, passwords=None, neighbours=None):
        self.folder = Path(tmpdir) / "relaynet"
        self.passwords = dict(passwords or PASSWORDS)
        # More devices on a home's LAN: {"home1": ["home1b"]} puts the
        # namespace home1b beside home1's device, at 192.168.1.3.
        self.neighbours = {home: list(names) for home, names in (neighbours or {}).items()}
        assert set(self.neighbours) <= set(WAN_IPS), "homes are home1 and home2"
        self.device_ips = {}  # device namespace's short name -> its address
        self.ns = {}
        self.broker_url = self.url_for("ada")
        self.broker_ip, self.broker_port, self.broker_name = BROKER_IP, BROKER_PORT, BROKER_NAME
        self.alias_name = ALIAS_NAME
        self.wan_ips = dict(WAN_IPS)
        self.device_ip = DEVICE_IP
        self.ca_file = None
        self.log_file = self.folder / "mosquitto.log"
        self.persistence_dir = self.folder / "persistence"
        self._space = None
        self._broker = None
        self._procs = []
        self._captures = []

    # ----------------------------------------------------------- lifetime

    def __enter__(self):
        require()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._space = netns.Namespaces(PREFIX)
        self._space.__enter__()
        try:
            self._build()
            self._write_broker_files()
            self._start_broker()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def __exit__(self, *exc):
        try:
            for capture in self._captures:
                capture.stop()
            self.stop_broker()
            for proc in self._procs:
                children.kill(proc)
        finally:
            self._space.__exit__(*exc)  # deletes every namespace, asserts none is left

    # ---------------------------------------------------------- processes

    def _name(self, ns):
        """A namespace's full name from its short one (or the full one)."""
        return self.ns.get(ns, ns)

    def run_in(self, ns, argv, **kwargs):
        """subprocess.run of `argv` in namespace `ns` (short or full name);
        output captured as text and a timeout of WAIT unless given."""
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        kwargs.setdefault("timeout", WAIT)
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        return subprocess.run(["ip", "netns", "exec", self._name(ns)] + [str(a) for a in argv], **kwargs)

    def popen_in(self, ns, argv, **kwargs):
        """subprocess.Popen of `argv` in namespace `ns`; killed and reaped
        when the bed closes, if not before. `ip netns exec` execs the
        program: the pid is the program's."""
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        proc = subprocess.Popen(["ip", "netns", "exec", self._name(ns)] + [str(a) for a in argv], **kwargs)
        self._procs.append(children.track(proc))
        return proc

    def connect(self, ns, host, port, timeout=3):
        """One TCP connect from namespace `ns` to host:port, bounded by
        `timeout` seconds: (connected, what happened)."""
        done = self.run_in(ns, [sys.executable, "-c", CONNECT_PROBE, host, port, timeout],
                           timeout=timeout + WAIT)
        return done.returncode == 0, (done.stdout + done.stderr).strip()

    def capture(self, ns="inet", iface="br0"):
        """Starts tcpdump on `iface` of `ns` (by default the internet's
        bridge, which every packet between homes and broker crosses)."""
        path = self.folder / ("capture-%d.pcap" % (len(self._captures) + 1))
        capture = Capture(self, ns, iface, path)
        self._captures.append(capture)
        return capture

    def url_for(self, user):
        """The broker's URL for `user` (broker_url is ada's)."""
        return "mqtts://%s@%s:%d" % (user, BROKER_IP, BROKER_PORT)

    def relay_set_args(self, user="ada"):
        """The arguments of `handoff relay set` for `user` on this broker:
        its URL, its password from a 0600 file, the bed's CA."""
        return ["relay", "set", self.url_for(user), "--password-file", self.secret_file(user),
                "--ca-file", self.ca_file]

    def secret_file(self, user="ada"):
        """A 0600 file holding `user`'s password (for `handoff relay set`
        reading it from a file)."""
        path = self.folder / ("%s.password" % user)
        path.write_text(self.passwords[user] + "\n")
        path.chmod(0o600)
        return path

    # ------------------------------------------------------------ network

    def _build(self):
        space = self._space
        self.ns["inet"] = inet = space.add("inet")
        netns.ip("-n", inet, "link", "add", "br0", "type", "bridge")
        netns.ip("-n", inet, "addr", "add", BROKER_IP + "/24", "dev", "br0")
        netns.ip("-n", inet, "link", "set", "br0", "up")
        rules = self.folder / "router.nft"
        rules.write_text(ROUTER_RULES)
        devices = []
        for number, home in enumerate(("home1", "home2"), start=1):
            router = space.add("r%d" % number, ["net.ipv4.ip_forward=1"])
            self.ns["r%d" % number] = router
            # WAN: router's "wan" to port rN of the bridge in inet.
            port = "r%d" % number
            netns.ip("-n", router, "link", "add", "wan", "type", "veth", "peer", "name", port, "netns", inet)
            netns.ip("-n", inet, "link", "set", port, "master", "br0")
            netns.ip("-n", inet, "link", "set", port, "up")
            netns.address(router, WAN_IPS[home] + "/24", dev="wan")
            netns.ip("-n", router, "route", "add", "default", "via", BROKER_IP)
            # LAN: the bridge "lan" in the router, a port per device (a
            # home's switch; no IGMP snooping, so multicast floods it).
            netns.ip("-n", router, "link", "add", "lan", "type", "bridge")
            netns.ip("-n", router, "link", "set", "lan", "type", "bridge", "mcast_snooping", "0")
            netns.address(router, LAN_GATEWAY + "/24", dev="lan")
            for index, name in enumerate([home] + list(self.neighbours.get(home, ())), start=2):
                device = space.add(name)
                self.ns[name] = device
                self.device_ips[name] = "192.168.1.%d" % index
                port = "d%d" % index
                netns.ip("-n", router, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", device)
                netns.ip("-n", router, "link", "set", port, "master", "lan")
                netns.ip("-n", router, "link", "set", port, "up")
                netns.address(device, self.device_ips[name] + "/24")
                netns.ip("-n", device, "route", "add", "default", "via", LAN_GATEWAY)
                devices.append(device)
            netns.run("nft", "-f", str(rules), netns=router)
        netns.wait_up(devices)
        # broker.test (and mirror.test) name the broker everywhere in the
        # bed; no query leaves.
        for ns in self.ns.values():
            space.names(ns, {BROKER_NAME: [BROKER_IP], ALIAS_NAME: [BROKER_IP]})

    # ------------------------------------------------------------- broker

    def _write_broker_files(self):
        self.ca_file, crt, key = certs.ca_and_server(self.folder, BROKER_NAME, BROKER_IP)
        passwd = self.folder / "passwd"
        passwd.write_text("")
        passwd.chmod(0o600)
        for user, password in self.passwords.items():
            _checked(["mosquitto_passwd", "-b", passwd, user, password])
        acl = self.folder / "acl"
        acl.write_text("".join("user %s\ntopic readwrite hoff/#\n\n" % user for user in self.passwords))
        self.persistence_dir.mkdir(exist_ok=True)
        self.config = self.folder / "mosquitto.conf"
        # As root mosquitto would switch to the user mosquitto, which could
        # not read the test's folder: it stays root. No other listener.
        self.config.write_text(
            "user root\n"
            "allow_anonymous false\n"
            "password_file %s\n"
            "acl_file %s\n"
            "persistence true\n"
            "set_tcp_nodelay true\n"
            "persistence_location %s\n"
            "log_dest file %s\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\nlog_type subscribe\n"
            "connection_messages true\n"
            "log_timestamp true\n"
            "\n"
            "listener %d %s\n"
            "cafile %s\ncertfile %s\nkeyfile %s\n"
            % (passwd, acl, self.persistence_dir, self.log_file, BROKER_PORT, BROKER_IP, self.ca_file, crt, key))

    def log_text(self):
        """Everything mosquitto logged so far (all of its runs)."""
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def wait_for_log(self, pattern, count=1):
        """Waits until `count` lines of the broker's log match the regular
        expression `pattern` (bounded: WAIT seconds); returns the matches."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + WAIT
        while True:
            found = regex.findall(self.log_text())
            if len(found) >= count:
                return found
            if time.monotonic() > deadline:
                raise AssertionError("the broker never logged %d of %r:\n%s" % (count, pattern, self.log_text()))
            time.sleep(0.05)

    def wait_subscribed(self, topic, count=1):
        """Waits until the broker has logged `count` subscriptions to the
        filter `topic` (a subscriber is then ready: mosquitto_sub cannot
        say so itself, its output being buffered on a pipe)."""
        return self.wait_for_log(r"^\d+: \S+ \d+ %s$" % re.escape(topic), count)

    def _start_broker(self):
        """Starts mosquitto and waits until it says it runs (it logs that
        once its listener is open)."""
        running = re.compile(r"^\d+: mosquitto version \S+ running$", re.MULTILINE)
        before = len(running.findall(self.log_text()))
        with open(self.folder / "mosquitto.stderr", "ab") as stderr:
            self._broker = self.popen_in("inet", ["mosquitto", "-c", self.config],
                                         stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + WAIT
        while len(running.findall(self.log_text())) <= before:
            if self._broker.poll() is not None:
                raise RuntimeError("mosquitto exited with %s: %s\n%s" % (
                    self._broker.returncode, (self.folder / "mosquitto.stderr").read_text(errors="replace"),
                    self.log_text()))
            if time.monotonic() > deadline:
                raise RuntimeError("mosquitto did not start within %d s:\n%s" % (WAIT, self.log_text()))
            time.sleep(0.05)

    def stop_broker(self):
        """Stops mosquitto (SIGTERM: it writes its persistence file first)."""
        broker, self._broker = self._broker, None
        if broker is None:
            return
        if broker.poll() is None:
            broker.terminate()
            try:
                broker.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                pass
        children.kill(broker)

    def restart_broker(self):
        """Stops the broker and starts it again: same config, same
        persistence (retained messages and sessions survive)."""
        self.stop_broker()
        self._start_broker()

    @property
    def broker_running(self):
        return self._broker is not None and self._broker.poll() is None

    def persistence_file(self):
        """The broker's persistence file, up to date: a running broker is
        asked to write it (SIGUSR1) and this waits until it has; a stopped
        one wrote it when it stopped."""
        path = self.persistence_dir / "mosquitto.db"
        if self.broker_running:
            before = self._identity(path)
            self._broker.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + WAIT
            # mosquitto writes mosquitto.db.new and renames it: a new inode.
            while self._identity(path) == before:
                if time.monotonic() > deadline:
                    raise RuntimeError("mosquitto did not write %s within %d s" % (path, WAIT))
                time.sleep(0.05)
        return path

    @staticmethod
    def _identity(path):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_size
