# SPDX-License-Identifier: MIT OR Apache-2.0
"""A private dbus-daemon for a test or a bench: never the
person's session bus, and never the system's session services. Its config
names only the service folders the caller gives (so it cannot activate
xdg-desktop-portal, xdg-document-portal, dconf… that /usr/share/dbus-1
offers to a standard session bus); it runs in its own process group with
its own tag in its environment, which the services it activates inherit.
close() ends the daemon, its process group and every process with its
tag (an activated service may leave the group), then undoes any mount
under its folder. Standard library only."""

import os
import select
import signal
import subprocess
import uuid
from pathlib import Path

import children
import leftovers

BUS_TAG = "HANDOFF_TEST_BUS"
START_WAIT = 30  # seconds for the daemon to say its address


class PrivateBus:
    def __init__(self, root, servicedirs=(), env=None, folders=()):
        """`root`: a folder of the caller's (the socket and config go there);
        `servicedirs`: what the bus may activate (nothing by default);
        `env`: the daemon's environment (os.environ by default), which its
        services get; `folders`: more folders (a HOME the bus's clients
        use) in which close() undoes mounts."""
        self.root = Path(root)
        self.folders = [self.root, *map(Path, folders)]
        self.root.mkdir(parents=True, exist_ok=True)
        self.token = uuid.uuid4().hex
        dirs = "".join(f"  <servicedir>{d}</servicedir>\n" for d in servicedirs)
        config = self.root / "bus.conf"
        config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={self.root}/bus</listen>
  <auth>EXTERNAL</auth>
{dirs}  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
""")
        environment = dict(os.environ if env is None else env, **{BUS_TAG: self.token})
        environment.pop("DBUS_SESSION_BUS_ADDRESS", None)
        self.daemon = children.track(subprocess.Popen(
            ["dbus-daemon", f"--config-file={config}", "--print-address=1", "--nofork"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=environment, start_new_session=True))
        self.closed = False
        try:
            self.address = self._read_address()
        except BaseException:
            self.close()
            raise

    def _read_address(self):
        line = b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.daemon.stdout], [], [], START_WAIT)
            chunk = os.read(self.daemon.stdout.fileno(), 1) if ready else b""
            if not chunk:
                raise AssertionError(f"dbus-daemon gave no address (it said {line!r})")
            line += chunk
        address = line.decode().strip()
        assert address.startswith("unix:"), address
        return address

    def processes(self):
        """The daemon and the processes it started that still run."""
        return leftovers.tagged(BUS_TAG, self.token)

    def close(self):
        """Ends the daemon and all it started; undoes mounts under root."""
        if self.closed:
            return
        self.closed = True
        try:
            os.killpg(self.daemon.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        children.kill(self.daemon)
        self.daemon.stdout.close()
        leftovers.clean(BUS_TAG, self.token, self.folders)

    kill = close  # so it can sit in a test's `procs`

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
