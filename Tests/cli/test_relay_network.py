# SPDX-License-Identifier: MIT OR Apache-2.0
"""The relay's test bed itself (relay_support.RelayNetwork): the homes
cannot reach each other, both reach the broker through their NAT, the
broker speaks only TLS with passwords, sees the routers' WAN addresses,
keeps retained messages over a restart, and a capture on the internet
sees only ciphertext between WAN addresses and the broker. The clients
are mosquitto_pub and mosquitto_sub. Needs root, iproute2, nftables,
mosquitto, mosquitto-clients, tcpdump, openssl and ping."""

import os
import re
import subprocess
import sys
import uuid

import pytest

import certs
import netns
import pcap
import relay_support
from relay_support import BROKER_IP, BROKER_NAME, BROKER_PORT, DEVICE_IP, WAN_IPS, RelayNetwork

PORT = 40999  # the test's listener in home2

# Accepts on 0.0.0.0:PORT until killed, one line per connection.
LISTENER = """\
import socket, sys
server = socket.create_server(("0.0.0.0", int(sys.argv[1])))
print("listening", flush=True)
while True:
    conn, peer = server.accept()
    print("accepted from", peer[0], flush=True)
    conn.close()
"""


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    relay_support.require()
    netns.require("mosquitto_pub", "mosquitto_sub", "ping")
    with RelayNetwork(tmp_path_factory.mktemp("relay"), neighbours={"home1": ["home1b"]}) as bed:
        yield bed


def client(net, tool, user="ada", password=None, host=BROKER_NAME, *args):
    """mosquitto_pub or mosquitto_sub's argv: TLS to the broker with the CA."""
    return [tool, "-h", host, "-p", BROKER_PORT, "--cafile", net.ca_file, "-u", user,
            "-P", net.passwords[user] if password is None else password, *args]


def publish(net, ns, topic, message, *args, user="ada", password=None):
    return net.run_in(ns, client(net, "mosquitto_pub", user, password, BROKER_NAME,
                                 "-t", topic, "-m", message, "-q", "1", *args))


def subscribe(net, ns, topic, count=1):
    """A mosquitto_sub in `ns` for `count` messages (at most 30 s) of a
    fresh topic, ready (the broker has its subscription) when this returns."""
    proc = net.popen_in(ns, client(net, "mosquitto_sub", "ada", None, BROKER_NAME, "-t", topic,
                                   "-q", "1", "-C", count, "-W", "30"),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    net.wait_subscribed(topic)
    return proc


def received(proc):
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, (proc.returncode, out, err)
    return out.splitlines()


def fresh_topic(kind):
    return "hoff/%s/%s" % (kind, uuid.uuid4().hex)


def listen(net, ns):
    """The test's TCP listener in `ns` on PORT, listening when this returns."""
    listener = net.popen_in(ns, [sys.executable, "-c", LISTENER, PORT],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert relay_support.read_line(listener.stdout, relay_support.WAIT) == "listening\n"
    return listener


def accepted(listener):
    """Stops the listener: whom it accepted, a line each."""
    listener.kill()
    out, _ = listener.communicate(timeout=relay_support.WAIT)
    return out.splitlines()


def test_what_the_bed_tells_a_relay_client(net):
    assert net.broker_url == "mqtts://ada@203.0.113.1:8883"
    args = [str(a) for a in net.relay_set_args("eve")]
    assert args[:3] == ["relay", "set", "mqtts://eve@203.0.113.1:8883"]
    secret = args[args.index("--password-file") + 1]
    assert open(secret).read() == net.passwords["eve"] + "\n"
    assert os.stat(secret).st_mode & 0o777 == 0o600
    assert args[args.index("--ca-file") + 1] == str(net.ca_file)


def test_homes_cannot_reach_each_other_but_reach_the_broker(net):
    listener = listen(net, "home2")
    # home2's router forwards nothing from its WAN; 192.168.1.2 from home1 is home1's own device.
    for host in (WAN_IPS["home2"], DEVICE_IP):
        connected, what = net.connect("home1", host, PORT, timeout=3)
        assert not connected and what.startswith("failed:"), (host, what)
    connected, what = net.connect("inet", WAN_IPS["home2"], PORT, timeout=3)
    assert not connected, what
    # The listener works: its own home reaches it, once.
    connected, what = net.connect("home2", DEVICE_IP, PORT, timeout=3)
    assert connected, what
    assert accepted(listener) == ["accepted from %s" % DEVICE_IP]

    for home in ("home1", "home2", "home1b"):
        ping = net.run_in(home, ["ping", "-c", "1", "-W", "5", BROKER_IP])
        assert ping.returncode == 0 and " 0% packet loss" in ping.stdout, ping


def test_a_neighbour_on_the_same_lan_reaches_the_device_directly(net):
    assert net.device_ips == {"home1": DEVICE_IP, "home1b": "192.168.1.3", "home2": DEVICE_IP}
    listener = listen(net, "home1")
    connected, what = net.connect("home1b", DEVICE_IP, PORT, timeout=3)
    assert connected, what
    connected, what = net.connect("home1b", WAN_IPS["home2"], PORT, timeout=3)
    assert not connected, what
    # Straight over the LAN: the device sees the neighbour's own address.
    assert accepted(listener) == ["accepted from 192.168.1.3"]


def test_a_message_crosses_the_broker_between_homes_with_tls_and_a_password(net, tmp_path):
    topic = fresh_topic("hello")
    sub = subscribe(net, "home2", topic, count=2)
    done = publish(net, "home1", topic, "hello from home1")
    assert done.returncode == 0, done
    done = publish(net, "home1", topic, "and over MQTT 5", "-V", "mqttv5")  # as the agent speaks
    assert done.returncode == 0, done
    assert received(sub) == ["hello from home1", "and over MQTT 5"]

    wrong = publish(net, "home1", topic, "never delivered", password="not-the-password")
    assert wrong.returncode == 5, wrong  # MOSQ_ERR_CONN_REFUSED
    assert "Connection Refused: not authorised" in wrong.stderr, wrong
    assert re.search(r"^\d+: Client <unknown> disconnected, not authorised\.$", net.log_text(), re.MULTILINE)

    # A client trusting another CA refuses the broker's certificate.
    other = tmp_path / "other-ca"
    other.mkdir()
    other_ca, _, _ = certs.ca_and_server(other, BROKER_NAME, BROKER_IP)
    untrusted = net.run_in("home1", ["mosquitto_pub", "-h", BROKER_NAME, "-p", BROKER_PORT,
                                     "--cafile", other_ca, "-u", "ada", "-P", net.passwords["ada"],
                                     "-t", topic, "-m", "never delivered"])
    assert untrusted.returncode != 0 and "A TLS error occurred" in untrusted.stderr, untrusted
    # The client said why: it aborted the handshake with an alert the broker logs.
    net.wait_for_log(r"^\d+: OpenSSL Error\[\d+\]: .*alert unknown ca$")


def test_the_broker_sees_the_routers_wan_addresses(net):
    topic = fresh_topic("from")
    for home in ("home1", "home2"):
        done = publish(net, home, topic, "from " + home)
        assert done.returncode == 0, done
    log = net.log_text()
    sources = set(re.findall(r"New client connected from ([\d.]+):\d+ ", log))
    assert sources == set(WAN_IPS.values()), log
    assert DEVICE_IP not in log and "192.168." not in log


def test_a_capture_on_the_internet_holds_only_ciphertext_between_wans_and_the_broker(net):
    canary = "canary-" + uuid.uuid4().hex
    capture = net.capture()
    topic = fresh_topic("secret")
    sub = subscribe(net, "home2", topic)
    done = publish(net, "home1", topic, canary)
    assert done.returncode == 0, done
    assert received(sub) == [canary]
    captured = capture.bytes()
    packets = pcap.ipv4_packets(captured)
    assert captured and packets
    for secret in (canary, topic, net.passwords["ada"]):
        assert secret.encode() not in captured, secret
    tls = [p for p in packets if p.proto == 6 and p.payload and BROKER_PORT in (p.sport, p.dport)]
    assert {p.src for p in tls if p.dport == BROKER_PORT} == set(WAN_IPS.values()), tls
    # Each connection's first bytes from the client are a TLS handshake
    # record (type 22, version 3.x), never MQTT's CONNECT (0x10).
    first = {}
    for p in tls:
        if p.dport == BROKER_PORT:
            first.setdefault((p.src, p.sport), p.payload)
    assert first and all(payload[:2] == b"\x16\x03" for payload in first.values()), first
    # NAT: no packet on the internet names a home's private address.
    for p in packets:
        assert not p.src.startswith("192.168.") and not p.dst.startswith("192.168."), p


def test_a_retained_message_survives_a_broker_restart(net):
    topic = fresh_topic("kept")
    message = "kept-" + uuid.uuid4().hex
    done = publish(net, "home1", topic, message, "-r")
    assert done.returncode == 0, done
    # persistence_file() of a running broker has it write the file first.
    assert message.encode() in net.persistence_file().read_bytes()

    net.restart_broker()
    assert net.broker_running
    again = net.run_in("home2", client(net, "mosquitto_sub", "ada", None, BROKER_NAME, "-t", topic,
                                       "-C", "1", "-W", "20"))
    assert again.returncode == 0 and again.stdout == message + "\n", again

    net.stop_broker()
    assert not net.broker_running
    assert message.encode() in net.persistence_file().read_bytes()
    gone = publish(net, "home1", topic, "nobody listens")
    assert gone.returncode != 0, gone
    net.restart_broker()  # for the tests after this one
    assert publish(net, "home1", topic, "back").returncode == 0


def test_another_account_can_publish_under_ours(net):
    """eve, a second account on the broker, may write under hoff/# too:
    the relay must authenticate what it reads there (issue #24)."""
    topic = fresh_topic("injected")
    sub = subscribe(net, "home2", topic)
    done = publish(net, "home1", topic, "from eve", user="eve")
    assert done.returncode == 0, done
    assert received(sub) == ["from eve"]
