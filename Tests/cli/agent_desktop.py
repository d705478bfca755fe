# SPDX-License-Identifier: MIT OR Apache-2.0
"""A stand-in desktop for the agent end-to-end tests: a private
dbus-daemon (never the person's session bus) with the fake notification
server of Tests/agent/fake_notifications.c on it, a temporary data directory
holding .desktop files of Tests/cli/agent_app.py, and that app's log.
Everything started here is in the test's `procs` and killed with it."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from cli_support import ROOT, WAIT, Process
from private_bus import PrivateBus  # Tests/support

FAKE = Path(os.environ.get("HANDOFF_FAKE_NOTIFICATIONS") or ROOT / "build" / "bin" / "fake_notifications")
LIBRARY = Path(os.environ.get("HANDOFF_LIBRARY") or ROOT / "build" / "lib" / "libhandoff.so")
APP = ROOT / "examples" / "agent" / "agent_app.py"
TEAM = "HANDOFFCLI"


def wait_for(probe, what, timeout=WAIT):
    """Polls probe() until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def json_lines(path):
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.endswith("}")]


class Desktop:
    def __init__(self, root, procs, fake=True, bus=None):
        """`fake`: start the recording notification server (else the test
        starts a real one on `address`); `bus`: a running bus to use (a
        desktop shell's, which activates `services_folder(root)`), else
        a private one of its own."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.services = self.services_folder(self.root)
        self.services.mkdir(exist_ok=True)
        # Activates only the test's services; its close() (with the test's
        # procs) ends everything it started (Tests/support/private_bus.py).
        self.bus = bus or PrivateBus(self.root, servicedirs=[self.services])
        procs.append(self.bus)
        self.address = self.bus.address
        assert FAKE.exists(), f"{FAKE} is not built: make {FAKE.relative_to(ROOT)}"
        self.notifications_log = self.root / "notifications.jsonl"
        if fake:
            self.fake = Process([str(FAKE), "--address", self.address, "--log", str(self.notifications_log),
                                 "--notifications"], os.environ)
            procs.append(self.fake)
            self.fake.expect_line("ready")
        self.data = self.root / "data"
        (self.data / "applications").mkdir(parents=True, exist_ok=True)
        self.empty = self.root / "no-system-data"
        self.empty.mkdir()

    @staticmethod
    def services_folder(root):
        """Where the desktop's D-Bus service files go."""
        return Path(root) / "services"

    def install(self, desktop_id, bundle, types, log, dbus_activatable=False, icon=None, web_domains=()):
        """A .desktop file whose Exec starts agent_app.py writing to `log`
        (no Exec when `log` is None), claiming `web_domains`."""
        exec_line = f"Exec={' '.join(map(exec_quoted, app_command(log, bundle, types, web_domains)))}\n" if log else ""
        domains_line = f"X-Handoff-WebDomains={';'.join(web_domains)};\n" if web_domains else ""
        dbus = "DBusActivatable=true\n" if dbus_activatable else ""
        icon_line = f"Icon={icon}\n" if icon else ""
        (self.data / "applications" / f"{desktop_id}.desktop").write_text(
            f"[Desktop Entry]\nType=Application\nName=E2E app\n{icon_line}{dbus}"
            f"{exec_line}{domains_line}" + (f"X-Handoff-ActivityTypes={';'.join(types)};\n" if types else "") +
            f"X-Handoff-TeamIdentifier={TEAM}\nX-Handoff-BundleIdentifier={bundle}\n")

    def install_service(self, name, bundle, types, log, bus_log, env, *fake_options):
        """A D-Bus service file: the bus starts fake_notifications --app
        owning `name` (recording Activate in `bus_log`), whose first
        Activate starts agent_app.py writing to `log`, with `env`."""
        env_file = self.root / f"{name}.env"
        env_file.write_text("".join(f"{k}={v}\n" for k, v in env.items() if "\n" not in k + v))
        path = "/" + name.replace(".", "/").replace("-", "_")
        command = [str(FAKE), "--log", str(bus_log), "--app", name, path, *fake_options,
                   "--env-file", str(env_file), "--", *app_command(log, bundle, types)]
        (self.services / f"{name}.service").write_text(f"[D-BUS Service]\nName={name}\nExec={' '.join(command)}\n")

    def env(self, base, socket_path):
        """The agent's environment: this bus, this data directory, the
        socket apps find it at, and what agent_app.py needs to import."""
        return dict(base, DBUS_SESSION_BUS_ADDRESS=self.address, XDG_DATA_HOME=str(self.data),
                    XDG_DATA_DIRS=str(self.empty), HANDOFF_AGENT_SOCKET=str(socket_path),
                    HANDOFF_LIBRARY=str(LIBRARY))

    def notifications(self):
        return json_lines(self.notifications_log)

    def notified(self, summary):
        """The notification whose summary is `summary` (an activity's
        notification: its title)."""
        def matches(r):
            s = r.get("summary") or ""
            return r.get("call") == "Notify" and s == summary
        return wait_for(lambda: next((r for r in self.notifications() if matches(r)), None),
                        f"a notification {summary!r}; got {self.notifications()}")

    def click(self, notification_id, action="continue", token=""):
        """As the person would: the server emits ActivationToken (when
        `token` is given) then ActionInvoked."""
        subprocess.run(["busctl", f"--address={self.address}", "call", "org.freedesktop.Notifications",
                        "/org/handoff/Test", "org.handoff.Test", "InvokeAction", "uss",
                        str(notification_id), action, token], check=True, timeout=WAIT, capture_output=True)

    def closed(self, notification_id):
        return any(r.get("call") == "CloseNotification" and r.get("id") == notification_id
                   for r in self.notifications())


def exec_quoted(argument):
    """An Exec argument as the desktop entry spec wants it: in double quotes
    (with ", `, $ and \\ escaped) when it holds a reserved character."""
    if not any(c in argument for c in " \t\n\"'\\><~|&;$*?#()`"):
        return argument
    return '"' + "".join("\\" + c if c in '"`$\\' else c for c in argument) + '"'


def app_command(log, bundle, types, web_domains=()):
    return ([sys.executable, str(APP), "--log", str(log), "--bundle", bundle, "--team", TEAM]
            + [f"--type={t}" for t in types] + [f"--web-domain={d}" for d in web_domains])


class OwnedProcess:
    """A bare Popen in `procs` (killed with the test)."""

    def __init__(self, proc):
        self.proc = proc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def app_pids(log):
    return {e["pid"] for e in json_lines(log)}


def kill_apps(log):
    """The apps the agent started are not our children: kill them by pid."""
    for pid in app_pids(log):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
