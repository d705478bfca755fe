# SPDX-License-Identifier: MIT OR Apache-2.0
"""The runtime rules through the binding, in this process: lazy coalesced
saves, responder order, callbacks only inside dispatch, the main thread,
the fd, run/stop, the current activity, and argument checks."""

import select
import socket
import sys
import threading

import pytest

from conftest import BINDING, free_port
from handoff import (Account, Application, ApplicationDelegate, DeviceRole, HandoffError,
                     Manifest, RemoteActivity, Responder, RestorationHandler, Status, UserActivity,
                     UserActivityDelegate)
from handoff.application import _provides
from processes import spawn  # noqa: F401  (fixture)

TYPE = "com.example.myapp.create-shape"


@pytest.fixture
def manifest():
    return Manifest("com.example.myapp", "TEAM1", [TYPE])


class Part(Responder):
    """A responder that records its callbacks and adds its own state."""

    def __init__(self, app, name, record):
        super().__init__(app)
        self.name, self.record = name, record

    def update_user_activity_state(self, activity):
        self.record("update", self.name, activity)
        activity.add_user_info_entries({self.name: True})

    def restore_user_activity_state(self, activity):
        self.record("restore", self.name, activity)


class ActivityRecorder(UserActivityDelegate):
    def __init__(self, record):
        self.record = record

    def user_activity_will_save(self, activity):
        self.record("will-save", activity)


class AppRecorder(ApplicationDelegate):
    def __init__(self, record):
        self.record = record

    def did_update_user_activity(self, app, activity):
        self.record("did-update", activity)


def readable(app):
    return bool(select.select([app], [], [], 0)[0])


def test_a_save_runs_responders_in_order_then_the_delegates(manifest, recorder):
    app = Application(manifest, AppRecorder(recorder))
    first, second = Part(app, "first", recorder), Part(app, "second", recorder)
    bystander = Part(app, "bystander", recorder)
    activity = UserActivity(TYPE)
    activity.delegate = ActivityRecorder(recorder)
    second.user_activity = activity  # registration order counts, not this
    first.user_activity = activity
    bystander.user_activity = UserActivity(TYPE)

    activity.needs_save = True
    activity.needs_save = True  # coalesced into one save
    assert recorder.events == []  # callbacks run only inside dispatch
    assert readable(app) and app.next_timeout() == 0
    app.dispatch()

    assert [e[:2] for e in recorder.events] == [
        ("update", "first"), ("update", "second"), ("will-save", activity), ("did-update", activity)]
    assert all(e[-1] is activity for e in recorder.events)  # the very object created
    assert activity.user_info == {"first": True, "second": True}
    assert not activity.needs_save
    assert not readable(app) and app.next_timeout() is None
    app.dispatch()
    assert len(recorder.events) == 4


def test_responders_and_their_activity(manifest):
    app = Application(manifest)
    part = Responder(app)
    assert part.user_activity is None and app.responders == (part,)
    activity = UserActivity(TYPE)
    part.user_activity = activity
    assert part.user_activity is activity
    part.user_activity = None
    assert part.user_activity is None
    with pytest.raises(TypeError):
        part.user_activity = "activity"
    with pytest.raises(TypeError, match="belongs to an Application"):
        Responder(manifest)
    part.close()
    assert app.responders == () and part.closed


def test_current_activity(manifest):
    app = Application(manifest)
    assert app.current_activity is None
    activity = UserActivity(TYPE)
    app.become_current(activity)
    assert app.current_activity is activity
    app.resign_current(UserActivity(TYPE))  # not current: nothing happens
    assert app.current_activity is activity
    app.resign_current(activity)
    assert app.current_activity is None
    app.become_current(activity)
    activity.invalidate()
    assert app.current_activity is None
    with pytest.raises(HandoffError) as caught:
        app.become_current(activity)
    assert caught.value.code == Status.INVALID_STATE
    with pytest.raises(TypeError, match="expected a UserActivity"):
        app.become_current("activity")


def test_the_current_activity_outlives_the_python_reference(manifest):
    app = Application(manifest)
    activity = UserActivity(TYPE)
    activity_id = activity.activity_id
    app.become_current(activity)
    del activity
    assert app.current_activity.activity_id == activity_id


def test_dispatch_only_on_the_main_thread(manifest):
    app = Application(manifest)
    errors = []

    def other_thread():
        try:
            app.dispatch()
        except HandoffError as error:
            errors.append(error)

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert [e.code for e in errors] == [Status.WRONG_THREAD]
    assert "main thread" in errors[0].message


def test_dispatch_inside_a_callback_is_refused(manifest, unraisable):
    app = Application(manifest)
    seen = []

    class Reentrant(Responder):
        def update_user_activity_state(self, activity):
            try:
                app.dispatch()
            except HandoffError as error:
                seen.append(error.code)
            with pytest.raises(HandoffError):
                app.close()  # nor close from inside
            with pytest.raises(HandoffError, match="inside its own callback"):
                self.close()

    part = Reentrant(app)
    part.user_activity = activity = UserActivity(TYPE)
    activity.needs_save = True
    app.dispatch()
    assert seen == [Status.INVALID_STATE]
    assert unraisable == []
    assert not app.closed and not part.closed


def test_run_times_out_then_stops(manifest):
    app = Application(manifest)
    assert app.run(timeout=0.05) is False
    app.stop()  # asked for while none runs: ends the next run at once
    assert app.run(timeout=30) is True


def test_stop_from_another_thread_ends_run(manifest):
    app = Application(manifest)
    timer = threading.Timer(0.1, app.stop)
    timer.start()
    try:
        assert app.run() is True
    finally:
        timer.cancel()


def test_run_dispatches(manifest, recorder):
    app = Application(manifest)

    class StopOnSave(UserActivityDelegate):
        def user_activity_will_save(self, activity):
            recorder("will-save")
            app.stop()

    activity = UserActivity(TYPE)
    activity.delegate = StopOnSave()
    app.become_current(activity)
    activity.needs_save = True
    assert app.run(timeout=30) is True
    assert recorder.names() == ["will-save"]


def test_continue_needs_an_offered_activity(manifest):
    app = Application(manifest)
    with pytest.raises(HandoffError) as caught:
        app.continue_activity("5B4C6A2E-0000-4000-8000-000000000000")
    assert caught.value.code == Status.NOT_FOUND
    with pytest.raises(HandoffError) as caught:
        app.continue_activity("not-an-id")
    assert caught.value.code == Status.INVALID_VALUE
    with pytest.raises(TypeError):
        app.continue_activity(42)
    assert dict(app.remote_activities) == {}


def test_start_continuity_checks_its_options(manifest):
    app = Application(manifest)
    account = Account.from_key(bytes(32))
    with pytest.raises(TypeError, match="account is an Account"):
        app.start_continuity("key")
    with pytest.raises(TypeError, match="not a single str"):
        app.start_continuity(account, peers="127.0.0.1:1")
    with pytest.raises(ValueError, match="not a UDP port"):
        app.start_continuity(account, beacon_port=70000)
    with pytest.raises(TypeError):
        app.start_continuity(account, role="full")
    with pytest.raises(ValueError):
        app.start_continuity(account, fetch_timeout=-1)
    with pytest.raises(ValueError, match="more than 0"):
        app.start_continuity(account, connect_timeout=0)
    with pytest.raises(HandoffError) as caught:
        app.start_continuity(account, beacon_port=free_port(), multicast=False,
                             peers=["localhost:99999"])
    assert caught.value.code == Status.INVALID_ARGUMENT and "peer" in caught.value.message
    with pytest.raises(HandoffError) as caught:
        app.start_continuity(account, beacon_port=free_port(), multicast=False, device_id="xyz")
    # handoff.h says INVALID_ARGUMENT; the library answers INVALID_VALUE.
    assert caught.value.code in (Status.INVALID_ARGUMENT, Status.INVALID_VALUE)
    assert "device id" in caught.value.message


def test_a_peer_may_be_a_host_name(manifest):
    """A name is resolved by the engine, off the app's threads (every 60 s):
    accepted as it is; one with a space is not a name."""
    app = Application(manifest)
    account = Account.from_key(bytes(32))
    with pytest.raises(HandoffError) as caught:
        app.start_continuity(account, beacon_port=free_port(), multicast=False, peers=["local host:52371"],
                             device_id="0123456789abcdef0123456789abcdef", device_name="test")
    assert caught.value.code == Status.INVALID_ARGUMENT and "ada.local:52370" in caught.value.message
    app.start_continuity(account, beacon_port=free_port(), multicast=False, peers=["localhost:52371"],
                         channel_address="127.0.0.1:0", device_id="0123456789abcdef0123456789abcdef",
                         device_name="test")


def test_start_continuity_once(manifest):
    app = Application(manifest)
    account = Account.from_key(bytes(32))
    options = dict(multicast=False, channel_address="127.0.0.1:0", role=DeviceRole.SEND_ONLY,
                   fetch_timeout=1.5, connect_timeout=2, connection_reuse=0,
                   device_id="0123456789abcdef0123456789abcdef", device_name="test")
    app.start_continuity(account, beacon_port=free_port(), **options)
    with pytest.raises(HandoffError) as caught:
        app.start_continuity(account, beacon_port=free_port(), **options)
    assert caught.value.code == Status.INVALID_STATE


def test_a_taken_channel_port_is_an_io_error(manifest):
    app = Application(manifest)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = "127.0.0.1:%d" % taken.getsockname()[1]
        with pytest.raises(HandoffError) as caught:
            app.start_continuity(Account.from_key(bytes(32)), beacon_port=free_port(),
                                 multicast=False, channel_address=address)
    assert caught.value.code == Status.IO and "already in use" in caught.value.message


def test_close_closes_the_responders(manifest):
    app = Application(manifest)
    parts = [Responder(app), Responder(app)]
    with app:
        pass
    assert app.closed and all(p.closed for p in parts)
    with pytest.raises(ValueError, match="Application is closed"):
        app.dispatch()
    assert repr(app) == "<Application (closed)>"


def test_constructors_check_their_arguments(manifest):
    with pytest.raises(TypeError, match="manifest is a Manifest"):
        Application("com.example.myapp")
    with pytest.raises(TypeError):
        RestorationHandler()


def test_only_the_delegate_methods_provided_are_connected():
    class Partial(ApplicationDelegate):
        def open_webpage(self, app, url, remote):
            pass

    class DuckTyped:
        def continue_user_activity(self, app, activity, handler):
            return True

    assert _provides(Partial(), "open_webpage")
    assert not _provides(Partial(), "continue_user_activity")  # the base's: not provided
    assert _provides(DuckTyped(), "continue_user_activity")
    assert not _provides(DuckTyped(), "open_webpage") and not _provides(None, "open_webpage")


def test_remote_activity_is_a_plain_snapshot():
    remote = RemoteActivity("ID", TYPE, "t", None, "dev", "d", 0.5, False, False)
    with pytest.raises(Exception):
        remote.title = "changed"  # frozen


def test_ctrl_c_interrupts_run(spawn):
    # The child interrupts itself (as Ctrl-C would) a moment after entering run().
    # SIGINT handled as in a terminal even when the test runs with it ignored
    # (a background job inherits SIG_IGN, and Python then installs no handler).
    script = ("import os, signal, sys, threading; sys.path.insert(0, sys.argv[1]); import handoff\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "app = handoff.Application(handoff.Manifest('com.example.myapp', 'TEAM1'))\n"
              "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
              "try:\n    app.run(timeout=60)\n    print('returned', flush=True)\n"
              "except KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
    child = spawn("runner", [sys.executable, "-c", script, BINDING])
    assert child.finish() == 0, child.transcript()
    assert child.lines == ["interrupted"]


def test_deleting_saved_activities_without_an_agent_says_so_on_the_main_thread(manifest):
    """The history is the agent's (docs/history.md): an app whose continuity
    is not started hears CONNECTION_UNAVAILABLE, once, in dispatch; wrong
    arguments fail at once and done is never called."""
    app = Application(manifest)
    heard = []
    app.delete_saved_activities(["doc-1", "doc-2"], lambda error: heard.append(("ids", error)))
    app.delete_all_saved_activities(lambda error: heard.append(("all", error)))
    app.delete_saved_activities([], lambda error: heard.append(("none", error)))
    assert heard == []  # not before dispatch: on the main thread, later
    app.dispatch()
    assert [what for what, _ in heard] == ["ids", "all", "none"]
    assert heard[0][1].code == Status.CONNECTION_UNAVAILABLE and "agent" in str(heard[0][1])
    assert heard[1][1].code == Status.CONNECTION_UNAVAILABLE and heard[2][1] is None
    for bad in (["x" * 4097], [""], ["id"] * 513):
        with pytest.raises(HandoffError) as raised:
            app.delete_saved_activities(bad, lambda error: heard.append(("bad", error)))
        assert raised.value.code == Status.INVALID_ARGUMENT
    with pytest.raises(TypeError):
        app.delete_saved_activities("doc-1")
    app.dispatch()
    assert len(heard) == 3
    app.close()
