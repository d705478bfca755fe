# SPDX-License-Identifier: MIT OR Apache-2.0
"""Documents between two devices (docs/PROTOCOL.md §12, docs/documents.md):
network namespaces a and b on a veth pair, each device with its own home.
An activity naming a file of A's home is continued on B: B's app gets the
URL of B's own copy of the document, or of the sender's bytes brought
along beside it, never a path of A."""

import hashlib
import os
import shutil
import tempfile
import urllib.parse
from pathlib import Path

import pytest

import netns
from cli_support import pair_of_devices

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
    base = Path(__file__).resolve().parents[2] / "build"
    base.mkdir(exist_ok=True)
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
