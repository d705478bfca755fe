# SPDX-License-Identifier: MIT OR Apache-2.0
"""Real two-process handoffs where one side is Python (this process) and
the other is C: Tests/integration/peer.c (build/bin/peer) and the MapOff
demo (build/bin/mapoff), in both directions, over loopback."""

import urllib.parse

import pytest

from conftest import BINDIR, TEST_KEY, new_device_id, pump, settle
from handoff import (Account, Application, ApplicationDelegate, Manifest, Responder, UserActivity,
                     UserActivityDelegate)
from processes import spawn  # noqa: F401  (fixture)

PEER_TYPE = "com.example.peer.activity"  # peer.c's defaults
PEER_TEAM = "PEERTEAM1"
MAPOFF_TYPE = "com.example.mapoff.view-region"  # examples/c/mapoff.c
MAPOFF_TEAM = "MAPOFFDEMO"
MAPOFF_KEY = b"libhandoff demo account key v1\x00\x01"


def binary(name):
    path = BINDIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make {path.relative_to(BINDIR.parents[1])}` "
                    "(make test-python-binding builds it)")
    return path


def blob(n):
    """The userInfo "blob" peer.c sends and expects (see peer.c)."""
    return bytes((31 * i + 7) & 0xFF for i in range(n))


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return "%08x" % h


def fields(line):
    """'continued id=X info-bytes=3' -> {'id': 'X', 'info-bytes': '3'}"""
    return {k: urllib.parse.unquote(v) for k, _, v in
            (word.partition("=") for word in line.split(" ")[1:])}


class Payload(Responder):
    """Adds peer.c's userInfo layout when the activity is saved."""

    def __init__(self, app, info):
        super().__init__(app)
        self.info = info

    def update_user_activity_state(self, activity):
        activity.add_user_info_entries(self.info)


class Restored(Responder):
    def __init__(self, app):
        super().__init__(app)
        self.info = None

    def restore_user_activity_state(self, activity):
        self.info = activity.user_info


class Continued(UserActivityDelegate):
    def __init__(self):
        self.continued = []

    def user_activity_was_continued(self, activity):
        self.continued.append(activity)


class ContinueFirst(ApplicationDelegate):
    def __init__(self, activity_type):
        self.activity_type, self.remote, self.failed = activity_type, None, None
        self.restorer = None

    def activity_available(self, app, remote):
        if remote.activity_type == self.activity_type and self.remote is None:
            self.remote = remote
            app.continue_activity(remote)

    def continue_user_activity(self, app, activity, restoration_handler):
        restoration_handler([self.restorer])
        return True

    def did_fail_to_continue_user_activity(self, app, activity_type, error):
        self.failed = error


def python_app(closing, manifest, delegate, port, peer_port, key, name):
    app = closing(Application(manifest, delegate))
    account = Account.from_key(key)
    app.start_continuity(account, beacon_port=port, multicast=False,
                         peers=[f"127.0.0.1:{peer_port}"], device_id=new_device_id(), device_name=name)
    account.close()
    return app


def offer(app, activity_type, title, responder):
    activity = UserActivity(activity_type)
    activity.title = title
    activity.delegate = delegate = Continued()
    responder.user_activity = activity
    activity.needs_save = True
    app.become_current(activity)
    return activity, delegate


def test_python_sends_c_receives(spawn, ports, closing):
    sport, rport = ports(2)
    receiver = spawn("c-receiver", [binary("peer"), "--receive", "--auto-continue",
                                    "--port", rport, "--peer", f"127.0.0.1:{sport}"])
    receiver.wait_for("ready")
    app = python_app(closing, Manifest("com.example.peer.python", PEER_TEAM, [PEER_TYPE]), None,
                     sport, rport, TEST_KEY, "python-sender")
    payload = Payload(app, {"blob": blob(777), "count": 777})
    activity, sent = offer(app, PEER_TYPE, "from Python", payload)

    pump([app], lambda: receiver.matching("restored") and sent.continued, timeout=15,
         children=[receiver])
    available = fields(receiver.wait_for("available"))
    assert (available["id"], available["type"], available["title"], available["device"]) == (
        activity.activity_id, PEER_TYPE, "from Python", "python-sender")
    continued = fields(receiver.wait_for("continued"))
    assert continued["id"] == activity.activity_id and continued["title"] == "from Python"
    assert continued["info-bytes"] == "777" and continued["info-sum"] == fnv1a(blob(777))
    assert continued["count"] == "777"
    assert receiver.wait_for("restored") == "restored info-bytes=777"
    assert sent.continued == [activity]
    assert receiver.matching("failed") == []
    assert receiver.stop() == 0


def test_c_sends_python_receives(spawn, ports, closing):
    sport, rport = ports(2)
    delegate = ContinueFirst(PEER_TYPE)
    app = python_app(closing, Manifest("com.example.peer.python", PEER_TEAM, [PEER_TYPE]),
                     delegate, rport, sport, TEST_KEY, "python-receiver")
    delegate.restorer = Restored(app)
    sender = spawn("c-sender", [binary("peer"), "--send", "--userinfo-bytes", 300,
                                "--title", "from C", "--device-name", "c-sender",
                                "--port", sport, "--peer", f"127.0.0.1:{rport}"])
    offered = fields(sender.wait_for("offering"))

    pump([app], lambda: delegate.restorer.info is not None or delegate.failed, timeout=15,
         children=[sender])
    assert delegate.failed is None
    remote = delegate.remote
    assert (remote.id, remote.activity_type, remote.title, remote.device_name) == (
        offered["id"], PEER_TYPE, "from C", "c-sender")
    assert delegate.restorer.info == {"blob": blob(300), "count": 300}
    pump([app], lambda: sender.matching("was-continued"), timeout=10, children=[sender])
    assert fields(sender.wait_for("was-continued"))["id"] == offered["id"]
    assert sender.stop() == 0


def test_a_python_receiver_of_another_team_is_not_offered_c_activities(spawn, ports, closing):
    sport, rport = ports(2)
    delegate = ContinueFirst(PEER_TYPE)
    app = python_app(closing, Manifest("com.example.peer.python", "OTHERTEAM", [PEER_TYPE]),
                     delegate, rport, sport, TEST_KEY, "python-receiver")
    sender = spawn("c-sender", [binary("peer"), "--send", "--port", sport,
                                "--peer", f"127.0.0.1:{rport}"])
    sender.wait_for("offering")
    settle([app], 2.0)
    assert delegate.remote is None and dict(app.remote_activities) == {}
    assert sender.stop() == 0


def test_mapoff_sends_python_receives(spawn, ports, closing):
    sport, rport = ports(2)
    delegate = ContinueFirst(MAPOFF_TYPE)
    app = python_app(closing, Manifest("com.example.mapoff", MAPOFF_TEAM, [MAPOFF_TYPE]),
                     delegate, rport, sport, MAPOFF_KEY, "python map")
    delegate.restorer = Restored(app)
    mapoff = spawn("mapoff-sender", [binary("mapoff"), "send", "--port", sport,
                                     "--peer", f"127.0.0.1:{rport}", "--timeout", 20])
    pump([app], lambda: delegate.restorer.info is not None or delegate.failed, timeout=15,
         children=[mapoff])
    assert delegate.failed is None
    # MapOff is the person's device: its name is the device file's (its default name).
    assert delegate.remote.title == "Cupertino" and delegate.remote.device_name
    assert delegate.restorer.info == {"latitude": 37.3349, "longitude": -122.009,
                                      "latitudeDelta": 0.05, "longitudeDelta": 0.05}
    assert mapoff.finish() == 0  # it heard the handoff was continued, and ended
    assert mapoff.matching('sender: "Cupertino" was continued on the other device')


def test_python_sends_mapoff_receives(spawn, ports, closing):
    sport, rport = ports(2)
    mapoff = spawn("mapoff-receiver", [binary("mapoff"), "receive", "--port", rport,
                                       "--peer", f"127.0.0.1:{sport}", "--timeout", 20])
    mapoff.wait_for("receiver: waiting")
    app = python_app(closing, Manifest("com.example.mapoff", MAPOFF_TEAM, [MAPOFF_TYPE]), None,
                     sport, rport, MAPOFF_KEY, "python map")
    viewport = Payload(app, {"latitude": 51.5007, "longitude": -0.1246,
                             "latitudeDelta": 0.02, "longitudeDelta": 0.03})
    activity, sent = offer(app, MAPOFF_TYPE, "Westminster", viewport)
    activity.required_user_info_keys = {"latitude", "longitude"}
    pump([app], lambda: mapoff.proc.poll() is not None, timeout=15, children=[mapoff])
    assert mapoff.finish() == 0
    assert mapoff.matching("receiver: restored map center 51.5007, -0.1246 span 0.020 x 0.030")
    # Not checked: sent.continued. MapOff frees its application right after
    # restoring, which can cut off the library's "continued" message to the
    # sender (a library race, reported; peer.c keeps running, so the tests
    # above check it).
