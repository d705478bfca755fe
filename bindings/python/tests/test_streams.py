# SPDX-License-Identifier: MIT OR Apache-2.0
"""Continuation streams between Python (this process) and C
(Tests/integration/streamer.c, build/bin/streamer) in both directions, over
loopback: megabytes each way checked against the sums streamer prints,
the refusals, and exceptions in the callbacks that receive a stream."""

import gc
import os
import select
import socket
import time

import pytest

from conftest import TEST_KEY, new_device_id
from handoff import (Account, Application, ApplicationDelegate, HandoffError, Manifest, Status,
                     UserActivity, UserActivityDelegate)
from processes import spawn  # noqa: F401  (fixture)
from test_c_interop import binary, fields

TYPE = "com.example.streamer.transfer"  # streamer.c's manifest
BUNDLE, TEAM = "com.example.streamer", "STREAMTEAM"
SIZE = 5_000_000


class Boom(Exception):
    pass


def fnv1a_64(data):
    """FNV-1a 64, as streamer.c hashes (printed as 16 hex digits)."""
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def payload(n):
    """What this side sends: not streamer's sequence, so a mix-up shows."""
    return bytes((i * 131 + (i >> 9)) & 0xFF for i in range(n))


def python_app(closing, delegate, port, peer_port):
    app = closing(Application(Manifest(BUNDLE, TEAM, [TYPE]), delegate))
    account = Account.from_key(TEST_KEY)
    app.start_continuity(account, beacon_port=port, multicast=False,
                         peers=[f"127.0.0.1:{peer_port}"], device_id=new_device_id(),
                         device_name="python-streams",
                         channel_address="127.0.0.1:0")
    account.close()
    return app


def streamer(spawn, role, port, peer_port, *extra):
    return spawn(f"c-{role}", [binary("streamer"), f"--{role}", "--port", port,
                               "--peer", f"127.0.0.1:{peer_port}", "--timeout", 60, *extra])


def wait(app, until, child, timeout=20.0):
    """Dispatches `app` until `until()`; fails with the child's transcript."""
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            pytest.fail("condition not reached\n" + child.transcript())
        select.select([app], [], [], 0.05)
        app.dispatch()


def exchange(app, stream, data, child, timeout=60.0):
    """Writes `data` then half-closes, reads to EOF, dispatching `app` all
    along (the library moves the bytes on its own threads): what was read."""
    stream.setblocking(False)
    view, sent, received = memoryview(data), 0, bytearray()
    reading, writing = True, True
    deadline = time.monotonic() + timeout
    while reading or writing:
        if time.monotonic() > deadline:
            pytest.fail(f"stream stalled: sent {sent}, read {len(received)}\n" + child.transcript())
        readable, writable, _ = select.select([app] + [stream] * reading,
                                              [stream] * writing, [], 0.1)
        app.dispatch()
        if stream in writable:
            try:
                sent += stream.send(view[sent:sent + 65536])
            except BlockingIOError:
                pass
            if sent == len(data):
                stream.shutdown(socket.SHUT_WR)
                writing = False
        if stream in readable:
            try:
                chunk = stream.recv(65536)
            except BlockingIOError:
                continue
            received += chunk
            reading = bool(chunk)
    return bytes(received)


def done(child):
    """streamer's stream-done line as a dict (after it ended by itself)."""
    assert child.finish() == 0, child.transcript()
    assert child.matching("all-done"), child.transcript()
    [line] = child.matching("stream-done")
    return fields(line)


def assert_a_fresh_stream(stream, activity_id, activity):
    assert isinstance(stream, socket.socket)
    assert stream.family == socket.AF_UNIX and stream.type == socket.SOCK_STREAM
    assert stream.getblocking() and os.get_blocking(stream.fileno())
    assert activity.activity_id == activity_id


# ---- the receiving side: get_continuation_streams

class Receiver(ApplicationDelegate):
    """Continues the first activity offered and asks it for a stream."""

    def __init__(self, callback=None):
        self.callback = callback or self.on_stream
        self.continued = self.stream = self.error = self.request_error = None
        self.calls = 0

    def activity_available(self, app, remote):
        if self.continued is None:
            app.continue_activity(remote)

    def continue_user_activity(self, app, activity, restoration_handler):
        self.continued = activity
        try:
            # An inline callback, unreferenced once the call returns: the
            # binding must keep it alive until it runs.
            activity.get_continuation_streams(lambda *a: self.callback(*a))
        except HandoffError as error:
            self.request_error = error
        gc.collect()
        return True

    def on_stream(self, activity, stream, error):
        self.calls += 1
        self.activity, self.stream, self.error = activity, stream, error


def test_python_receives_a_stream_from_c_and_exchanges_5_mb_each_way(spawn, ports, closing):
    sport, rport = ports(2)
    sender = streamer(spawn, "send", sport, rport, "--bytes", SIZE)
    offered = fields(sender.wait_for("offering"))
    receiver = Receiver()
    app = python_app(closing, receiver, rport, sport)
    wait(app, lambda: receiver.calls, sender)
    assert receiver.request_error is None and receiver.error is None
    assert receiver.activity is receiver.continued
    with receiver.stream as stream:
        assert_a_fresh_stream(stream, offered["id"], receiver.activity)
        ours = payload(SIZE)
        theirs = exchange(app, stream, ours, sender)
    c = done(sender)
    assert c["end"] == "ok" and int(c["sent"]) == SIZE and int(c["received"]) == SIZE
    assert len(theirs) == SIZE and fnv1a_64(theirs) == c["sent-sum"]
    assert fnv1a_64(ours) == c["received-sum"]
    assert receiver.calls == 1  # exactly once


def test_a_c_sender_that_refuses_streams_gives_the_callback_4608(spawn, ports, closing):
    sport, rport = ports(2)
    sender = streamer(spawn, "send", sport, rport, "--refuse")
    sender.wait_for("offering")
    receiver = Receiver()
    app = python_app(closing, receiver, rport, sport)
    wait(app, lambda: receiver.calls, sender)
    assert receiver.stream is None and receiver.request_error is None
    error = receiver.error
    assert isinstance(error, HandoffError)
    assert error.code == Status.HANDOFF_FAILED == 4608 and error.message
    assert error.is_user_activity_error
    assert sender.stop() == 0


def test_an_activity_without_stream_support_refuses_at_once(spawn, ports, closing):
    sport, rport = ports(2)
    sender = streamer(spawn, "send", sport, rport, "--no-support")
    sender.wait_for("offering")
    receiver = Receiver()
    app = python_app(closing, receiver, rport, sport)
    wait(app, lambda: receiver.continued is not None, sender)
    error = receiver.request_error
    assert isinstance(error, HandoffError) and error.code == Status.INVALID_STATE
    assert error.function == "handoff_activity_get_continuation_streams" and error.message
    assert not receiver.continued.supports_continuation_streams
    assert sender.stop() == 0
    assert receiver.calls == 0  # the callback is never called


def test_an_activity_not_continued_here_refuses_at_once():
    activity = UserActivity(TYPE)
    activity.supports_continuation_streams = True
    with pytest.raises(HandoffError) as caught:
        activity.get_continuation_streams(lambda *a: None)
    assert caught.value.code == Status.INVALID_STATE
    with pytest.raises(TypeError):
        activity.get_continuation_streams("not callable")


def test_a_raising_stream_callback_is_reported_and_its_stream_closed(spawn, ports, closing,
                                                                     unraisable):
    sport, rport = ports(2)
    sender = streamer(spawn, "send", sport, rport, "--bytes", 1000)
    sender.wait_for("offering")
    kept = []

    def callback(activity, stream, error):
        kept.append(stream)
        raise Boom("in the stream callback")

    receiver = Receiver(callback)
    app = python_app(closing, receiver, rport, sport)
    wait(app, lambda: kept, sender)
    assert [type(u.exc_value) for u in unraisable] == [Boom]
    assert "libhandoff callback" in unraisable[0].err_msg
    assert kept[0].fileno() == -1  # closed by the binding: the C side sees the end
    wait(app, lambda: sender.matching("stream-done"), sender)
    c = done(sender)
    assert int(c["received"]) == 0 and c["end"] in ("eof-early", "epipe", "reset"), c


# ---- the sending side: user_activity_did_receive_stream

class Streams(UserActivityDelegate):
    def __init__(self, raises=None):
        self.streams, self.activities, self.raises = [], [], raises

    def user_activity_did_receive_stream(self, activity, stream):
        self.activities.append(activity)
        self.streams.append(stream)
        if self.raises is not None:
            raise self.raises


class NoStreams(UserActivityDelegate):
    def __init__(self):
        self.continued = []

    def user_activity_was_continued(self, activity):
        self.continued.append(activity)


def offer(app, delegate):
    activity = UserActivity(TYPE)
    activity.supports_continuation_streams = True
    activity.delegate = delegate
    app.become_current(activity)
    return activity


def test_python_sends_a_stream_to_c_and_exchanges_5_mb_each_way(spawn, ports, closing):
    sport, rport = ports(2)
    app = python_app(closing, None, sport, rport)
    delegate = Streams()
    activity = offer(app, delegate)
    receiver = streamer(spawn, "receive", rport, sport, "--bytes", SIZE)
    wait(app, lambda: delegate.streams, receiver)
    assert delegate.activities == [activity]
    with delegate.streams[0] as stream:
        assert_a_fresh_stream(stream, activity.activity_id, activity)
        ours = payload(SIZE)
        theirs = exchange(app, stream, ours, receiver)
    c = done(receiver)
    assert c["end"] == "ok" and int(c["sent"]) == SIZE and int(c["received"]) == SIZE
    assert len(theirs) == SIZE and fnv1a_64(theirs) == c["sent-sum"]
    assert fnv1a_64(ours) == c["received-sum"]
    assert fields(receiver.wait_for("continued"))["id"] == activity.activity_id


def test_a_delegate_without_the_stream_method_refuses_streams(spawn, ports, closing):
    sport, rport = ports(2)
    app = python_app(closing, None, sport, rport)
    delegate = NoStreams()
    activity = offer(app, delegate)
    receiver = streamer(spawn, "receive", rport, sport)
    wait(app, lambda: receiver.matching("stream-error"), receiver)
    error = fields(receiver.wait_for("stream-error"))
    assert error["code"] == "4608", receiver.transcript()
    assert receiver.finish() == 0 and receiver.matching("all-done")
    assert receiver.matching("stream-open") == []
    assert fields(receiver.wait_for("continued"))["id"] == activity.activity_id
    # Not checked: delegate.continued. streamer frees its application right
    # after the refusal, which can cut off the library's best-effort
    # "continued" message (sent from a detached thread; the race reported
    # for MapOff in test_c_interop.py).


def test_a_stream_for_an_activity_python_no_longer_holds_is_closed(spawn, ports, closing):
    sport, rport = ports(2)
    app = python_app(closing, None, sport, rport)
    offer(app, Streams())  # not kept: the app keeps it current, nobody hears of it
    gc.collect()
    receiver = streamer(spawn, "receive", rport, sport, "--bytes", 1000)
    wait(app, lambda: receiver.matching("all-done"), receiver)
    c = done(receiver)
    assert int(c["received"]) == 0 and c["end"] in ("eof-early", "epipe", "reset"), c


def test_a_raising_stream_delegate_is_reported_and_its_stream_closed(spawn, ports, closing,
                                                                     unraisable):
    sport, rport = ports(2)
    app = python_app(closing, None, sport, rport)
    delegate = Streams(raises=Boom("in did_receive_stream"))
    activity = offer(app, delegate)  # kept: an activity heard from is one kept alive
    receiver = streamer(spawn, "receive", rport, sport, "--bytes", 1000)
    wait(app, lambda: delegate.streams, receiver)
    assert [type(u.exc_value) for u in unraisable] == [Boom]
    assert "user_activity_did_receive_stream" in repr(unraisable[0].object)
    assert delegate.activities == [activity]
    assert delegate.streams[0].fileno() == -1  # closed by the binding
    wait(app, lambda: receiver.matching("all-done"), receiver)
    c = done(receiver)
    assert int(c["received"]) == 0 and c["end"] in ("eof-early", "epipe", "reset"), c
