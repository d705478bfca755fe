# SPDX-License-Identifier: MIT OR Apache-2.0
"""An exception raised in a Python callback is never swallowed: an
Exception is reported through sys.unraisablehook and the callback returns
its defined result; KeyboardInterrupt and SystemExit stop the loop and are
raised again by the call that ran the callback."""

import sys

import pytest

from handoff import Application, Manifest, Responder, UserActivity, UserActivityDelegate

TYPE = "com.example.myapp.create-shape"


class Boom(Exception):
    pass


class Part(Responder):
    def __init__(self, app, name, record, raises=None):
        super().__init__(app)
        self.name, self.record, self.raises = name, record, raises

    def update_user_activity_state(self, activity):
        self.record("update", self.name)
        activity.add_user_info_entries({self.name: 1})
        if self.raises is not None:
            raise self.raises


class WillSave(UserActivityDelegate):
    def __init__(self, record, raises=None):
        self.record, self.raises = record, raises

    def user_activity_will_save(self, activity):
        self.record("will-save")
        if self.raises is not None:
            raise self.raises


def saving_app(recorder, first_raises=None, will_save_raises=None):
    app = Application(Manifest("com.example.myapp", "TEAM1", [TYPE]))
    first = Part(app, "first", recorder, first_raises)
    second = Part(app, "second", recorder)
    activity = UserActivity(TYPE)
    activity.delegate = WillSave(recorder, will_save_raises)
    first.user_activity = second.user_activity = activity
    activity.needs_save = True
    return app, first, activity


def test_an_exception_in_a_responder_is_reported_and_the_save_goes_on(recorder, unraisable):
    app, first, activity = saving_app(recorder, first_raises=Boom("in update"))
    app.dispatch()  # does not raise
    assert recorder.events == [("update", "first"), ("update", "second"), ("will-save",)]
    assert len(unraisable) == 1
    report = unraisable[0]
    assert isinstance(report.exc_value, Boom) and report.exc_type is Boom
    assert report.exc_traceback is not None
    assert report.object == first.update_user_activity_state
    assert "libhandoff callback" in report.err_msg
    # Defined result: the state added before the exception is kept.
    assert activity.user_info == {"first": 1, "second": 1}


def test_an_exception_in_an_activity_delegate_is_reported(recorder, unraisable):
    app, _, _ = saving_app(recorder, will_save_raises=Boom("in will_save"))
    app.dispatch()
    assert [type(u.exc_value) for u in unraisable] == [Boom]
    assert "user_activity_will_save" in repr(unraisable[0].object)


def test_with_the_default_hook_the_traceback_is_printed(recorder, capfd, monkeypatch):
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    app, _, _ = saving_app(recorder, first_raises=Boom("printed"))
    app.dispatch()
    err = capfd.readouterr().err
    assert "Exception ignored in a libhandoff callback" in err
    assert "Traceback" in err and "Boom: printed" in err


def test_a_broken_hook_still_gets_the_exception_printed(recorder, capfd, monkeypatch):
    def broken(args):
        raise RuntimeError("hook broke")

    monkeypatch.setattr(sys, "unraisablehook", broken)
    app, _, _ = saving_app(recorder, first_raises=Boom("still printed"))
    app.dispatch()
    err = capfd.readouterr().err
    assert "hook broke" in err and "Boom: still printed" in err


def test_system_exit_is_raised_by_dispatch_after_the_callbacks(recorder, unraisable):
    app, _, _ = saving_app(recorder, first_raises=SystemExit(3))
    with pytest.raises(SystemExit) as caught:
        app.dispatch()
    assert caught.value.code == 3
    assert recorder.events == [("update", "first"), ("update", "second"), ("will-save",)]
    assert unraisable == []
    app.dispatch()  # nothing left pending
    assert len(recorder.events) == 3
    assert app.run(timeout=0.05) is False  # and no stop left behind for the next run


def test_keyboard_interrupt_in_a_callback_ends_run(recorder, unraisable):
    app, _, _ = saving_app(recorder, will_save_raises=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        app.run(timeout=30)  # returns at once: the callback stopped the loop
    assert ("will-save",) in recorder.events
    assert app.run(timeout=0.05) is False  # the stop was used up, nothing pending


def test_a_second_base_exception_is_reported_not_lost(recorder, unraisable):
    app, _, _ = saving_app(recorder, first_raises=SystemExit(1),
                           will_save_raises=KeyboardInterrupt())
    with pytest.raises(SystemExit):
        app.dispatch()
    assert [type(u.exc_value) for u in unraisable] == [KeyboardInterrupt]
