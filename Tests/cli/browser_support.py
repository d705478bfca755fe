# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browsers' test bed (issue 25): real Chromium and Firefox ESR from
Debian on a private X display, with the WebExtension in
bridges/browser/extension loaded unpacked, its native-messaging host
registered where each browser looks, and pages served on 127.0.0.1.
Standard library only: Chromium is driven over the DevTools protocol on a
pipe (--remote-debugging-pipe), Firefox over Marionette on a loopback port.
Nothing here reaches beyond loopback.

What works here (Chromium 156, Firefox ESR 153, Debian):
- Chromium loads an unpacked extension from the command line only with
  --disable-features=DisableLoadExtensionCommandLineSwitch; the manifest's
  `key` gives it the fixed id that the host manifest's allowed_origins
  names; with --user-data-dir it reads host manifests from
  <user-data-dir>/NativeMessagingHosts/. An incognito window: a second
  `chromium --incognito URL` with the same profile, as a person would.
- Firefox installs it as a temporary add-on through Marionette's
  Addon:Install; host manifests come from $HOME/.mozilla/native-messaging-hosts/.
- Focus: both browsers learn it from the window manager (openbox), so a
  focus change is a real X focus change (xdotool on an xmessage window).
- D-Bus: each browser gets a private bus (Tests/support/private_bus.py)
  that activates nothing, and XDG_RUNTIME_DIR in the test's folder. With
  no bus, GLib and libdbus autolaunch one on the X display (dbus-launch,
  when dbus-x11 is installed) with the system's session services, which
  started xdg-desktop-portal, xdg-document-portal (a FUSE mount at
  HOME/.cache/doc) and xdg-permission-store that outlived the test.
Every process started here is in its own process group, killed on close().
"""

import fcntl
import http.server
import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path

import children  # Tests/support
from private_bus import PrivateBus  # Tests/support

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "bridges" / "browser" / "extension"
CHROMIUM_ID = (ROOT / "bridges" / "browser" / "extension-id.txt").read_text().strip()
FIREFOX_ID = "browser@libhandoff.org"
FIREFOX_UUID = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b"
HOST_NAME = "org.libhandoff.browser"
FAKE_HOST = Path(__file__).resolve().parent / "fake_browser_host.py"
WAIT = 40  # seconds: a wait fails only when the thing never happens


def wait_for(probe, what, timeout=WAIT, step=0.1):
    """Polls `probe` until it returns something true; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step)


def start(argv, **kwargs):
    """A child in its own process group (so its whole tree is killed), tracked."""
    return children.track(subprocess.Popen(argv, start_new_session=True, **kwargs))


def stop(proc, wait=10, gently=False):
    """Kills `proc`'s process group and reaps it; `gently`: SIGTERM first
    (Xvfb then removes its lock and socket, so the next display starts clean)."""
    if proc is None:
        return
    if gently and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=wait)
        except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    children.kill(proc, wait)


# ---------------------------------------------------------------- display

def desktop_session(root, env, home):
    """A private bus for a browser at `root` and its runtime folder: what
    `env` gets (DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR); close() of the
    bus returned ends everything it started and undoes mounts under `home`."""
    runtime = Path(root) / "runtime"
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    bus = PrivateBus(Path(root) / "bus", folders=[home, runtime])
    env.update(DBUS_SESSION_BUS_ADDRESS=bus.address, XDG_RUNTIME_DIR=str(runtime))
    return bus


class Display:
    """Xvfb on a free display number and openbox on it (the browsers take
    focus from the window manager), plus a window of "another app" to give
    focus to."""

    def __init__(self, root):
        read, write = os.pipe()
        self.xvfb = start(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                          pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        with os.fdopen(read, "rb") as f:
            while not number.endswith(b"\n"):
                byte = f.read(1)
                if not byte:
                    break
                number += byte
        number = number.decode().strip()
        assert number.isdigit(), f"Xvfb gave no display: {number!r}"
        self.name = f":{number}"
        self.env = dict(os.environ, DISPLAY=self.name)
        self.env.pop("WAYLAND_DISPLAY", None)
        self.wm_log = Path(root) / f"openbox{number}.log"
        self.wm = None
        self.thief = None
        # openbox has been seen to end at once now and then (its log says
        # why); a bounded number of tries before the test fails.
        for attempt in range(3):
            stop(self.wm)
            with open(self.wm_log, "ab") as log:
                self.wm = start(["openbox", "--sm-disable"], env=self.env, stdout=log, stderr=log)
            state = wait_for(lambda: "running" if self._wm_running() else "ended" if self.wm.poll() is not None
                             else None, "openbox to manage the display")
            if state == "running":
                break
        assert self._wm_running() is True, f"openbox ended: {self.wm_log.read_text(errors='replace')}"

    def _wm_running(self):
        """openbox runs and announces itself on the root window (EWMH)."""
        if self.wm.poll() is not None:
            return False
        done = subprocess.run(["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=self.env,
                              capture_output=True, text=True, timeout=20)
        return "window id" in done.stdout

    def xdotool(self, *args, check=True):
        done = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=20)
        if done.returncode != 0:
            if check:
                raise AssertionError(f"xdotool {' '.join(args)}: {done.stderr.strip()}")
            return None
        return done.stdout.strip()

    def active_window_name(self):
        return self.xdotool("getactivewindow", "getwindowname", check=False) or ""

    def focus_elsewhere(self):
        """Gives focus to a window of another program (an xmessage)."""
        if self.thief is None or self.thief.poll() is not None:
            # input: True: the window takes the keyboard focus (Xt's default
            # leaves it with the browser, which then never sees focus go).
            self.thief = start(["xmessage", "-xrm", "*input: True", "-name", "handoff-focus-thief", "-title", "handoff-focus-thief",
                                "-geometry", "240x80+900+600", "another app"], env=self.env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        window = wait_for(lambda: self.xdotool("search", "--classname", "handoff-focus-thief", check=False),
                          "the other app's window").split()[0]
        self.xdotool("windowactivate", "--sync", window)
        wait_for(lambda: self.active_window_name() == "handoff-focus-thief", "the other app to have focus")

    def focus_window_named(self, prefix, suffix):
        """Gives focus to the visible window whose title starts with `prefix`
        (a page's title) and ends with `suffix` (the browser's)."""
        def find():
            for window in (self.xdotool("search", "--onlyvisible", "--name", ".", check=False) or "").split():
                name = self.xdotool("getwindowname", window, check=False) or ""
                if name.startswith(prefix) and name.endswith(suffix):
                    return window
            return None
        window = wait_for(find, f"a window named {prefix}…{suffix}")
        self.xdotool("windowactivate", "--sync", window)
        wait_for(lambda: self.active_window_name().startswith(prefix), f"the window {prefix}… to have focus")

    def close(self):
        stop(self.thief)
        stop(self.wm, gently=True)
        stop(self.xvfb, gently=True)


# ---------------------------------------------------------------- pages

class Pages:
    """Pages on 127.0.0.1: /page/NAME is an HTML page titled NAME;
    /slow/NAME the same, its <title> sent SLOW seconds after the rest of
    its head (the browser shows the page, still loading, before its title)."""

    SLOW = 1.0

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                name = urllib.parse.unquote(self.path.rsplit("/", 1)[-1]) or "index"
                head = b"<!DOCTYPE html><html><head><meta charset='utf-8'>"
                rest = f"<title>{name}</title></head><body><h1>{name}</h1></body></html>".encode()
                slow = self.path.startswith("/slow/")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(head) + len(rest)))
                self.end_headers()
                self.wfile.write(head)
                if slow:
                    self.wfile.flush()
                    time.sleep(Pages.SLOW)
                self.wfile.write(rest)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name, slow=False):
        kind = "slow" if slow else "page"
        return f"http://127.0.0.1:{self.server.server_address[1]}/{kind}/{urllib.parse.quote(name)}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------- hosts

def host_manifest(browser, program):
    """The native-messaging host manifest for `browser` ("chromium" or
    "firefox") naming `program`."""
    manifest = {"name": HOST_NAME, "description": "Handoff for Linux", "path": str(program), "type": "stdio"}
    if browser == "chromium":
        manifest["allowed_origins"] = [f"chrome-extension://{CHROMIUM_ID}/"]
    else:
        manifest["allowed_extensions"] = [FIREFOX_ID]
    return json.dumps(manifest, indent=2)


class RealHost:
    """`handoff browser-host` of one device: a launcher that gives it the
    device's environment (its account, its agent's socket) whatever the
    browser's own environment is."""

    def __init__(self, root, tool, env):
        self.program = Path(root) / "browser-host.sh"
        self.log = Path(root) / "browser-host.log"
        exports = "".join(f"export {k}='{v}'\n" for k, v in sorted(env.items())
                          if k in ("XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "HANDOFF_AGENT_SOCKET", "LC_ALL"))
        self.program.write_text(f"#!/bin/sh\n{exports}exec '{tool}' browser-host \"$@\" 2>>'{self.log}'\n")
        self.program.chmod(0o755)

    def manifest(self, browser):
        return host_manifest(browser, self.program)


class FakeHost:
    """fake_browser_host.py registered as org.libhandoff.browser: what the
    extension said (log), and a way to make the host say something."""

    def __init__(self, root):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.log = self.root / "host.log"
        self.log.touch()
        self.control = self.root / "host.sock"
        self.program = self.root / "host.sh"
        self.program.write_text("#!/bin/sh\n"
                                f"exec python3 '{FAKE_HOST}' '{self.log}' '{self.control}' \"$@\"\n")
        self.program.chmod(0o755)

    def manifest(self, browser):
        return host_manifest(browser, self.program)

    def entries(self):
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def messages(self):
        """Every message the extension sent so far, in order."""
        return [e["message"] for e in self.entries() if e["event"] == "message"]

    def mark(self):
        """A position in the messages; `since(mark)` gives what came after."""
        return len(self.messages())

    def since(self, mark):
        return self.messages()[mark:]

    def wait_message(self, mark, predicate, what, timeout=WAIT):
        return wait_for(lambda: next((m for m in self.since(mark) if predicate(m)), None), what, timeout)

    def live_pid(self):
        """The pid of the host the browser started last."""
        starts = [e for e in self.entries() if e["event"] == "start"]
        return starts[-1]["pid"] if starts else None

    def starts(self):
        return sum(1 for e in self.entries() if e["event"] == "start")

    def end_live_host(self):
        """Ends the live host as a crash would (the browser's child, which
        the test's browser started)."""
        os.kill(self.live_pid(), signal.SIGKILL)

    def send(self, message):
        """Makes the live host send `message` to the extension."""
        def attempt():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(5)
                    s.connect(str(self.control))
                    s.sendall(json.dumps(message).encode() + b"\n")
                    return s.recv(256).startswith(b"ok")
            except OSError:
                return False
        wait_for(attempt, f"the host to send {message.get('type')}")


def current(url):
    """A predicate: a `current` message for `url`."""
    return lambda m: m.get("type") == "current" and m.get("url") == url


def is_resign(m):
    return m.get("type") == "resign"


# ---------------------------------------------------------------- Chromium

def high_pipe():
    """A pipe whose fds are above 4 (so moving them to 3 and 4 clobbers nothing)."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return tuple(ends)


class DevTools:
    """The DevTools protocol on Chromium's pipe (fds 3 and 4: JSON messages
    ended by a NUL byte)."""

    def __init__(self, to_browser, from_browser):
        self.out = os.fdopen(to_browser, "wb", buffering=0)
        self.inp = os.fdopen(from_browser, "rb", buffering=0)
        self.next_id = 0
        self.answers = {}
        self.cond = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = self.inp.read(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self.cond:
                        self.answers[message["id"]] = message
                        self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def call(self, method, session=None, **params):
        with self.cond:
            self.next_id += 1
            ident = self.next_id
        message = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        with self.cond:
            ok = self.cond.wait_for(lambda: ident in self.answers or self.closed, timeout=WAIT)
            assert ok and ident in self.answers, f"Chromium did not answer {method}"
            answer = self.answers.pop(ident)
        assert "error" not in answer, f"{method}: {answer['error']}"
        return answer["result"]

    def close(self):
        for f in (self.out, self.inp):
            try:
                f.close()
            except OSError:
                pass


class Chromium:
    """Debian's chromium with the extension loaded unpacked, its own profile,
    on `display`; the host manifest in <profile>/NativeMessagingHosts/."""

    BINARY = "chromium"
    TITLE_SUFFIX = " - Chromium"
    PRIVATE_SUFFIX = " - Chromium"

    def __init__(self, root, display, host):
        self.root = Path(root)
        self.display = display
        self.profile = self.root / "chromium-profile"
        hosts = self.profile / "NativeMessagingHosts"
        hosts.mkdir(parents=True)
        (hosts / f"{HOST_NAME}.json").write_text(host.manifest("chromium"))
        to_browser_r, to_browser_w = high_pipe()
        from_browser_r, from_browser_w = high_pipe()
        # The pipe ends at fds 3 and 4 in the browser, moved there by bash (dash takes one-digit fds only).
        r, w = to_browser_r, from_browser_w
        shell = ["bash", "-c", f'exec "$0" "$@" 3<&{r} 4>&{w} {r}<&- {w}>&-']
        self.env = dict(self.display.env)
        self.bus = desktop_session(self.root / "chromium-session", self.env, self.profile)
        self.stderr = open(self.root / "chromium.log", "wb")
        try:
            self.proc = start(shell + self.command("about:blank"), env=self.environment(),
                              pass_fds=(r, w), stdout=self.stderr, stderr=self.stderr)
        except BaseException:
            self.bus.close()
            raise
        finally:
            os.close(to_browser_r)
            os.close(from_browser_w)
        self.devtools = DevTools(to_browser_w, from_browser_r)

    def environment(self):
        return dict(self.env)

    def command(self, *extra):
        argv = [self.BINARY, f"--user-data-dir={self.profile}", "--no-first-run", "--no-default-browser-check",
                "--disable-features=DisableLoadExtensionCommandLineSwitch",
                f"--load-extension={EXTENSION}", "--remote-debugging-pipe",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--password-store=basic", "--use-mock-keychain", "--window-size=1000,700",
                # Nothing leaves the machine: a proxy that does not exist for
                # all but loopback (which Chromium never proxies).
                "--proxy-server=127.0.0.1:9"]
        if os.geteuid() == 0:
            argv.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        return argv + list(extra)

    def targets(self, kind="page"):
        return [t for t in self.devtools.call("Target.getTargets")["targetInfos"] if t["type"] == kind]

    def open(self, url):
        """A new tab with `url`, as a person opening a link: active in the
        focused window. Returns its target id (also in last_opened)."""
        self.last_opened = self.devtools.call("Target.createTarget", url=url)["targetId"]
        return self.last_opened

    def tab_urls(self):
        return [t["url"] for t in self.targets()]

    def navigate(self, url):
        """Loads `url` in the tab opened last (the same tab, a new page)."""
        session = self.devtools.call("Target.attachToTarget", targetId=self.last_opened, flatten=True)["sessionId"]
        try:
            self.devtools.call("Page.navigate", session=session, url=url)
        finally:
            self.devtools.call("Target.detachFromTarget", sessionId=session)

    def close_private(self):
        """Closes the incognito window(s) (Ctrl+Shift+W on each)."""
        for window in (self.display.xdotool("search", "--onlyvisible", "--name", "Secret", check=False) or "").split():
            self.display.xdotool("windowactivate", "--sync", window, check=False)
            self.display.xdotool("key", "--window", window, "ctrl+shift+w", check=False)

    def in_options_page(self, expression):
        """The value of the JavaScript `expression` (a promise is awaited)
        evaluated in the extension's options page."""
        target = self.open(f"chrome-extension://{CHROMIUM_ID}/options.html")
        session = self.devtools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        try:
            # Not the about:blank a new tab starts with: the options page, loaded.
            loaded = "location.protocol === 'chrome-extension:' && document.readyState === 'complete'"
            wait_for(lambda: self.devtools.call("Runtime.evaluate", session=session, expression=loaded,
                                                returnByValue=True)["result"].get("value"),
                     "the options page to load")
            result = self.devtools.call("Runtime.evaluate", session=session, expression=expression,
                                        awaitPromise=True, returnByValue=True)
            assert "exceptionDetails" not in result, result["exceptionDetails"]
            return result["result"]["value"]
        finally:
            self.devtools.call("Target.detachFromTarget", sessionId=session)
            self.close_tab(target)

    def options_page_add_site(self, site):
        return self.in_options_page(f"{OPTIONS_SCRIPT}({json.dumps(site)}, true)")

    def options_page_remove_site(self, site):
        return self.in_options_page(f"{OPTIONS_SCRIPT}({json.dumps(site)}, false)")

    def close_tab(self, target):
        self.devtools.call("Target.closeTarget", targetId=target)

    def open_private(self, url):
        """An incognito window with `url`: `chromium --incognito URL` with the
        same profile, handed to the running browser as a person's would be."""
        argv = [self.BINARY, f"--user-data-dir={self.profile}", "--incognito", url]
        if os.geteuid() == 0:
            argv.append("--no-sandbox")
        subprocess.run(argv, env=self.environment(), capture_output=True, timeout=WAIT)

    def extension_eval(self, expression):
        """Evaluates `expression` in the extension's service worker (for a
        test's own checks)."""
        worker = wait_for(lambda: next((t for t in self.targets("service_worker")
                                        if t["url"].startswith(f"chrome-extension://{CHROMIUM_ID}/")), None),
                          "the extension's service worker")
        session = self.devtools.call("Target.attachToTarget", targetId=worker["targetId"], flatten=True)["sessionId"]
        try:
            result = self.devtools.call("Runtime.evaluate", session=session, expression=expression,
                                        awaitPromise=True, returnByValue=True)
            return result["result"].get("value")
        finally:
            self.devtools.call("Target.detachFromTarget", sessionId=session)

    def close(self):
        self.devtools.close()
        stop(self.proc)
        self.bus.close()
        self.stderr.close()


# ---------------------------------------------------------------- Firefox

# Run in the extension's options page: adds or removes a never-offer site
# through the page's own form, waits for the list (and the devices from the
# host's status) to show, and returns what the page shows.
OPTIONS_SCRIPT = """
(async (site, add) => {
  const $ = (id) => document.getElementById(id);
  const until = async (ok) => {
    for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
    return ok();
  };
  const listed = () => [...$("never").children].map((li) => li.firstChild.textContent);
  await until(() => $("devices").children.length > 0);
  if (add) {
    $("site").value = site;
    $("add").requestSubmit();
    await until(() => listed().includes(site));
  } else {
    const li = [...$("never").children].find((li) => li.firstChild.textContent === site);
    if (li) li.querySelector("button").click();
    await until(() => !listed().includes(site));
  }
  return { devices: [...$("devices").children].map((li) => li.textContent), never: listed(),
           status: $("status").textContent };
})
"""


class Marionette:
    """Firefox's own remote protocol on a loopback TCP port: each message is
    `LENGTH:JSON`; a command is [0, id, name, params], its answer
    [1, id, error, result]."""

    def __init__(self, port):
        self.sock = wait_for(lambda: self._connect(port), "Firefox's Marionette port")
        self.sock.settimeout(WAIT)
        self.buffer = b""
        self.next_id = 0
        self._read()  # the greeting: {"applicationType": "gecko", "marionetteProtocol": 3}

    @staticmethod
    def _connect(port):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            return None

    def _read(self):
        while b":" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b":", 1)
        length = int(head)
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def _fill(self):
        chunk = self.sock.recv(65536)
        assert chunk, "Marionette closed the connection"
        self.buffer += chunk

    def call(self, name, **params):
        self.next_id += 1
        data = json.dumps([0, self.next_id, name, params]).encode()
        self.sock.sendall(str(len(data)).encode() + b":" + data)
        while True:
            kind, ident, error, result = self._read()
            if kind == 1 and ident == self.next_id:
                break
        assert error is None, f"{name}: {error}"
        return result.get("value", result) if isinstance(result, dict) else result

    def close(self):
        self.sock.close()


# Prefs of the test profile: no first-run pages, no updates, nothing sent
# anywhere (a proxy that does not exist for everything but loopback, which
# Firefox never proxies), Marionette on the test's port.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": 9,
    "browser.tabs.warnOnClose": False,
    "browser.warnOnQuit": False,
    # Marionette's recommended prefs turn on focusmanager.testmode, in
    # which every window acts focused: the focus tests need the real thing.
    "remote.prefs.recommended": False,
    "focusmanager.testmode": False,
    # The extension's internal UUID, fixed so the test can open its options
    # page (moz-extension://UUID/) without chrome-context access.
    "extensions.webextensions.uuids": json.dumps({FIREFOX_ID: FIREFOX_UUID}),
}


class Firefox:
    """Debian's firefox-esr with its own HOME and profile on `display`, the
    extension installed as a temporary add-on through Marionette, the host
    manifest in $HOME/.mozilla/native-messaging-hosts/."""

    BINARY = "firefox-esr"
    TITLE_SUFFIX = " — Mozilla Firefox"
    PRIVATE_SUFFIX = " — Mozilla Firefox Private Browsing"

    def __init__(self, root, display, host, marionette_port):
        self.root = Path(root)
        self.display = display
        self.home = self.root / "firefox-home"
        hosts = self.home / ".mozilla" / "native-messaging-hosts"
        hosts.mkdir(parents=True)
        (hosts / f"{HOST_NAME}.json").write_text(host.manifest("firefox"))
        self.profile = self.root / "firefox-profile"
        self.profile.mkdir()
        prefs = dict(FIREFOX_PREFS, **{"marionette.port": marionette_port})
        (self.profile / "user.js").write_text(
            "".join(f'user_pref("{k}", {json.dumps(v)});\n' for k, v in prefs.items()))
        env = dict(display.env, HOME=str(self.home), MOZ_CRASHREPORTER_DISABLE="1")
        self.bus = desktop_session(self.root / "firefox-session", env, self.home)
        self.log = open(self.root / "firefox.log", "wb")
        # -remote-allow-system-access: Marionette may then navigate to the
        # extension's own options page (moz-extension://), refused without it.
        self.proc = self.marionette = None
        try:
            self.proc = start([self.BINARY, "--marionette", "-remote-allow-system-access", "--no-remote",
                               "--profile", str(self.profile), "--new-instance", "about:blank"],
                              env=env, stdout=self.log, stderr=self.log)
            self.marionette = Marionette(marionette_port)
            self.marionette.call("WebDriver:NewSession", capabilities={})
            self.addon = self.marionette.call("Addon:Install", path=str(EXTENSION), temporary=True)
        except BaseException:
            self.close()
            raise

    def open(self, url):
        """A new tab with `url`, selected in the current window. Returns its handle."""
        handle = self.marionette.call("WebDriver:NewWindow", type="tab")["handle"]
        self.marionette.call("WebDriver:SwitchToWindow", handle=handle, focus=True)
        self.marionette.call("WebDriver:Navigate", url=url)
        self.last_opened = handle
        return handle

    def navigate(self, url):
        """Loads `url` in the tab opened last (the same tab, a new page)."""
        self.marionette.call("WebDriver:SwitchToWindow", handle=self.last_opened, focus=True)
        self.marionette.call("WebDriver:Navigate", url=url)

    def close_tab(self, handle):
        self.marionette.call("WebDriver:SwitchToWindow", handle=handle, focus=True)
        self.marionette.call("WebDriver:CloseWindow")
        rest = self.marionette.call("WebDriver:GetWindowHandles")
        if rest:
            self.marionette.call("WebDriver:SwitchToWindow", handle=rest[-1], focus=True)

    def open_private(self, url):
        """A private window with `url`; returns its handle."""
        handle = self.marionette.call("WebDriver:NewWindow", type="window", private=True)["handle"]
        self.marionette.call("WebDriver:SwitchToWindow", handle=handle, focus=True)
        self.marionette.call("WebDriver:Navigate", url=url)
        self.private = handle
        return handle

    def close_private(self):
        self.close_tab(self.private)

    def in_options_page(self, expression):
        """The value of the JavaScript `expression` (a promise is awaited)
        evaluated in the extension's options page."""
        handle = self.open(f"moz-extension://{FIREFOX_UUID}/options.html")
        try:
            return self.marionette.call("WebDriver:ExecuteScript", args=[], scriptTimeout=WAIT * 1000,
                                        script=f"return {expression.strip()};")
        finally:
            self.close_tab(handle)

    def options_page_add_site(self, site):
        return self.in_options_page(f"{OPTIONS_SCRIPT.strip()}({json.dumps(site)}, true)")

    def options_page_remove_site(self, site):
        return self.in_options_page(f"{OPTIONS_SCRIPT.strip()}({json.dumps(site)}, false)")

    def tab_urls(self):
        """The URL of every tab (Marionette's window handles are tabs)."""
        current = self.marionette.call("WebDriver:GetWindowHandle")
        urls = []
        for handle in self.marionette.call("WebDriver:GetWindowHandles"):
            self.marionette.call("WebDriver:SwitchToWindow", handle=handle, focus=False)
            urls.append(self.marionette.call("WebDriver:GetCurrentURL"))
        self.marionette.call("WebDriver:SwitchToWindow", handle=current, focus=False)
        return urls

    def close(self):
        try:
            if self.marionette:
                self.marionette.close()
        except Exception:
            pass
        stop(self.proc)
        self.bus.close()
        self.log.close()
