# SPDX-License-Identifier: MIT OR Apache-2.0
"""asyncio integration: the applications' fds in an event loop
(loop.add_reader through handoff.aio) carry a whole handoff; errors from
dispatch go where asyncio sends callback errors."""

import asyncio
import threading

import pytest

import handoff.aio
from conftest import connect
from handoff import (Application, ApplicationDelegate, HandoffError, Manifest, Responder, Status,
                     UserActivity, UserActivityDelegate)

TYPE = "com.example.myapp.create-shape"


def test_a_handoff_inside_an_event_loop(ports, closing):
    manifest = Manifest("com.example.myapp", "TEAM1", [TYPE])

    async def main():
        loop = asyncio.get_running_loop()
        restored, continued = loop.create_future(), loop.create_future()

        class Canvas(Responder):
            def restore_user_activity_state(self, activity):
                restored.set_result(activity.user_info)

        class Receiving(ApplicationDelegate):
            def activity_available(self, app, remote):
                app.continue_activity(remote)

            def continue_user_activity(self, app, activity, restoration_handler):
                restoration_handler([canvas])
                return True

        class Sent(UserActivityDelegate):
            def user_activity_was_continued(self, activity):
                continued.set_result(activity)

        sender = closing(Application(manifest))
        receiver = closing(Application(manifest, Receiving()))
        canvas = Canvas(receiver)
        sport, rport = ports(2)
        connect([(sender, sport, "sender"), (receiver, rport, "receiver")])
        activity = UserActivity(TYPE)
        activity.user_info = {"shape-type": "circle", "activity-version": 1}
        activity.delegate = Sent()
        with handoff.aio.attached(sender), handoff.aio.attached(receiver):
            sender.become_current(activity)
            info = await asyncio.wait_for(restored, 15)
            assert await asyncio.wait_for(continued, 15) is activity
        assert info == {"shape-type": "circle", "activity-version": 1}
        assert not loop.remove_reader(sender.fileno())  # detached on leaving the block
        assert not loop.remove_reader(receiver.fileno())

    asyncio.run(main())


def test_a_dispatch_error_reaches_the_loop_exception_handler():
    made = []
    thread = threading.Thread(
        target=lambda: made.append(Application(Manifest("com.example.myapp", "TEAM1"))))
    thread.start()
    thread.join()
    app = made[0]  # its main thread is gone: dispatching here is refused

    async def main():
        loop = asyncio.get_running_loop()
        errors = loop.create_future()
        loop.set_exception_handler(lambda loop, context: errors.done() or
                                   errors.set_result(context.get("exception")))
        activity = UserActivity(TYPE)
        app.become_current(activity)
        activity.needs_save = True  # makes the fd readable
        with handoff.aio.attached(app):
            error = await asyncio.wait_for(errors, 15)
        return error

    error = asyncio.run(main())
    assert isinstance(error, HandoffError) and error.code == Status.WRONG_THREAD
    app.close()


def test_attach_needs_a_loop():
    app = Application(Manifest("com.example.myapp", "TEAM1"))
    with pytest.raises(RuntimeError):
        handoff.aio.attach(app)  # no running loop here
    app.close()
