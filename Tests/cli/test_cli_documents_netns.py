# SPDX-License-Identifier: MIT OR Apache-2.0
"""Documents between two devices (docs/PROTOCOL.md §12, docs/documents.md):
network namespaces a and b on a veth pair, each device with its own home.
An activity naming a file of A's home is continued on B: B's app gets the
URL of B's own copy of the document, or of the sender's bytes brought
along beside it, never a path of A."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import tempfile
import urllib.parse
from pathlib import Path

import pytest

import netns
from cli_support import SCRATCH, pair_of_devices

PREFIX = "hdoc-"
KEY = "NSUserActivityDocumentURLKey"


@pytest.fixture(scope="module")
def hosts():
    netns.require()
    with netns.Namespaces(PREFIX) as space:
        names = space.veth(("a", "b"))
        for number, x in enumerate(("a", "b"), start=1):
            netns.address(names[x], f"{netns.subnet(216)}.{number}/24")
        netns.wait_up([names["a"], names["b"]])
        yield names


def file_url(path):
    return "file://" + urllib.parse.quote(str(path))


def path_of(url):
    assert url.startswith("file://"), url
    return urllib.parse.unquote(url[len("file://"):])


@pytest.fixture
def scratch():
    """A folder for the homes outside /tmp, whose files are never
    described (temporary files: docs/documents.md §2); always removed."""
    base = SCRATCH
    base.mkdir(parents=True, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="test-homes-", dir=base))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def homes(scratch, a, b):
    """Gives A and B a home each."""
    for device in (a, b):
        home = scratch / f"home-{device.name}"
        home.mkdir()
        device.env["HOME"] = str(home)
        device.home = home
    return a.home, b.home


def continue_document(a, b, url, *extra):
    """A publishes an activity naming `url`; B continues it. B's result."""
    sender = a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "A document",
                     "--info", f"{KEY}:url={url}", "--info", "line:int=12", "--once", *extra)
    published = sender.event("publishing")
    seen = b.run("--json", "nearby", "--once", "--timeout", "40")
    assert seen.code == 0, seen
    return b.run("--json", "continue", published["id"])


def document_of(result):
    assert result.code == 0, result
    info = result.json()["user_info"]
    url = info[KEY]
    url = url["$url"] if isinstance(url, dict) else url
    origins = info["HandoffDocumentOrigins"]
    assert list(origins) == [url], info
    return path_of(url), origins[url], info


def test_the_same_file_in_the_other_home(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    for home in (home_a, home_b):
        (home / "notes").mkdir()
        (home / "notes" / "plan été.txt").write_text("the plan\n")
    path, origin, info = document_of(continue_document(a, b, file_url(home_a / "notes" / "plan été.txt")))
    assert path == str(home_b / "notes" / "plan été.txt") and origin == "same"
    assert info["line"] == 12
    assert str(home_a) not in repr(info)


def test_a_missing_file_is_brought_byte_for_byte(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    (home_a / "notes").mkdir()
    content = os.urandom(3 << 20)
    (home_a / "notes" / "scan.pdf").write_bytes(content)
    path, origin, _ = document_of(continue_document(a, b, file_url(home_a / "notes" / "scan.pdf")))
    assert path == str(home_b / "Downloads" / "Handoff" / "scan (from Device A).pdf") and origin == "brought"
    assert hashlib.sha256(open(path, "rb").read()).digest() == hashlib.sha256(content).digest()
    # Nothing else was written: no temporary file left.
    assert sorted(p.name for p in (home_b / "Downloads" / "Handoff").iterdir()) == ["scan (from Device A).pdf"]


def test_a_conflicting_file_is_never_overwritten(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    for home, text in ((home_a, "version two\n"), (home_b, "version one\n")):
        (home / "notes").mkdir()
        (home / "notes" / "plan.txt").write_text(text)
    path, origin, _ = document_of(continue_document(a, b, file_url(home_a / "notes" / "plan.txt")))
    assert path == str(home_b / "notes" / "plan (from Device A).txt") and origin == "brought"
    assert (home_b / "notes" / "plan.txt").read_text() == "version one\n"
    assert open(path).read() == "version two\n"


def test_a_document_over_the_limit_is_refused_with_its_size(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    (home_a / "big.bin").write_bytes(b"x" * (2 << 20))
    assert b.run("settings", "documents", "max-size", "1048576").code == 0
    result = continue_document(a, b, file_url(home_a / "big.bin"))
    assert result.code == 1, result
    assert "big.bin" in result.err and "2.0 MiB" in result.err and "1.0 MiB" in result.err, result
    assert not any(home_b.rglob("*")), list(home_b.rglob("*"))


def syncthing_folder(device, config_dir, folder_id, path):
    """A real config.xml, as Debian's Syncthing writes it (`syncthing
    generate`), whose default folder is `folder_id` at `path`."""
    if not shutil.which("syncthing"):
        pytest.skip("syncthing is not installed (scripts/install-deps.sh installs it)")
    config_dir.parent.mkdir(parents=True, exist_ok=True)
    generated = subprocess.run(["syncthing", "generate", f"--home={config_dir}"], env=device.env,
                               capture_output=True, text=True, timeout=120)
    assert generated.returncode == 0, generated
    config = config_dir / "config.xml"
    text = config.read_text()
    default = re.search(r'<folder id="default"[^>]*path="([^"]*)"', text)
    assert default, text[:500]
    text = text.replace('<folder id="default"', f'<folder id="{folder_id}"', 1)
    text = text.replace(f'path="{default.group(1)}"', f'path="{path}"', 1)
    config.write_text(text)
    path.mkdir(parents=True, exist_ok=True)


def inotify_watches(pid):
    """The inodes process `pid` watches with inotify (/proc/PID/fdinfo)."""
    inodes = set()
    for info in Path(f"/proc/{pid}/fdinfo").glob("*"):
        try:
            text = info.read_text()
        except OSError:
            continue
        inodes.update(int(m, 16) for m in re.findall(r"^inotify wd:\S+ ino:([0-9a-f]+)", text, re.M))
    return inodes


def test_a_syncthing_folder_at_another_path(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    # One folder ID, a different place on each device; the old and the new
    # place of Syncthing's configuration.
    syncthing_folder(a, home_a / ".local" / "state" / "syncthing", "abcd-1234", home_a / "Sync")
    syncthing_folder(b, home_b / ".config" / "syncthing", "abcd-1234", home_b / "Documents" / "Synced")
    for folder in (home_a / "Sync", home_b / "Documents" / "Synced"):
        (folder / "notes").mkdir()
        (folder / "notes" / "plan.odt").write_bytes(b"PK the plan")
    path, origin, info = document_of(continue_document(a, b, file_url(home_a / "Sync" / "notes" / "plan.odt")))
    assert path == str(home_b / "Documents" / "Synced" / "notes" / "plan.odt") and origin == "same"
    assert str(home_a) not in repr(info)


def test_a_sync_catching_up_is_waited_for(hosts, tmp_path, scratch, procs):
    a, b = pair_of_devices(tmp_path, procs, netns=(hosts["a"], hosts["b"]))
    home_a, home_b = homes(scratch, a, b)
    syncthing_folder(a, home_a / ".local" / "state" / "syncthing", "abcd-1234", home_a / "Sync")
    syncthing_folder(b, home_b / ".config" / "syncthing", "abcd-1234", home_b / "Synced")
    assert b.run("settings", "documents", "sync-wait", "60").code == 0
    (home_a / "Sync" / "plan.txt").write_text("version two\n")
    (home_b / "Synced" / "plan.txt").write_text("version one\n")
    sender = a.spawn("--json", "publish", "--type", "com.example.cli.edit", "--title", "A document",
                     "--info", f"{KEY}:url={file_url(home_a / 'Sync' / 'plan.txt')}", "--once")
    published = sender.event("publishing")
    assert b.run("--json", "nearby", "--once", "--timeout", "40").code == 0
    receiver = b.spawn("--json", "continue", published["id"])
    # Once B watches its Syncthing folder, the sync "arrives": written
    # beside, then renamed into place, as Syncthing does.
    folder = os.stat(home_b / "Synced").st_ino
    for _ in range(400):
        if folder in inotify_watches(receiver.proc.pid):
            break
        assert receiver.proc.poll() is None, receiver.stderr
        time.sleep(0.05)
    else:
        pytest.fail("B never watched its Syncthing folder")
    (home_b / "Synced" / ".syncthing.plan.txt.tmp").write_text("version two\n")
    os.rename(home_b / "Synced" / ".syncthing.plan.txt.tmp", home_b / "Synced" / "plan.txt")
    assert receiver.wait() == 0, receiver.stderr
    continued = json.loads("\n".join(receiver.lines))
    url = continued["user_info"][KEY]["$url"]
    assert path_of(url) == str(home_b / "Synced" / "plan.txt")
    assert continued["user_info"]["HandoffDocumentOrigins"] == {url: "synced"}
    assert sorted(p.name for p in (home_b / "Synced").iterdir()) == ["plan.txt"]
