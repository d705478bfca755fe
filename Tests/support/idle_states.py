# SPDX-License-Identifier: MIT OR Apache-2.0
"""The states of a person's machine an idle `handoff agent` must sleep
through (docs/agent.md §8 "Every state of the machine"): each
one a context manager that sets the state up around one agent, and the
one way of starting that agent. Shared by the test that bounds each
state's wake-ups (Tests/integration/test_idle_states.py: a count over a
few seconds) and the bench that measures each for a minute beside the
quiet baseline (`make bench-agent-idle`, bench/agent_idle.py).

A state is a generator `state(ctx)` that yields twice: before the first
`yield` it prepares the machine (folders, sockets, a private bus, a
listener that never answers) and adds the agent's arguments and
environment to `ctx`; the agent starts at the first `yield`; between the
two comes what happens while the agent runs (tailscaled's folder made,
the bus restarted); the agent is measured at the second; its `finally`
undoes it all when the generator is closed.

Nothing here reaches another machine: the tailnet is a socket path in a
temporary folder, the relay a port on 127.0.0.1 (or a real mosquitto
there), the bus a private dbus-daemon in the same folder (Tests/support/
private_bus.py: it activates nothing), the full disk a small tmpfs mounted under the folder and always
unmounted.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import private_bus

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("HANDOFF_TOOL") or ROOT / "build" / "bin" / "handoff")


def free_port(kind=socket.SOCK_DGRAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc, wait=10):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class RestartingBus:
    """A private session bus (private_bus.PrivateBus: it activates nothing
    and leaves nothing behind) that can stop and start again at the same
    address, as a session's bus does when dbus-daemon restarts."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.address = "unix:path=%s" % (self.folder / "bus")
        self.bus = None

    def start(self):
        self.bus = private_bus.PrivateBus(self.folder)
        assert self.bus.address.startswith(self.address), (self.bus.address, self.address)
        return self

    def stop(self):
        if self.bus is not None:
            self.bus.close()
        self.bus = None

    def has_owner(self, name):
        """Whether `name` is owned on this bus now."""
        done = subprocess.run(["dbus-send", "--bus=%s" % self.address, "--print-reply", "--dest=org.freedesktop.DBus",
                               "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:%s" % name],
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        return done.returncode == 0 and "boolean true" in done.stdout


class Context:
    """One agent in one state: its folder, arguments, environment, and the
    window measured over it."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.config = self.folder / "config"
        self.runtime = self.folder / "run"
        self.config.mkdir(mode=0o700)
        self.runtime.mkdir(mode=0o700)
        self.socket = str(self.runtime / "handoff" / "agent.sock")
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(self.config), XDG_RUNTIME_DIR=str(self.runtime),
                        HANDOFF_HISTORY_DB=str(self.folder / "history" / "history.sqlite"),
                        HANDOFF_TAILNET_SOCKET="off")
        for key in ("HANDOFF_AGENT_SOCKET", "DBUS_SESSION_BUS_ADDRESS", "LISTEN_FDS", "LISTEN_PID"):
            self.env.pop(key, None)
        # Off unless a state turns them on: no bus means none of them.
        self.surface = ["--no-notifications", "--no-tray", "--no-search", "--no-bus-api"]
        self.args = []
        self.log = self.folder / "agent.log"
        self.agent = None
        # False: the device is not paired yet (the agent waits for an account).
        self.paired = True
        # The private bus of a state that has one (RestartingBus).
        self.bus = None

    def tool(self, *args, **kw):
        return subprocess.run([str(TOOL), *map(str, args)], env=self.env, stdin=kw.pop("stdin", subprocess.DEVNULL),
                              capture_output=True, text=True, timeout=60, **kw)

    def start_agent(self):
        if self.paired:
            created = self.tool("account", "create")
            assert created.returncode == 0, created.stderr
        command = [str(TOOL), "agent", "--socket", self.socket, "--no-launch", "--no-multicast",
                   "--peer", "127.0.0.1:%d" % free_port(), "--beacon-port", free_port(), "--channel", "127.0.0.1:0",
                   *self.surface, *self.args]
        command = [str(c) for c in command]
        self.agent = subprocess.Popen(command, env=self.env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        self.wait_log("listening" if self.paired else "no account yet", 60)

    def log_text(self):
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_log(self, text, seconds=20):
        deadline = time.monotonic() + seconds
        while text not in self.log_text():
            if self.agent.poll() is not None:
                raise AssertionError("the agent exited (%s):\n%s" % (self.agent.returncode, self.log_text()[-2000:]))
            assert time.monotonic() < deadline, "the agent never logged %r:\n%s" % (text, self.log_text()[-2000:])
            time.sleep(0.05)

    def stop(self):
        _stop(self.agent)


# ------------------------------------------------------------ the states

def quiet(ctx):
    """The baseline: no tailnet, no relay, no bus (a beacon port, so the
    tailnet source would run if it were on)."""
    yield
    yield


def unpaired(ctx):
    """A new device, not paired yet: the agent waits for the account."""
    ctx.paired = False
    yield
    yield


def unpaired_folder_moved(ctx):
    """Not paired, and the handoff folder moved away while the agent waits
    (a backup restored, a folder cleaned up): it watches the new one."""
    ctx.paired = False
    yield
    os.rename(ctx.config / "handoff", ctx.config / "handoff.old")
    yield


def tailnet_absent(ctx):
    """tailscaled not installed: the socket's folder does not exist."""
    ctx.env["HANDOFF_TAILNET_SOCKET"] = str(ctx.folder / "tailscale" / "tailscaled.sock")
    yield
    yield


def tailnet_folder_appears(ctx):
    """tailscaled installed or started while the agent runs: its folder is
    made, the socket not (yet). The agent once spun a core here."""
    ctx.env["HANDOFF_TAILNET_SOCKET"] = str(ctx.folder / "tailscale" / "tailscaled.sock")
    yield
    (ctx.folder / "tailscale").mkdir()
    # and something else made there, as tailscaled makes its state files
    (ctx.folder / "tailscale" / "tailscaled.state").write_text("{}")
    yield


def tailnet_no_socket(ctx):
    """The folder is there from the start, the socket never comes."""
    (ctx.folder / "tailscale").mkdir()
    ctx.env["HANDOFF_TAILNET_SOCKET"] = str(ctx.folder / "tailscale" / "tailscaled.sock")
    yield
    yield


def tailnet_stale(ctx):
    """A socket file nobody listens on (tailscaled killed): connect refused."""
    (ctx.folder / "tailscale").mkdir()
    path = ctx.folder / "tailscale" / "tailscaled.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()
    ctx.env["HANDOFF_TAILNET_SOCKET"] = str(path)
    yield
    yield


def tailnet_slow(ctx):
    """tailscaled hung: the socket accepts connections (its backlog does)
    and never answers."""
    (ctx.folder / "tailscale").mkdir()
    path = ctx.folder / "tailscale" / "tailscaled.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.listen(64)
    ctx.env["HANDOFF_TAILNET_SOCKET"] = str(path)
    try:
        yield
        yield
    finally:
        s.close()


def _relay(ctx, port, *extra):
    done = ctx.tool("relay", "set", "mqtt://ada@127.0.0.1:%d" % port, "--password-file", "-", *extra, input="secret\n",
                    stdin=None)
    assert done.returncode == 0, done.stderr


def relay_down(ctx):
    """The broker is down: nothing listens at its port."""
    _relay(ctx, free_port(socket.SOCK_STREAM))
    yield
    yield


def relay_silent(ctx):
    """The broker accepts TCP and never speaks MQTT (a hung broker, a
    captive portal)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    _relay(ctx, s.getsockname()[1])
    try:
        yield
        yield
    finally:
        s.close()


class Mosquitto:
    """A real mosquitto on 127.0.0.1 for one state: a password file with
    one user (ada, whose password is not the one the agent has), plain or
    TLS with a certificate of a CA the agent does not trust."""

    def __init__(self, folder, tls=False):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port(socket.SOCK_STREAM)
        passwords = self.folder / "passwords"
        passwords.write_text("")
        subprocess.run(["mosquitto_passwd", "-b", str(passwords), "ada", "not-the-agents"], check=True,
                       capture_output=True, timeout=60)
        # As root mosquitto would become the mosquitto user, which cannot
        # read the test's folder: it stays root.
        lines = ["user root", "per_listener_settings false", "listener %d 127.0.0.1" % self.port, "allow_anonymous false", "password_file %s" % passwords,
                 "persistence false", "log_dest file %s" % (self.folder / "broker.log"), "log_type all"]
        if tls:
            import certs
            (self.folder / "real").mkdir()
            (self.folder / "other").mkdir()
            certs.ca_and_server(self.folder / "real", "broker.test", "127.0.0.1")
            certs.ca_and_server(self.folder / "other", "broker.test", "127.0.0.1")
            lines += ["cafile %s" % (self.folder / "real" / "ca.crt"),
                      "certfile %s" % (self.folder / "real" / "server.crt"),
                      "keyfile %s" % (self.folder / "real" / "server.key")]
            # The agent trusts another CA: verification fails.
            self.untrusted_ca = self.folder / "other" / "ca.crt"
        config = self.folder / "mosquitto.conf"
        config.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(["mosquitto", "-c", str(config)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            assert self.proc.poll() is None, "mosquitto exited"
            assert time.monotonic() < deadline, "mosquitto never listened"
            time.sleep(0.05)

    def stop(self):
        _stop(self.proc)


def relay_refuses(ctx):
    """The broker refuses the agent's credentials (a password changed)."""
    if shutil.which("mosquitto") is None:
        raise RuntimeError("mosquitto is not installed (scripts/install-deps.sh installs it)")
    broker = Mosquitto(ctx.folder / "broker")
    try:
        _relay(ctx, broker.port)
        yield
        yield
    finally:
        broker.stop()


def relay_tls_fails(ctx):
    """The broker's certificate does not verify (a CA the agent does not
    trust)."""
    if shutil.which("mosquitto") is None:
        raise RuntimeError("mosquitto is not installed (scripts/install-deps.sh installs it)")
    broker = Mosquitto(ctx.folder / "broker", tls=True)
    try:
        done = ctx.tool("relay", "set", "mqtts://ada@127.0.0.1:%d" % broker.port, "--password-file", "-",
                        "--ca-file", broker.untrusted_ca, input="secret\n", stdin=None)
        assert done.returncode in (0, 1), done.stderr  # `set` may refuse a chain it checked: then no relay
        yield
        yield
    finally:
        broker.stop()


def _with_bus(ctx, surface=("--no-pairing",)):
    bus = RestartingBus(ctx.folder / "bus").start()
    ctx.bus = bus
    ctx.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    ctx.surface = list(surface)
    return bus


def bus_empty(ctx):
    """A session bus with no notification server and no tray watcher:
    notifications, the tray and the search provider all on."""
    bus = _with_bus(ctx)
    try:
        yield
        yield
    finally:
        bus.stop()


def bus_absent(ctx):
    """No session bus: the address names a socket nobody listens on."""
    ctx.env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=%s" % (ctx.folder / "no-bus")
    ctx.surface = ["--no-pairing"]
    yield
    yield


def bus_appears(ctx):
    """No session bus when the agent starts; one starts later at the
    address the environment names (an agent started before the session)."""
    bus = RestartingBus(ctx.folder / "bus")
    ctx.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    ctx.surface = ["--no-pairing"]
    try:
        yield
        # Only once the agent found no bus: a slow start would otherwise
        # find this one at once (the bus-present state, not this one).
        ctx.wait_log("waiting for the session bus")
        bus.start()
        ctx.bus = bus
        yield
    finally:
        bus.stop()


def bus_restarting(ctx):
    """The session bus goes away while the agent runs (a session ending,
    dbus-daemon restarted) and comes back at the same address."""
    bus = _with_bus(ctx)
    try:
        yield
        # Only once the agent serves on it: a slow start would otherwise
        # connect after the restart and see no bus going away.
        ctx.wait_log("desktop search: serving")
        bus.stop()
        time.sleep(0.5)
        bus.start()
        ctx.bus = bus
        yield
    finally:
        bus.stop()


def disk_full(ctx):
    """The history's file system fills up while the agent runs (a 1 MiB
    tmpfs under the test's folder, always unmounted)."""
    mount = ctx.folder / "history"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)], check=True)
    try:
        yield  # the agent made its database while there was room
        with contextlib.suppress(OSError):
            with open(mount / "filler", "wb") as f:
                while True:
                    f.write(b"\0" * 65536)
        yield
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


STATES = {
    "quiet": quiet,
    "unpaired": unpaired,
    "unpaired-folder-moved": unpaired_folder_moved,
    "tailnet-absent": tailnet_absent,
    "tailnet-folder-appears": tailnet_folder_appears,
    "tailnet-no-socket": tailnet_no_socket,
    "tailnet-stale": tailnet_stale,
    "tailnet-slow": tailnet_slow,
    "relay-down": relay_down,
    "relay-silent": relay_silent,
    "relay-refuses": relay_refuses,
    "relay-tls-fails": relay_tls_fails,
    "bus-absent": bus_absent,
    "bus-empty": bus_empty,
    "bus-appears": bus_appears,
    "bus-restarting": bus_restarting,
    "disk-full": disk_full,
}


@contextlib.contextmanager
def agent_in(state, settle=2.0):
    """Runs the agent in `state`: yields its Context once the state has
    happened and `settle` seconds passed (start-up bursts over)."""
    folder = tempfile.mkdtemp(prefix="handoff-idle-state-")
    ctx = Context(folder)
    steps = STATES[state](ctx)
    try:
        next(steps)
        ctx.start_agent()
        next(steps)
        time.sleep(settle)
        yield ctx
    finally:
        ctx.stop()
        steps.close()
        shutil.rmtree(folder, ignore_errors=True)
