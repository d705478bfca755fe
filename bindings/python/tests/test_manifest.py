# SPDX-License-Identifier: MIT OR Apache-2.0
"""Manifests: built in code, or loaded from an Info.plist (XML or binary)."""

import plistlib

import pytest

from conftest import EXAMPLES
from handoff import HandoffError, Manifest, Status

TYPE = "com.example.myapp.create-shape"


def test_built_in_code():
    m = Manifest("com.example.myapp", "TEAM1", [TYPE, "com.example.myapp.edit", TYPE])
    assert m.bundle_identifier == "com.example.myapp" and m.team_identifier == "TEAM1"
    assert m.activity_types == (TYPE, "com.example.myapp.edit")  # declaration order, once
    assert m.declares(TYPE) and TYPE in m
    assert "com.example.other.type" not in m and 42 not in m
    m.declare("com.example.myapp.view")
    assert m.activity_types[-1] == "com.example.myapp.view"
    assert "TEAM1" in repr(m)


def test_bad_identifiers():
    for bundle, team in (("myapp", "TEAM1"), ("com.example.myapp", "TEAM-1"),
                         ("com.example.myapp", ""), ("com.example.myapp", "T" * 33)):
        with pytest.raises(HandoffError) as caught:
            Manifest(bundle, team)
        assert caught.value.code == Status.INVALID_VALUE, (bundle, team)
    m = Manifest("com.example.myapp", "TEAM1")
    with pytest.raises(HandoffError):
        m.declare("")
    with pytest.raises(HandoffError):
        m.declare("line\nbreak")
    m.declare("INSendMessageIntent")
    assert m.declares("INSendMessageIntent") and not m.declares("insendmessageintent")
    with pytest.raises(TypeError):
        Manifest("com.example.myapp", "TEAM1", TYPE)  # one str, not a list


def test_the_example_info_plist():
    m = Manifest.from_info_plist(EXAMPLES / "Info.plist")
    assert (m.bundle_identifier, m.team_identifier, m.activity_types) == (
        "com.example.myapp", "SHAPESDEMO", (TYPE,))


@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY], ids=["xml", "binary"])
def test_info_plist_files(tmp_path, fmt):
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps({"CFBundleIdentifier": "com.example.myapp",
                                     "AppIdentifierPrefix": "ABCDE12345.",
                                     "NSUserActivityTypes": [TYPE],
                                     "CFBundleName": "Shapes"}, fmt=fmt))
    m = Manifest.from_info_plist(path)  # a pathlib.Path
    assert m.team_identifier == "ABCDE12345" and m.declares(TYPE)
    same = Manifest.from_info_plist_bytes(path.read_bytes())
    assert same.activity_types == m.activity_types
    assert Manifest.from_info_plist(str(path)).bundle_identifier == "com.example.myapp"


def test_broken_info_plists(tmp_path):
    with pytest.raises(HandoffError) as caught:
        Manifest.from_info_plist(tmp_path / "missing.plist")
    assert caught.value.code == Status.IO
    for data in (b"not a plist", plistlib.dumps({"NSUserActivityTypes": [TYPE]}),
                 plistlib.dumps({"CFBundleIdentifier": 7, "HandoffTeamIdentifier": "T"})):
        with pytest.raises(HandoffError) as caught:
            Manifest.from_info_plist_bytes(data)
        assert caught.value.code == Status.MALFORMED_DATA, data
        assert caught.value.message
    with pytest.raises(TypeError):
        Manifest.from_info_plist_bytes("text")


@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY], ids=["xml", "binary"])
def test_entries_that_cannot_be_types_are_warnings(tmp_path, fmt):
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps({"CFBundleIdentifier": "com.example.myapp",
                                     "HandoffTeamIdentifier": "TEAM1",
                                     "NSUserActivityTypes": [TYPE, "", "INSendMessageIntent",
                                                             42, "ReadArticle"]}, fmt=fmt))
    m = Manifest.from_info_plist(path)
    assert m.activity_types == (TYPE, "INSendMessageIntent", "ReadArticle")
    warnings = m.warnings
    assert isinstance(warnings, list) and len(warnings) == 2, warnings
    assert all(isinstance(w, str) for w in warnings)
    assert str(path) in warnings[0] and "NSUserActivityTypes[1]" in warnings[0]
    assert "empty" in warnings[0]
    assert "NSUserActivityTypes[3]" in warnings[1] and "integer (42)" in warnings[1]
    m.declare("com.example.myapp.view")  # declaring adds no warning
    assert m.warnings == warnings
    from_bytes = Manifest.from_info_plist_bytes(path.read_bytes())
    assert len(from_bytes.warnings) == 2  # the same, naming "Info.plist" instead of the path
    for named_path, named_data in zip(warnings, from_bytes.warnings):
        assert named_data.startswith("Info.plist: NSUserActivityTypes[")
        assert named_path.endswith(named_data[len("Info.plist"):])


def test_what_apples_tools_accept_loads_with_warnings():
    """A key repeated in one dict (the last value wins, as plistlib reads it)
    and an NSUserActivityTypes written as a dict (no types)."""
    xml = (b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
           b"<key>CFBundleIdentifier</key><string>com.example.first</string>"
           b"<key>HandoffTeamIdentifier</key><string>TEAM1</string>"
           b"<key>NSUserActivityTypes</key><dict><key>a</key><string>b</string></dict>"
           b"<key>CFBundleIdentifier</key><string>com.example.last</string></dict></plist>")
    assert plistlib.loads(xml)["CFBundleIdentifier"] == "com.example.last"
    m = Manifest.from_info_plist_bytes(xml)
    assert m.bundle_identifier == "com.example.last"
    assert m.activity_types == ()
    assert len(m.warnings) == 2, m.warnings
    assert 'the key "CFBundleIdentifier" appears twice' in m.warnings[0]
    assert "NSUserActivityTypes is a dictionary of 1 keys, not an array" in m.warnings[1]


def test_no_warnings():
    assert Manifest("com.example.myapp", "TEAM1", [TYPE]).warnings == []
    assert Manifest.from_info_plist(EXAMPLES / "Info.plist").warnings == []


def test_web_domains():
    m = Manifest("com.example.myapp", "TEAM1")
    assert m.web_domains == ()
    m.declare_web_domain("Example.COM")
    m.declare_web_domain("*.docs.example.org")
    m.declare_web_domain("example.com")
    assert m.web_domains == ("example.com", "*.docs.example.org")
    for bad in ("", "https://example.com", "example.com:8080", "*example.com", "a..b"):
        with pytest.raises(HandoffError) as caught:
            m.declare_web_domain(bad)
        assert caught.value.code == Status.INVALID_VALUE, bad
    assert m.web_domains == ("example.com", "*.docs.example.org")
