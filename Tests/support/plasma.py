# SPDX-License-Identifier: MIT OR Apache-2.0
"""A real KDE Plasma for a test: Debian's kwin_wayland as a headless
compositor (`--virtual`, one output, no Xwayland, no screen locker),
kded5 (it serves org.kde.StatusNotifierWatcher, as in a session) and
plasmashell (the panel, its system tray, the notification server) on a
private session bus (PrivateBus) that may activate only
kactivitymanagerd, krunner and what the caller adds. No system bus and
no logind are needed: plasmashell lives without them.

Debian gives kwin_wayland the file capability cap_sys_resource, which a
container's bounding set may lack (exec then fails with EPERM); the
harness runs a copy without it, first in PATH (KWin's own platform
plugin loads only in the executable PATH names kwin_wayland). A test's
pointer and keyboard (kwin_input.py) are trusted by a desktop entry in
the test's HOME, as KDE's own remote-input tools are; screenshots
(kwin_screenshot.py) by KWIN_SCREENSHOT_NO_PERMISSION_CHECKS. KWin's
other checks stay on: with them off it would not know plasmashell as
privileged and would refuse it activation tokens ("not-granted-666").
Animations are off (kdeglobals' AnimationDurationFactor=0) so what a
click opens is there at once.

close() ends Plasma, the bus and all they started (the bus's tag:
Tests/support/private_bus.py). Standard library only."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import children
import kwin_input
import png_image
from private_bus import BUS_TAG, PrivateBus

START_WAIT = 90  # seconds for each part to be up (a busy machine)
CALL_WAIT = 30  # seconds for one call
SOCKET = "wayland-plasma-test"
PANEL = 44  # the default panel's height at the bottom, in pixels
TOOLS = ("kwin_wayland", "kded5", "plasmashell", "krunner", "busctl", "gdbus")
SERVICES = Path("/usr/share/dbus-1/services")
ACTIVATABLE = ("org.kde.ActivityManager.service", "org.kde.krunner.service")
SCREENSHOT = Path(__file__).resolve().parent / "kwin_screenshot.py"
SYSTEM_PYTHON = "/usr/bin/python3"  # has GObject introspection (Gio)


def available():
    """Why a Plasma session cannot run here, or None when it can."""
    for tool in TOOLS:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/install-deps.sh installs it)"
    for service in ACTIVATABLE:
        if not (SERVICES / service).exists():
            return f"{SERVICES / service} is missing"
    if not Path("/usr/share/plasma/shells/org.kde.plasma.desktop").is_dir():
        return "plasma-desktop (the desktop shell package) is not installed"
    if not list(Path("/usr/lib").glob("*/qt5/plugins/platforms/libqwayland-generic.so")):
        return "qtwayland5 (Qt's Wayland platform) is not installed"
    return None


class Plasma:
    def __init__(self, root, size=(1280, 800), servicedirs=(), env=None):
        """`root`: a folder of the caller's (HOME, the bus, the logs and
        the screenshots go there; XDG_RUNTIME_DIR is a short folder in
        the temporary directory, removed by close()); `servicedirs`: more folders of D-Bus
        services the bus may activate; `env`: more environment for
        Plasma and what its bus activates."""
        self.root = Path(root)
        self.home = self.root / "home"
        # Short: KIO's and Wayland's sockets go there (a socket's path
        # has at most 107 bytes; a test's folder can be longer).
        self.runtime = Path(tempfile.mkdtemp(prefix="plasma-"))
        self.bin = self.root / "bin"
        self.size = size
        for folder in (self.home, self.runtime, self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        services = self.root / "services"
        services.mkdir(exist_ok=True)
        for service in ACTIVATABLE:
            shutil.copy(SERVICES / service, services)
        # A copy has no file capabilities (cp keeps no extended attributes).
        shutil.copy(shutil.which("kwin_wayland"), self.bin / "kwin_wayland")
        config = self.home / ".config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "kdeglobals").write_text("[KDE]\nAnimationDurationFactor=0\n")
        self._trust_input()
        self.env = dict(os.environ, HOME=str(self.home), XDG_RUNTIME_DIR=str(self.runtime),
                        XDG_CONFIG_HOME=str(config), XDG_DATA_HOME=str(self.home / ".local/share"),
                        XDG_CACHE_HOME=str(self.home / ".cache"), WAYLAND_DISPLAY=SOCKET,
                        QT_QPA_PLATFORM="wayland", XDG_SESSION_TYPE="wayland", XDG_CURRENT_DESKTOP="KDE",
                        KDE_FULL_SESSION="true", KDE_SESSION_VERSION="5", NO_AT_BRIDGE="1")
        self.env.update(env or {})
        for name in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER"):
            self.env.pop(name, None)
        self.procs = []
        self.pointer = None
        self.bus = None
        self.shots = 0
        try:
            self.bus = PrivateBus(self.root / "bus", servicedirs=[services, *servicedirs],
                                  env=self.env, folders=[self.home, self.runtime])
            self.env["DBUS_SESSION_BUS_ADDRESS"] = self.bus.address
            self._start()
        except BaseException:
            self.close()
            raise

    def _trust_input(self):
        """KWin offers org_kde_kwin_fake_input to the executables whose
        desktop entry asks for it (X-KDE-Wayland-Interfaces), as KDE
        Connect's does: an entry for this Python, in the test's HOME
        only. Plasma's shell stays trusted as its own entry says (with
        KWin's permission checks off it would not be, and KWin would
        refuse it activation tokens)."""
        applications = self.home / ".local/share/applications"
        applications.mkdir(parents=True, exist_ok=True)
        (applications / "org.libhandoff.tests.input.desktop").write_text(
            "[Desktop Entry]\nType=Application\nName=libhandoff tests' pointer\nNoDisplay=true\n"
            f"Exec={os.path.realpath(sys.executable)}\nX-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n")

    def _spawn(self, name, argv, **env):
        log = open(self.root / f"{name}.log", "wb")
        proc = children.track(subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=dict(self.env, **{BUS_TAG: self.bus.token}, **env)))
        self.procs.append((name, proc, log))
        return proc

    def _start(self):
        width, height = self.size
        self._spawn("kwin", ["kwin_wayland", "--virtual", "--no-lockscreen", "--socket", SOCKET,
                             "--width", str(width), "--height", str(height)],
                    PATH=f"{self.bin}:{self.env.get('PATH', '/usr/bin:/bin')}",
                    KWIN_SCREENSHOT_NO_PERMISSION_CHECKS="1")
        self._until(lambda: (self.runtime / SOCKET).exists() and self.owner("org.kde.KWin"), "KWin on the bus")
        self._spawn("kded", ["kded5"])
        self._until(lambda: self.owner("org.kde.StatusNotifierWatcher"), "kded5's StatusNotifierWatcher")
        self._spawn("plasmashell", ["plasmashell", "--no-respawn"])
        self._until(lambda: self.owner("org.freedesktop.Notifications") and self.watcher_property(
            "IsStatusNotifierHostRegistered") is True, "plasmashell's tray host and notification server")
        self._until(lambda: all(self.look().pixel(x, y)[:3] != (0, 0, 0) for x, y in
                                ((width // 2, height // 2), (width // 2, height - PANEL // 2))),
                    "the wallpaper and the panel drawn")
        self.pointer = kwin_input.FakeInput(self.runtime, SOCKET)
        self.pointer.move(width // 2, height // 2)

    def _until(self, probe, what, wait=START_WAIT):
        deadline = time.monotonic() + wait
        while not probe():
            for name, proc, _ in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited ({proc.returncode}): {self.log_tail(name)}")
            if time.monotonic() > deadline:
                raise AssertionError(f"never: {what}; plasmashell said: {self.log_tail('plasmashell')}")
            time.sleep(0.2)

    def busctl(self, *args, check=True):
        done = subprocess.run(["busctl", f"--address={self.bus.address}", "--json=short", "--", *args],
                              capture_output=True, text=True, timeout=CALL_WAIT, stdin=subprocess.DEVNULL)
        if check and done.returncode != 0:
            raise AssertionError(f"busctl {' '.join(args)}: {done.stderr.strip()}")
        return done

    def owner(self, name):
        """Whether `name` has an owner on the bus."""
        done = self.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "NameHasOwner", "s", name, check=False)
        return done.returncode == 0 and '"data":[true]' in done.stdout

    def unique_name(self, name):
        """The unique name owning `name` on the bus, or None."""
        done = self.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetNameOwner", "s", name, check=False)
        return json.loads(done.stdout)["data"][0] if done.returncode == 0 else None

    def watcher_property(self, name):
        """A property of kded5's org.kde.StatusNotifierWatcher."""
        done = self.busctl("get-property", "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher",
                           "org.kde.StatusNotifierWatcher", name, check=False)
        return json.loads(done.stdout)["data"] if done.returncode == 0 else None

    def input(self):
        """The test's pointer and keyboard (kwin_input.FakeInput), one for
        the session: KWin drops what a new fake device sends first, so
        it was made, and moved once, at start."""
        return self.pointer

    def screenshot(self, path):
        """What the output shows, as a PNG at `path`."""
        done = subprocess.run([SYSTEM_PYTHON, str(SCREENSHOT), self.bus.address, str(path)], capture_output=True,
                              text=True, timeout=CALL_WAIT, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise AssertionError(f"screenshot: {done.stderr.strip()}")
        return Path(path)

    def look(self):
        """A screenshot (kept in the test's folder) as png_image.Image."""
        shots = self.root / "screenshots"
        shots.mkdir(exist_ok=True)
        self.shots += 1
        return png_image.Image(self.screenshot(shots / f"{self.shots:03}.png"))

    def log_tail(self, name, size=3000):
        path = self.root / f"{name}.log"
        return path.read_bytes()[-size:].decode(errors="replace") if path.exists() else ""

    def close(self):
        """Ends Plasma, the bus and all they started; undoes mounts
        under the test's folders."""
        if self.pointer is not None:
            self.pointer.close()
            self.pointer = None
        for _, proc, log in reversed(self.procs):
            children.kill(proc)
            log.close()
        self.procs = []
        if self.bus is not None:
            self.bus.close()
        shutil.rmtree(self.runtime, ignore_errors=True)

    kill = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
