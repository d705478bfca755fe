# SPDX-License-Identifier: MIT OR Apache-2.0
"""A Flatpak app opens a continued document through the real document
portal (docs/documents.md §6 "Security-scoped access", docs/agent.md §3
"Documents for a sandboxed app"). A private session bus (dbus-daemon) with
xdg-document-portal on it, its FUSE file system mounted in a runtime
directory of the test's own; device A's agent outside every sandbox; the
app (Tests/cli/portal_app.py, through the Python binding) under bubblewrap
as Flatpak runs one: /.flatpak-info bound in, the person's home hidden, the
portal's by-app/APPID view bound at the portal's mount point, the agent's
socket bound in. Device B (a second `handoff` process on loopback) offers
an activity naming a file of its home; the app continues it (the agent
brings the bytes to A's home), asks for access, reads the file's bytes
through the path it gets, asks for a file of A's home it was never given
(refused, and nothing of it exported), stops, and can no longer read it."""

import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

import children
from private_bus import BUS_TAG, PrivateBus
from agent_desktop import LIBRARY, TEAM, json_lines, wait_for
from cli_support import ROOT, SCRATCH, Process, publish
from test_agent_e2e import start_plain_agent

PORTAL = "/usr/libexec/xdg-document-portal"
APP_ID = "org.example.PortalTest"
TYPE = "com.example.portal.edit"
KEY = "NSUserActivityDocumentURLKey"
E_PERMISSION = 11
E_INVALID_STATE = 8


def file_url(path):
    """As g_filename_to_uri writes it (docs/documents.md §6)."""
    return "file://" + urllib.parse.quote(str(path), safe="/:@!$&'()*+,;=")


def mounted(path):
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == str(path) for line in f)


@pytest.fixture
def runtime(tmp_path):
    """XDG_RUNTIME_DIR for this test: a private session bus in it, and the
    document portal mounted at doc/. Everything stopped and unmounted after."""
    for tool in ("bwrap", "dbus-daemon", "fusermount3"):
        assert shutil.which(tool), f"{tool} is not installed: sh scripts/install-deps.sh"
    assert os.path.exists(PORTAL), f"{PORTAL} is missing: sh scripts/install-deps.sh (xdg-desktop-portal)"
    assert os.path.exists("/dev/fuse"), "/dev/fuse is missing: the document portal needs FUSE"
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    doc = run / "doc"
    bus = PrivateBus(run)
    portal = None
    try:
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=bus.address, XDG_RUNTIME_DIR=str(run),
                   **{BUS_TAG: bus.token})
        log = tmp_path / "portal.log"
        with open(log, "w") as out:
            portal = children.track(subprocess.Popen([PORTAL, "--replace", "--verbose"], env=env, stdin=subprocess.DEVNULL,
                                                     stdout=out, stderr=out))
        wait_for(lambda: mounted(doc) or portal.poll() is not None, "xdg-document-portal mounts doc/")
        assert mounted(doc), f"xdg-document-portal ended without mounting its file system: {log.read_text()}"
        yield run, env
    finally:
        # Asked to end, the portal unmounts its file system itself; the
        # bus's close kills what is left and undoes any mount under run/.
        if portal is not None:
            portal.terminate()
            try:
                portal.wait(timeout=10)
            except subprocess.TimeoutExpired:
                children.kill(portal)
        bus.close()
        assert not mounted(doc), "the portal's file system is still mounted"


@pytest.fixture
def homes(tmp_path):
    """A home per device outside /tmp (files in /tmp are never described)."""
    base = SCRATCH
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="test-portal-homes-", dir=base))
    yield path / "a", path / "b"
    shutil.rmtree(path, ignore_errors=True)


def flatpak(command, run, home, tmp_path, config):
    """`command` as Flatpak runs an app: its own namespaces, no network,
    /.flatpak-info naming APP_ID, the home a tmpfs, the runtime directory
    (the same path as outside) holding only the agent's folder and the
    portal's view for this app at the portal's mount point."""
    info = tmp_path / "flatpak-info"
    info.write_text(f"[Application]\nname={APP_ID}\nruntime=runtime/org.example.Platform/x86_64/1\n")
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    args = ["bwrap", "--unshare-user", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--clearenv",
            "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for top in sorted(Path("/").glob("lib*")) + [Path("/bin")]:
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    for folder in (ROOT / "bindings" / "python", ROOT / "Tests" / "cli", LIBRARY.parent):
        args += ["--ro-bind", str(folder), str(folder)]
    args += ["--ro-bind", str(info), "/.flatpak-info", "--ro-bind", str(config), "/config", "--bind", str(out), "/out",
             "--tmpfs", str(home), "--dir", str(run), "--bind", str(run / "handoff"), str(run / "handoff"),
             "--bind", str(run / "doc" / "by-app" / APP_ID), str(run / "doc"),
             "--setenv", "PATH", "/usr/bin", "--setenv", "HOME", str(home), "--setenv", "LC_ALL", "C",
             "--setenv", "XDG_RUNTIME_DIR", str(run), "--setenv", "XDG_CONFIG_HOME", "/config",
             "--setenv", "HANDOFF_LIBRARY", str(LIBRARY), "--"]
    return args + command, out


def run_app(run, home, tmp_path, config, *extra):
    bundle = [] if "--bundle" in extra else ["--bundle", APP_ID]
    command = ["/usr/bin/python3", str(ROOT / "Tests" / "cli" / "portal_app.py"), "--log", "/out/app.jsonl",
               *bundle, "--team", TEAM, "--type", TYPE, "--seconds", "60", *extra]
    args, out = flatpak(command, run, home, tmp_path, config)
    app = Process(args, os.environ)
    try:
        assert app.proc.wait(timeout=90) == 0, app.stderr
    finally:
        app.kill()
    return {e["event"]: e for e in json_lines(out / "app.jsonl")}, json_lines(out / "app.jsonl")


def documents_in(doc):
    """The documents the portal holds (outside every sandbox): id → names."""
    return {d: os.listdir(doc / d) for d in os.listdir(doc) if d != "by-app"}


def export_entry(home, app_id=APP_ID, types=(TYPE,)):
    """The desktop entry Flatpak exports for an installed app (outside the
    sandbox, where the app cannot write), declaring its Handoff identity."""
    folder = home / ".local" / "share" / "flatpak" / "exports" / "share" / "applications"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{app_id}.desktop").write_text(
        f"[Desktop Entry]\nType=Application\nName=Portal test\nExec=/usr/bin/flatpak run {app_id}\n"
        f"X-Flatpak={app_id}\nX-Handoff-ActivityTypes={';'.join(types)};\nX-Handoff-TeamIdentifier={TEAM}\n")


def offer_a_document(a, b, ports, run, bus_env, home_a, home_b):
    """B offers a file A does not have; A's agent runs with the portal's
    bus; the copy A will be delivered (Downloads/Handoff) and its bytes."""
    (home_b / "notes").mkdir(parents=True)
    content = os.urandom(1000) + "the plan, été\n".encode()
    (home_b / "notes" / "plan été.txt").write_bytes(content)
    home_a.mkdir(exist_ok=True)
    b.env["HOME"] = str(home_b)
    agent_env = dict(a.env, HOME=str(home_a), DBUS_SESSION_BUS_ADDRESS=bus_env["DBUS_SESSION_BUS_ADDRESS"],
                     XDG_RUNTIME_DIR=str(run))
    start_plain_agent(a, run / "handoff" / "agent.sock", ports[0], ports[1], env=agent_env)
    publish(b, ports[1], ports[0], "--type", TYPE, "--title", "The plan",
            "--info", f"{KEY}:url={file_url(home_b / 'notes' / 'plan été.txt')}")
    return home_a / "Downloads" / "Handoff" / "plan été (from Device B).txt", content


def test_a_link_put_above_the_delivered_document_exports_nothing(pair, ports, tmp_path, runtime, homes):
    """An app allowed into Downloads turns the folder above its delivered
    document into a link to a folder of secrets holding a file of the same
    name: the agent refuses, and the portal holds nothing."""
    a, b = pair
    run, bus_env = runtime
    home_a, home_b = homes
    home_a.mkdir()
    export_entry(home_a)
    delivered, _ = offer_a_document(a, b, ports, run, bus_env, home_a, home_b)
    secrets = home_a / ".ssh"
    secrets.mkdir()
    go = tmp_path / "out" / "go"
    (tmp_path / "out").mkdir(exist_ok=True)

    def swap_when_continued():
        wait_for(lambda: (tmp_path / "out" / "app.jsonl").exists() and any(
            e["event"] == "continued" for e in json_lines(tmp_path / "out" / "app.jsonl")), "the app continued")
        (secrets / delivered.name).write_text("ssh-ed25519 AAAA the person's key\n")
        delivered.parent.rename(home_a / "Downloads" / "Handoff.old")
        (home_a / "Downloads" / "Handoff").symlink_to(secrets)
        go.touch()

    swapper = threading.Thread(target=swap_when_continued)
    swapper.start()
    try:
        events, lines = run_app(run, home_a, tmp_path, a.config, "--wait-for", "/out/go")
    finally:
        swapper.join(timeout=60)
    assert events["continued"]["url"] == file_url(delivered), lines
    assert events["start"]["ok"] is False and "link" in events["start"]["message"], lines
    assert documents_in(run / "doc") == {} and os.listdir(run / "doc" / "by-app" / APP_ID) == [], lines


def test_an_app_saying_it_is_another_is_delivered_but_opens_nothing(pair, ports, tmp_path, runtime, homes):
    """A sandboxed app announcing another bundle (whose types it claims
    too) is delivered that app's document, but the portal opens documents
    only for the app Flatpak installed as it."""
    a, b = pair
    run, bus_env = runtime
    home_a, home_b = homes
    home_a.mkdir()
    export_entry(home_a)
    export_entry(home_a, "org.example.Other")
    delivered, _ = offer_a_document(a, b, ports, run, bus_env, home_a, home_b)
    events, lines = run_app(run, home_a, tmp_path, a.config, "--bundle", "org.example.Other")
    assert events["continued"]["url"] == file_url(delivered), lines
    assert (events["start"]["ok"], events["start"]["code"]) == (False, E_PERMISSION), lines
    assert "Flatpak installed" in events["start"]["message"], lines
    assert documents_in(run / "doc") == {} and os.listdir(run / "doc" / "by-app" / APP_ID) == [], lines


def test_a_flatpak_app_opens_only_the_document_it_was_delivered(pair, ports, tmp_path, runtime, homes):
    a, b = pair
    run, bus_env = runtime
    home_a, home_b = homes
    (home_b / "notes").mkdir(parents=True)
    content = os.urandom(1000) + "the plan, été\n".encode()
    (home_b / "notes" / "plan été.txt").write_bytes(content)
    home_a.mkdir()
    export_entry(home_a)
    secret = home_a / "secret.txt"
    secret.write_text("not for the app\n")
    b.env["HOME"] = str(home_b)

    agent_env = dict(a.env, HOME=str(home_a), DBUS_SESSION_BUS_ADDRESS=bus_env["DBUS_SESSION_BUS_ADDRESS"],
                     XDG_RUNTIME_DIR=str(run))
    start_plain_agent(a, run / "handoff" / "agent.sock", ports[0], ports[1], env=agent_env)
    publish(b, ports[1], ports[0], "--type", TYPE, "--title", "The plan",
            "--info", f"{KEY}:url={file_url(home_b / 'notes' / 'plan été.txt')}")

    delivered = home_a / "Downloads" / "Handoff" / "plan été (from Device B).txt"
    forbidden = [file_url(secret), file_url(delivered.parent) + "/",
                 file_url(delivered.parent) + "/../../secret.txt", file_url(delivered.parent / ".." / "Handoff" / delivered.name)]
    events, lines = run_app(run, home_a, tmp_path, a.config, *[f"--forbidden={u}" for u in forbidden])

    assert events["continued"]["url"] == file_url(delivered), lines
    assert events["start"]["ok"], lines
    path = events["start"]["result"]
    doc_id = Path(path).parent.name
    assert path == f"{run}/doc/{doc_id}/{delivered.name}" and doc_id, lines
    # The app read the other device's bytes through the portal.
    assert bytes.fromhex(events["read"]["bytes"]) == content, lines
    # Never a file it was not delivered, whatever the URL's spelling: the
    # app sees that one document in the portal, nothing more.
    refusals = [e for e in lines if e["event"] == "forbidden"]
    assert [(e["ok"], e["code"]) for e in refusals] == [(False, E_PERMISSION)] * len(forbidden), refusals
    assert events["view"]["documents"] == [doc_id], lines
    assert events["stop"]["ok"], lines
    # Stopped: the agent's document is deleted from the portal (the file
    # stays), the app cannot read it any more.
    assert "bytes" not in events["after_stop"] and events["after_stop"]["errno"] > 0, lines
    assert os.listdir(run / "doc" / "by-app" / APP_ID) == []
    assert documents_in(run / "doc") == {}
    assert delivered.read_bytes() == content

    # Another connection (the same app started again) was delivered
    # nothing: the document is not its to open.
    (tmp_path / "out" / "app.jsonl").unlink()
    events, lines = run_app(run, home_a, tmp_path, a.config, "--mode", "ask", f"--forbidden={file_url(delivered)}")
    assert (events["start"]["ok"], events["start"]["code"]) == (False, E_PERMISSION), lines
    assert documents_in(run / "doc") == {}


def test_without_an_agent_a_sandboxed_app_is_told_it_needs_one(tmp_path, runtime, homes, device):
    run, _ = runtime
    home, _ = homes
    home.mkdir()
    (run / "handoff").mkdir()
    (run / "doc" / "by-app" / APP_ID).exists()  # the portal makes an app's view when it is looked up
    events, lines = run_app(run, home, tmp_path, device.config, "--mode", "none",
                            f"--forbidden={file_url(home / 'plan.txt')}")
    assert events["start"]["ok"] is False and events["start"]["code"] == E_INVALID_STATE, lines
    assert "agent" in events["start"]["message"], lines


@pytest.fixture(autouse=True)
def _library_built():
    assert LIBRARY.exists(), f"{LIBRARY} is not built: make lib"
