#!/usr/bin/python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""A front end of the agent's session-bus API (docs/agent.md §15) that
stays on the bus, as a shell extension does: the system's Python with
GObject introspection (Gio), driven by the test on stdin, one word a line:

  pair     Pair(): {"event": "pairing", "path": …, "n": its count} (or "error")
  confirm  the pairing's Confirm(): {"event": "ok"} (or "error")
  cancel   the pairing's Cancel()
  continue-and-leave ID TOKEN
           sends Continue(ID, {activation-token: TOKEN}) and leaves the
           bus without waiting for the reply (the process exits)
  quit     leaves the bus at once (the process exits)

and telling on stdout, one JSON object a line, {"event": "ready", "name":
its unique name} first, then the pairing's `Digits` as they change
({"event": "digits"}) and its `Finished` ({"event": "finished"})."""

import json
import os
import sys

from gi.repository import Gio, GLib

NAME = "org.libhandoff.Agent"
PATH = "/org/libhandoff/Agent"
PAIRING = "org.libhandoff.Pairing1"


def say(event, **fields):
    print(json.dumps(dict(event=event, **fields)), flush=True)


def main(address):
    bus = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    loop = GLib.MainLoop()
    state = {"path": None, "replies": 0}

    def signal(_bus, _sender, path, interface, member, params):
        if member == "Finished":
            paired, message = params.unpack()
            say("finished", path=path, paired=paired, message=message)
        elif member == "PropertiesChanged" and interface == "org.freedesktop.DBus.Properties":
            _iface, changed, _ = params.unpack()
            if "Digits" in changed:
                say("digits", path=path, digits=changed["Digits"])

    bus.signal_subscribe(NAME, None, None, None, None, Gio.DBusSignalFlags.NONE, signal)

    def call(path, interface, member):
        try:
            reply = bus.call_sync(NAME, path, interface, member, None, None, Gio.DBusCallFlags.NONE, 10000, None)
            return reply.unpack()
        except GLib.Error as error:
            name = Gio.DBusError.get_remote_error(error) or ""
            Gio.DBusError.strip_remote_error(error)  # in place: the message alone
            say("error", call=member, name=name, message=error.message)
            return None

    def line(channel, _condition):
        text = channel.readline().strip()
        if text in ("", "quit"):
            loop.quit()
            return False
        if text == "pair":
            reply = call(PATH, "org.libhandoff.Agent1", "Pair")
            if reply is not None:
                state["path"] = reply[0]
                state["replies"] += 1
                say("pairing", path=reply[0], n=state["replies"])
        elif text.startswith("continue-and-leave "):
            _, activity, token = text.split()
            data = {"activation-token": GLib.Variant("s", token)}
            bus.call(NAME, PATH, "org.libhandoff.Agent1", "Continue", GLib.Variant("(sa{sv})", (activity, data)),
                     None, Gio.DBusCallFlags.NONE, -1, None, None, None)
            bus.flush_sync(None)
            say("left")
            os._exit(0)
        elif text in ("confirm", "cancel"):
            if call(state["path"], PAIRING, text.capitalize()) is not None:
                say("ok", call=text)
        return True

    channel = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, line)
    say("ready", name=bus.get_unique_name())
    loop.run()


if __name__ == "__main__":
    main(sys.argv[1])
