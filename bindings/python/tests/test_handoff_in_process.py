# SPDX-License-Identifier: MIT OR Apache-2.0
"""Real handoffs between two applications of this process over loopback
(beacons, TLS channel, fetch): everything a delegate and a restoration
handler can see, failures, and callbacks that raise."""

import datetime
import math
import threading

import pytest

from conftest import connect, pump, settle
from handoff import (URL, Application, ApplicationDelegate, HandoffError, Manifest, Responder,
                     Status, UserActivity, UserActivityDelegate)

TYPE = "com.example.myapp.create-shape"
UTC = datetime.timezone.utc

EVERY_TYPE = {
    "null": None, "bool": True, "int": -(2 ** 63), "real": 0.1, "string": "Kreis ○",
    "data": bytes(range(256)), "date": datetime.datetime(2024, 2, 29, 1, 2, 3, 456789, tzinfo=UTC),
    "url": URL("https://example.com/shape?x=1"), "array": [1, [2, [3]]],
    "dict": {"nested": {"deep": "er"}}, "set": frozenset({"a", 1, (2, 3)}),
    "inf": math.inf,
}


class Editor(Responder):
    def __init__(self, app, info):
        super().__init__(app)
        self.info, self.saves = info, 0

    def update_user_activity_state(self, activity):
        self.saves += 1
        activity.add_user_info_entries(self.info)


class Canvas(Responder):
    def __init__(self, app):
        super().__init__(app)
        self.restored = []

    def restore_user_activity_state(self, activity):
        self.restored.append((activity, activity.user_info))


class Sent(UserActivityDelegate):
    def __init__(self):
        self.continued = []

    def user_activity_was_continued(self, activity):
        self.continued.append(activity)


class Receiving(ApplicationDelegate):
    """Continues what is offered; records everything."""

    def __init__(self, keep_handler=False):
        self.events, self.keep_handler, self.handler = [], keep_handler, None
        self.canvas = None

    def activity_available(self, app, remote):
        self.events.append(("available", remote))
        app.continue_activity(remote)

    def activity_withdrawn(self, app, remote):
        self.events.append(("withdrawn", remote))

    def will_continue_user_activity(self, app, activity_type):
        self.events.append(("will-continue", activity_type))
        return True

    def continue_user_activity(self, app, activity, restoration_handler):
        self.events.append(("continue", activity))
        if self.keep_handler:
            self.handler = restoration_handler
        else:
            restoration_handler([self.canvas])
        return True

    def did_fail_to_continue_user_activity(self, app, activity_type, error):
        self.events.append(("failed", activity_type, error))

    def names(self):
        return [e[0] for e in self.events]


@pytest.fixture
def make_pair(ports, closing):
    def make(receiving, info=None, receiver_types=(TYPE,)):
        return _make_pair(ports, closing, receiving, info, receiver_types)
    return make


def _make_pair(ports, closing, receiving, info, receiver_types):
    sender = closing(Application(Manifest("com.example.myapp", "TEAM1", [TYPE])))
    receiver = closing(Application(Manifest("com.example.myapp", "TEAM1", list(receiver_types)),
                                   receiving))
    receiving.canvas = Canvas(receiver)
    editor = Editor(sender, info if info is not None else {"shape-type": "circle"})
    sport, rport = ports(2)
    connect([(sender, sport, "sender"), (receiver, rport, "receiver")])
    activity = UserActivity(TYPE)
    activity.title = "Creating a circle"
    activity.delegate = sent = Sent()
    editor.user_activity = activity
    activity.needs_save = True
    return sender, receiver, activity, editor, sent


def test_every_value_type_crosses_the_wire(make_pair):
    receiving = Receiving()
    sender, receiver, activity, editor, sent = make_pair(receiving, EVERY_TYPE)
    sender.become_current(activity)
    pump([sender, receiver], lambda: sent.continued)

    assert receiving.names() == ["available", "will-continue", "continue"]
    remote = receiving.events[0][1]
    assert (remote.id, remote.activity_type, remote.title, remote.device_name) == (
        activity.activity_id, TYPE, "Creating a circle", "sender")
    assert not remote.is_web_only and remote.age >= 0 and len(remote.device_id) == 32
    assert receiver.remote_activities[remote.id] == remote

    [(restored, info)] = receiving.canvas.restored
    assert restored is receiving.events[2][1]  # one object for the continued activity
    assert restored.activity_id == activity.activity_id and restored is not activity
    assert info == EVERY_TYPE
    assert {k: type(v) for k, v in info.items()} == {k: type(v) for k, v in EVERY_TYPE.items()}
    assert sent.continued == [activity]  # the sender's own object
    assert editor.saves >= 1


def test_the_restoration_handler_can_be_kept_and_called_later(make_pair):
    receiving = Receiving(keep_handler=True)
    sender, receiver, activity, _, sent = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: receiving.handler is not None)
    handler, canvas = receiving.handler, receiving.canvas
    assert handler.activity.activity_id == activity.activity_id

    errors = []
    thread = threading.Thread(target=lambda: errors.append(pytest.raises(
        HandoffError, handler, [canvas]).value.code))
    thread.start()
    thread.join()
    assert errors == [Status.WRONG_THREAD] and canvas.restored == []
    with pytest.raises(TypeError, match="takes Responders"):
        handler(["canvas"])

    handler.restore([canvas])  # later, on the main thread, outside dispatch
    assert canvas.restored[0][1] == {"shape-type": "circle"}
    with pytest.raises(HandoffError) as caught:
        handler([canvas])
    assert caught.value.code == Status.INVALID_STATE and len(canvas.restored) == 1
    pump([sender, receiver], lambda: sent.continued)


def test_system_exit_in_a_later_restoration_is_raised_by_the_handler(make_pair):
    receiving = Receiving(keep_handler=True)
    sender, receiver, activity, _, _ = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: receiving.handler is not None)

    class Quitting(Responder):
        def restore_user_activity_state(self, activity):
            raise SystemExit("quit while restoring")

    quitting = Quitting(receiver)
    with pytest.raises(SystemExit, match="quit while restoring"):
        receiving.handler([quitting, receiving.canvas])
    assert len(receiving.canvas.restored) == 1  # the responders after it still ran
    receiver.dispatch()  # nothing left pending


def test_user_info_over_budget_fails_with_4611(make_pair):
    receiving = Receiving()
    sender, receiver, activity, _, sent = make_pair(receiving, {"blob": b"x" * 5000})
    sender.become_current(activity)
    pump([sender, receiver], lambda: "failed" in receiving.names())
    assert receiving.names() == ["available", "will-continue", "failed"]
    _, activity_type, error = receiving.events[-1]
    assert activity_type == TYPE and isinstance(error, HandoffError)
    assert error.code == Status.USER_INFO_TOO_LARGE and error.is_user_activity_error
    assert error.message
    assert receiving.canvas.restored == [] and sent.continued == []


def test_a_withdrawn_activity_leaves_remote_activities(make_pair):
    receiving = Receiving()
    receiving.activity_available = lambda app, remote: receiving.events.append(("available", remote))
    sender, receiver, activity, _, _ = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: activity.activity_id in receiver.remote_activities)
    sender.resign_current(activity)
    pump([sender, receiver], lambda: "withdrawn" in receiving.names())
    assert dict(receiver.remote_activities) == {}
    assert receiving.events[-1][1].id == activity.activity_id


def test_a_web_only_activity_opens_its_page(make_pair):
    opened = []

    class WebOnly(Receiving):
        def open_webpage(self, app, url, remote):
            opened.append((url, remote))

    receiving = WebOnly()
    sender, receiver, activity, _, _ = make_pair(receiving,
                                                 receiver_types=["com.example.myapp.other"])
    activity.webpage_url = "https://example.com/shapes/new"
    sender.become_current(activity)
    pump([sender, receiver], lambda: opened)
    url, remote = opened[0]
    assert url == "https://example.com/shapes/new" and remote.is_web_only
    assert remote.webpage_url == url
    assert "will-continue" not in receiving.names()


class Boom(Exception):
    pass


def test_an_exception_in_continue_means_not_handled(make_pair, unraisable):
    class Raising(Receiving):
        def continue_user_activity(self, app, activity, restoration_handler):
            super().continue_user_activity(app, activity, restoration_handler)
            raise Boom("in continue")

    receiving = Raising()
    sender, receiver, activity, _, sent = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: unraisable)
    assert isinstance(unraisable[0].exc_value, Boom)
    assert len(receiving.canvas.restored) == 1  # what ran before the raise did run
    settle([sender, receiver], 1.5)
    assert sent.continued == []  # returned "not handled": the sender is not told


def test_an_exception_in_will_continue_does_not_stop_the_handoff(make_pair, unraisable):
    class Raising(Receiving):
        def will_continue_user_activity(self, app, activity_type):
            raise Boom("in will_continue")

    receiving = Raising()
    sender, receiver, activity, _, sent = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: sent.continued)
    assert [type(u.exc_value) for u in unraisable] == [Boom]
    assert receiving.names() == ["available", "continue"]


def test_an_exception_in_an_availability_event_is_reported(make_pair, unraisable):
    class Raising(Receiving):
        def activity_available(self, app, remote):
            raise Boom("in available")

    receiving = Raising()
    sender, receiver, activity, _, _ = make_pair(receiving)
    sender.become_current(activity)
    pump([sender, receiver], lambda: unraisable)
    assert isinstance(unraisable[0].exc_value, Boom)
    assert activity.activity_id in receiver.remote_activities  # tracking goes on


# ---- the sender hears a fetch that failed on its side (no Apple counterpart)

class FailedHere(Sent):
    def __init__(self):
        super().__init__()
        self.failures = []

    def user_activity_did_fail_to_hand_off(self, activity, error):
        self.failures.append((activity, error))


def test_the_sender_hears_its_user_info_was_too_large(make_pair):
    receiving = Receiving()
    sender, receiver, activity, _, _ = make_pair(receiving, {"blob": bytes(4000)})
    activity.delegate = failed = FailedHere()
    sender.become_current(activity)
    pump([sender, receiver], lambda: failed.failures and "failed" in receiving.names())
    [(told, error)] = failed.failures
    assert told is activity
    assert isinstance(error, HandoffError) and error.code == Status.USER_INFO_TOO_LARGE
    assert "3072" in error.message
    assert receiving.events[-1][2].code == Status.USER_INFO_TOO_LARGE
    assert failed.continued == []


def test_the_sender_hears_its_main_thread_answered_too_late(ports, closing):
    """The sender does not dispatch while the fetch waits: the receiver gets
    4610 after the fetch timeout; the sender is told at its next dispatch."""
    receiving = Receiving()
    sender = closing(Application(Manifest("com.example.myapp", "TEAM1", [TYPE])))
    receiver = closing(Application(Manifest("com.example.myapp", "TEAM1", [TYPE]), receiving))
    receiving.canvas = Canvas(receiver)
    sport, rport = ports(2)
    connect([(sender, sport, "sender"), (receiver, rport, "receiver")], fetch_timeout=1.0)
    activity = UserActivity(TYPE)
    activity.delegate = failed = FailedHere()
    sender.become_current(activity)
    pump([receiver], lambda: "failed" in receiving.names(), timeout=15)
    assert receiving.events[-1][2].code == Status.REMOTE_APPLICATION_TIMED_OUT
    assert failed.failures == []  # its main thread has not dispatched yet
    pump([sender], lambda: failed.failures)
    [(told, error)] = failed.failures
    assert told is activity and error.code == Status.REMOTE_APPLICATION_TIMED_OUT
    assert "4610" in error.message
    settle([sender, receiver], 0.3)
    assert failed.continued == [] and len(failed.failures) == 1
