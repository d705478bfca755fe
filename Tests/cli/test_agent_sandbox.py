# SPDX-License-Identifier: MIT OR Apache-2.0
"""An app in a sandbox, as Flatpak runs one (README "Sandboxed apps"): under
bubblewrap with no network (its own network, pid, ipc and user namespaces),
a read-only /usr, a private /tmp, the account's folder read-only, and a
runtime directory holding only the agent's folder (`handoff/agent.sock`),
which is what `--filesystem=xdg-run/handoff` gives a Flatpak. The app (the
Python binding's examples/agent/agent_app.py) finds the agent at
`$XDG_RUNTIME_DIR/handoff/agent.sock` by itself and hands off through it
both ways: what it offers is continued on another device, and what another
device offers it continues. The agent, outside, checks the app's uid with
SO_PEERCRED across the user namespace."""

import os
import shutil
from pathlib import Path

import pytest

from agent_desktop import LIBRARY, TEAM, Desktop, json_lines, wait_for
from cli_support import ROOT, Process, loopback, publish
from test_agent_e2e import app_event, start_agent, start_plain_agent

TYPE = "com.example.sandbox.edit"
BUNDLE = "org.example.Sandboxed"
APP_DIRS = [ROOT / "bindings" / "python", ROOT / "examples" / "agent"]


def sandboxed(command, runtime_dir, config_dir, out_dir):
    """`command` under bwrap: what it can see is listed here, nothing else.
    `runtime_dir` becomes its XDG_RUNTIME_DIR (/run/user/UID), `config_dir`
    its XDG_CONFIG_HOME (read-only), `out_dir` the writable /out."""
    assert shutil.which("bwrap"), "bwrap is not installed: sh scripts/install-deps.sh"
    run = f"/run/user/{os.getuid()}"
    args = ["bwrap", "--unshare-user", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--clearenv",
            "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for top in sorted(Path("/").glob("lib*")) + [Path("/bin")]:
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    for folder in APP_DIRS + [LIBRARY.parent]:
        args += ["--ro-bind", str(folder), str(folder)]
    args += ["--ro-bind", str(config_dir), "/config", "--bind", str(out_dir), "/out",
             "--tmpfs", "/run", "--dir", run, "--bind", str(runtime_dir / "handoff"), f"{run}/handoff",
             "--setenv", "PATH", "/usr/bin", "--setenv", "HOME", "/tmp", "--setenv", "LC_ALL", "C",
             "--setenv", "XDG_RUNTIME_DIR", run, "--setenv", "XDG_CONFIG_HOME", "/config",
             "--setenv", "HANDOFF_LIBRARY", str(LIBRARY), "--"]
    return args + command


def runtime_dir(tmp_path):
    """A stand-in for /run/user/UID: the agent makes handoff/ in it."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    return runtime


def start_sandboxed_app(device, runtime_dir, out_dir, *extra):
    """agent_app.py in the sandbox, in mode AGENT; its log is out_dir/app.jsonl."""
    # What --filesystem=xdg-run/handoff shows a Flatpak: the socket alone.
    assert os.listdir(runtime_dir / "handoff") == ["agent.sock"]
    out_dir.mkdir()
    command = ["/usr/bin/python3", str(ROOT / "examples" / "agent" / "agent_app.py"), "--log", "/out/app.jsonl",
               "--bundle", BUNDLE, "--team", TEAM, f"--type={TYPE}", "--seconds", "120", *extra]
    app = Process(sandboxed(command, runtime_dir, device.config, out_dir), os.environ)
    device.procs.append(app)
    log = out_dir / "app.jsonl"

    def connected():
        event = next((e for e in json_lines(log) if e["event"] == "connected"), None)
        assert event or app.proc.poll() is None, f"the sandboxed app ended: {app.stderr}"
        return event

    assert wait_for(connected, "the sandboxed app connected")["mode"] == "AGENT"
    return app, log


def test_the_sandbox_sees_no_network_and_only_the_agents_folder(pair, tmp_path):
    """The sandbox is what the other tests rely on: loopback only, down,
    and a runtime directory with nothing but the agent's socket."""
    a, _ = pair
    runtime = tmp_path / "run"
    (runtime / "handoff").mkdir(parents=True)
    (runtime / "handoff" / "agent.sock").touch()
    (runtime / "outside").touch()
    out = tmp_path / "out"
    out.mkdir()
    probe = ("import os, socket; print(sorted(n for _, n in socket.if_nameindex()));"
             "print(sorted(os.listdir(os.environ['XDG_RUNTIME_DIR'])), os.listdir(os.environ['XDG_RUNTIME_DIR'] + '/handoff'));"
             "s = socket.socket(); s.settimeout(5)\n"
             "try:\n s.connect(('127.0.0.1', 9)); print('connected')\n"
             "except OSError as e:\n print('refused', e.errno)")
    seen = Process(sandboxed(["/usr/bin/python3", "-c", probe], runtime, a.config, out), os.environ)
    assert seen.wait() == 0, seen.stderr
    assert seen.lines[0] == "['lo']"
    assert seen.lines[1] == "['handoff'] ['agent.sock']"
    assert seen.lines[2].startswith("refused"), seen.lines


def test_a_sandboxed_apps_activity_is_continued_on_another_device(pair, ports, tmp_path):
    a, b = pair
    runtime = runtime_dir(tmp_path)
    agent = start_plain_agent(a, runtime / "handoff" / "agent.sock", ports[0], ports[1])
    app, log = start_sandboxed_app(a, runtime, tmp_path / "out", "--advertise", TYPE,
                                   "--info", "note=from the sandbox")
    advertised = app_event(log, "advertising")["id"]

    result = b.run("--json", "continue", advertised, "--type", TYPE, *loopback(ports[1], ports[0]))
    assert result.code == 0, result
    activity = result.json()
    assert activity["type"] == TYPE and activity["device"]["name"] == "Device A", activity
    assert activity["user_info"] == {"note": "from the sandbox"}, activity
    app_event(log, "was_continued", id=advertised)
    # The agent took the app's HELLO: its uid passed SO_PEERCRED.
    agent.expect_stderr(f'"bundle":"{BUNDLE}"')
    assert app.proc.poll() is None


def test_a_sandboxed_app_continues_what_another_device_offers(pair, ports, tmp_path, procs):
    a, b = pair
    desktop = Desktop(tmp_path / "desktop", procs)
    runtime = runtime_dir(tmp_path)
    socket_path = runtime / "handoff" / "agent.sock"
    start_agent(a, desktop, socket_path, ports[0], ports[1])
    _, log = start_sandboxed_app(a, runtime, tmp_path / "out")

    sender, published = publish(b, ports[1], ports[0], "--type", TYPE, "--title", "Draft 9",
                                "--info", "note=to the sandbox")
    app_event(log, "available", type=TYPE, title="Draft 9")
    desktop.click(desktop.notified("Draft 9")["id"])
    restored = app_event(log, "continue", type=TYPE)
    assert restored["title"] == "Draft 9" and restored["user_info"] == {"note": "to the sandbox"}, restored
    sender.event("continued", id=published["id"])


@pytest.fixture(autouse=True)
def _library_built():
    assert LIBRARY.exists(), f"{LIBRARY} is not built: make lib"
