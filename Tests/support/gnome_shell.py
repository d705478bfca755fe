# SPDX-License-Identifier: MIT OR Apache-2.0
"""A real GNOME Shell for a test: Debian's gnome-shell as a headless
Wayland compositor with one virtual monitor, on a private session bus
(PrivateBus) and a system bus of its own.

GNOME Shell needs a system bus, and without logind a login-manager
fallback: it runs in a private mount namespace (`unshare -m`) where a
tmpfs hides /run/systemd (so it does not look for logind) and another
/run/dbus (where its own system dbus-daemon listens). Its settings are a
key file in the test's HOME (GSETTINGS_BACKEND=keyfile), so nothing of
the machine's dconf is read or written.

The shell's D-Bus Eval and Screenshot answer only in unsafe mode; a
test-only extension (`unsafe@tests.libhandoff.org`, written into the
test's HOME) turns it on when the shell enables extensions. The session
bus may activate only org.gnome.Shell.Notifications (the gjs service
that serves org.freedesktop.Notifications for the shell) and what the
caller adds.

close() ends the shell, both buses and every process they started, and
undoes mounts. Standard library only."""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import children
from private_bus import BUS_TAG, PrivateBus

START_WAIT = 90  # seconds for the shell to say it started (a busy machine)
CALL_WAIT = 30  # seconds for one gdbus call
UNSAFE_UUID = "unsafe@tests.libhandoff.org"
NOTIFICATIONS_SERVICE = Path("/usr/share/dbus-1/services/org.gnome.Shell.Notifications.service")

# Run inside `unshare -m`: hide logind and the machine's system bus, start
# a system bus of our own, then become the shell. The system bus dies with
# the namespace's processes when close() kills everything tagged.
LAUNCHER = """
set -e
mount -t tmpfs none /run/systemd
mount -t tmpfs none /run/dbus
dbus-daemon --system --fork --nopidfile
exec gnome-shell --headless --wayland --no-x11 --virtual-monitor "$HANDOFF_TEST_MONITOR"
"""


def available():
    """Why a GNOME Shell cannot run here, or None when it can."""
    for tool in ("gnome-shell", "gjs", "unshare", "dbus-daemon", "gdbus", "busctl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/install-deps.sh installs it)"
    if not NOTIFICATIONS_SERVICE.exists():
        return f"{NOTIFICATIONS_SERVICE} is missing"
    if os.geteuid() != 0:
        return "a mount namespace needs root"
    return None


class GnomeShell:
    def __init__(self, root, monitor="1280x800", servicedirs=(), env=None):
        """`root`: a folder of the caller's (HOME, XDG_RUNTIME_DIR, the
        buses and the shell's log go there); `servicedirs`: more folders
        of D-Bus services the session bus may activate; `env`: more
        environment for the shell."""
        self.root = Path(root)
        self.home = self.root / "home"
        self.runtime = self.root / "runtime"
        self.log_path = self.root / "gnome-shell.log"
        for folder in (self.home, self.runtime):
            folder.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        services = self.root / "services"
        services.mkdir(exist_ok=True)
        shutil.copy(NOTIFICATIONS_SERVICE, services)
        self.env = dict(os.environ, HOME=str(self.home), XDG_RUNTIME_DIR=str(self.runtime),
                        XDG_DATA_HOME=str(self.home / ".local/share"), XDG_CONFIG_HOME=str(self.home / ".config"),
                        GSETTINGS_BACKEND="keyfile", XDG_CURRENT_DESKTOP="GNOME",
                        XDG_SESSION_TYPE="wayland", NO_AT_BRIDGE="1")
        self.env.update(env or {})
        self._install_unsafe_extension()
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"):
            self.env.pop(name, None)
        self.bus = PrivateBus(self.root / "bus", servicedirs=[services, *servicedirs],
                              env=self.env, folders=[self.home, self.runtime])
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.bus.address
        self.shell = None
        try:
            self._settings()
            self._start(monitor)
        except BaseException:
            self.close()
            raise

    def _install_unsafe_extension(self):
        folder = Path(self.env["XDG_DATA_HOME"]) / "gnome-shell/extensions" / UNSAFE_UUID
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "metadata.json").write_text(json.dumps({
            "uuid": UNSAFE_UUID, "name": "tests: unsafe mode",
            "description": "Lets a test call the shell's Eval and Screenshot.",
            "shell-version": ["43", "44"]}))
        (folder / "extension.js").write_text(
            "function init() {\n"
            "    return { enable() { global.context.unsafe_mode = true; }, disable() {} };\n"
            "}\n")

    def _settings(self):
        """The key-file settings the shell reads: our extension enabled,
        no welcome tour, the overview not shown at start-up (so a
        screenshot shows the desktop and its banners)."""
        self.enable_extensions([UNSAFE_UUID])
        self.gsettings("org.gnome.shell", "welcome-dialog-last-shown-version", "'999'")

    def gsettings(self, schema, key, value):
        """Sets one key in the shell's key-file settings."""
        subprocess.run(["gsettings", "set", schema, key, value], env=self.env, check=True,
                       timeout=CALL_WAIT, stdin=subprocess.DEVNULL)

    def enable_extensions(self, uuids):
        """The extensions the shell enables (ours always among them);
        before start, or the shell picks the change up itself."""
        names = [UNSAFE_UUID, *[u for u in uuids if u != UNSAFE_UUID]]
        self.gsettings("org.gnome.shell", "disable-user-extensions", "false")
        self.gsettings("org.gnome.shell", "enabled-extensions", repr(names))

    def _start(self, monitor):
        env = dict(self.env, HANDOFF_TEST_MONITOR=monitor, **{BUS_TAG: self.bus.token})
        self.log = open(self.log_path, "wb")
        self.shell = children.track(subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", LAUNCHER],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True))
        deadline = time.monotonic() + START_WAIT
        while time.monotonic() < deadline:
            if self.shell.poll() is not None:
                raise AssertionError(f"gnome-shell exited ({self.shell.returncode}): {self.log_tail()}")
            if b"GNOME Shell started" in self.log_path.read_bytes() and self._unsafe():
                self.clear()
                return
            time.sleep(0.2)
        raise AssertionError(f"gnome-shell did not start in {START_WAIT} s: {self.log_tail()}")

    def _unsafe(self):
        try:
            return self.eval("global.context.unsafe_mode") is True
        except AssertionError:
            return False

    def clear(self):
        """The desktop as a person sees it after logging in and closing
        what the shell said at start (unsafe mode, a privileged user, no
        screen lock): the overview hidden, no notification left."""
        self.eval("imports.ui.main.messageTray.getSources().forEach(s => s.destroy()); true")
        # The shell opens the overview with an animation at start-up; a
        # hide during it can land after a test's own show.
        self._until("(() => { const o = imports.ui.main.overview;"
                    " if (o.animationInProgress) return false;"
                    " if (o.visible) { o.hide(); return false; } return true; })()",
                    "the overview hidden and still")

    def search(self, text):
        """What a person does to search: opens the overview and types
        `text` into its entry (again, should the shell close it)."""
        self._until("(() => { const o = imports.ui.main.overview;"
                    " if (o.animationInProgress) return false;"
                    " if (!o.visible) { o.show(); return false; }"
                    f" if (o.searchEntry.get_text() !== {json.dumps(text)}) o.searchEntry.set_text({json.dumps(text)});"
                    " return true; })()", f"the overview searching for {text!r}")

    def _until(self, script, what, wait=CALL_WAIT):
        """Runs `script` until it returns true (bounded)."""
        deadline = time.monotonic() + wait
        while self.eval(script) is not True:
            if time.monotonic() > deadline:
                raise AssertionError(f"never: {what}; the shell said: {self.log_tail()}")
            time.sleep(0.1)

    def banner(self):
        """The notification banner on screen, or None: its title and
        body as shown, and whether the shell cut either of them."""
        return self.eval("""(() => {
            const banner = imports.ui.main.messageTray._banner;
            if (!banner) return null;
            const cut = label => label.clutter_text.get_layout().is_ellipsized();
            return {title: banner.titleLabel.text, body: banner.bodyLabel.actor.text,
                    titleCut: cut(banner.titleLabel), bodyCut: cut(banner.bodyLabel.actor)};
        })()""")

    def wayland_env(self, base=None):
        """`base` (else this process's environment) for a Wayland client
        of this shell: its runtime folder and display (GTK wants both),
        its session bus, and no X display to fall back to."""
        env = dict(os.environ if base is None else base, XDG_RUNTIME_DIR=str(self.runtime),
                   WAYLAND_DISPLAY="wayland-0", DBUS_SESSION_BUS_ADDRESS=self.bus.address)
        env.pop("DISPLAY", None)
        return env

    def windows(self):
        """The windows the shell manages, in stacking order (bottom
        first): title, wm_class, pid, and whether each has the focus or
        asks for attention (what Mutter does with a refused activation)."""
        return self.eval("""(() => {
            const focus = global.display.focus_window;
            return global.get_window_actors().map(a => a.meta_window).map(w => ({
                title: w.get_title(), wmClass: w.get_wm_class(), pid: w.get_pid(),
                focused: w === focus, demandsAttention: w.demands_attention}));
        })()""")

    def focused(self):
        """The window with the keyboard focus (as in windows()), or None."""
        return next((w for w in self.windows() if w["focused"]), None)

    def activation_token(self, desktop_id):
        """A token from the shell's own launch context for the app
        `desktop_id`, as the shell makes one when a person opens that app
        from it (stamped now, so the shell treats it as this moment's)."""
        return self.eval("""(() => {
            const info = imports.gi.Gio.DesktopAppInfo.new(%s);
            const context = global.create_app_launch_context(global.display.get_current_time_roundtrip(), -1);
            return context.get_startup_notify_id(info, []);
        })()""" % json.dumps(desktop_id))

    def click(self, actor):
        """A person's click on the actor the JavaScript `actor` names: the
        pointer moved to its centre and the primary button pressed and
        released, through a virtual pointer of the shell's seat, so the
        shell handles real events with their own time (a token made in
        the click is stamped with it). False, and nothing clicked, when
        no such actor is on screen, another covers its centre, or it
        moved since the last call (an opening animation): call again."""
        return self.eval("""(() => {
            const actor = %s;
            if (!actor || !actor.mapped) return false;
            const {Clutter, GLib} = imports.gi;
            const [x, y] = actor.get_transformed_position();
            const [width, height] = actor.get_transformed_size();
            const [cx, cy] = [Math.round(x + width / 2), Math.round(y + height / 2)];
            const hit = global.stage.get_actor_at_pos(Clutter.PickMode.REACTIVE, cx, cy);
            const where = `${cx},${cy},${width},${height}`;
            const still = globalThis.handoffTestTarget === where;
            globalThis.handoffTestTarget = where;
            if (!hit || !actor.contains(hit) || !still) return false;
            globalThis.handoffTestTarget = null;
            globalThis.handoffTestPointer ??= Clutter.get_default_backend().get_default_seat()
                .create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
            const pointer = globalThis.handoffTestPointer;
            const now = GLib.get_monotonic_time();
            pointer.notify_absolute_motion(now, cx, cy);
            pointer.notify_button(now + 1000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
            pointer.notify_button(now + 2000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
            return true;
        })()""" % actor)

    def log_tail(self, size=3000):
        return self.log_path.read_bytes()[-size:].decode(errors="replace")

    def call(self, destination, path, method, *args):
        """One method call with gdbus on the shell's session bus; its
        printed answer, or AssertionError with gdbus's message."""
        done = subprocess.run(["gdbus", "call", "--session", "-d", destination, "-o", path, "-m", method,
                               *args], env=self.env, capture_output=True, text=True,
                              timeout=CALL_WAIT, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise AssertionError(f"{method}: {done.stderr.strip()}")
        return done.stdout.strip()

    def eval(self, script):
        """Runs JavaScript in the shell; its result as Python values (the
        shell answers with the result in JSON; None for undefined)."""
        # busctl prints the reply as JSON, which no quoting in the
        # answer can confuse (gdbus prints GVariant text).
        done = subprocess.run(["busctl", f"--address={self.bus.address}", "--json=short", "call",
                               "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval", "s", script],
                              env=self.env, capture_output=True, text=True, timeout=CALL_WAIT,
                              stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise AssertionError(f"Eval: {done.stderr.strip()}")
        ok, value = json.loads(done.stdout)["data"]
        if not ok:
            raise AssertionError(f"Eval failed: {value}")
        return json.loads(value) if value else None

    def screenshot(self, path):
        """What the monitor shows, as a PNG at `path`."""
        self.call("org.gnome.Shell", "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot.Screenshot",
                  "false", "false", str(path))
        return Path(path)

    def close(self):
        """Ends the shell, its system bus, the session bus and all they
        started; undoes mounts under the test's folders."""
        if self.shell is not None:
            children.kill(self.shell)
            self.log.close()
            self.shell = None
        self.bus.close()

    kill = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
