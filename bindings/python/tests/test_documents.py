# SPDX-License-Identifier: MIT OR Apache-2.0
"""Documents through the binding (docs/documents.md section 6): the keys,
Document following its file as editors rename, replace and delete it (in
dispatch, on this thread, woken by the application fd: its wake-ups are
counted), start/stop_accessing, and Info.plists declaring document types
written by plistlib, XML and binary, loaded from real files."""

import os
import plistlib
import select

import pytest

import handoff
from handoff import (DOCUMENT_ORIGINS_KEY, DOCUMENT_URL_KEY, Application, Document, HandoffError,
                     Manifest, Status, URL)

TYPE = "com.example.editor.document"


@pytest.fixture
def app():
    application = Application(Manifest("com.example.editor", "TEAM1", [TYPE]))
    yield application
    application.close()


def wake_ups_until(app, done, limit=10):
    """Dispatches at each wake-up of the application fd (each wait at most
    5 s) until `done()`; the wake-ups counted."""
    count = 0
    while not done() and count < limit:
        readable, _, _ = select.select([app], [], [], 5.0)
        if not readable:
            break
        count += 1
        app.dispatch()
    return count


def quiet(app):
    """True when the fd stays unreadable after what was left ran."""
    for _ in range(4):
        if not select.select([app], [], [], 0)[0]:
            return True
        app.dispatch()
    return not select.select([app], [], [], 0)[0]


def test_keys_are_apples_and_the_headers():
    assert DOCUMENT_URL_KEY == "NSUserActivityDocumentURLKey"
    assert DOCUMENT_ORIGINS_KEY == "HandoffDocumentOrigins"
    assert {"Document", "DOCUMENT_URL_KEY", "DOCUMENT_ORIGINS_KEY"} <= set(handoff.__all__)


def test_a_document_is_current_with_its_url_and_name(app, tmp_path):
    path = tmp_path / "My plan.odt"
    path.write_text("v1")
    with Document(app, TYPE, path) as doc:
        assert doc.activity.title == "My plan.odt"
        url = doc.activity.user_info[DOCUMENT_URL_KEY]
        assert isinstance(url, URL)
        assert url == "file://" + str(tmp_path).replace(" ", "%20") + "/My%20plan.odt"
        assert app.current_activity is doc.activity
        if not os.path.exists("/.flatpak-info"):
            assert app.start_accessing(url) == str(path)  # the URL reads back as the file's path
    assert doc.closed
    assert app.current_activity is None


def test_it_follows_renames_replacements_and_deletion(app, tmp_path):
    (tmp_path / "a.txt").write_text("v1")
    doc = Document(app, TYPE, str(tmp_path / "a.txt"))
    activity = doc.activity

    os.rename(tmp_path / "a.txt", tmp_path / "b.txt")
    assert select.select([app], [], [], 5.0)[0]
    assert activity.title == "a.txt", "nothing changes outside dispatch"
    wake_ups = wake_ups_until(app, lambda: activity.title == "b.txt")
    assert activity.user_info[DOCUMENT_URL_KEY] == f"file://{tmp_path}/b.txt"

    # Saved as editors save: a temporary file renamed over it; the new file
    # is the one followed afterwards.
    (tmp_path / ".b.txt.swp").write_text("v2")
    os.rename(tmp_path / ".b.txt.swp", tmp_path / "b.txt")
    assert select.select([app], [], [], 5.0)[0]
    wake_ups += 1
    app.dispatch()
    os.rename(tmp_path / "b.txt", tmp_path / "c.txt")
    wake_ups += wake_ups_until(app, lambda: activity.title == "c.txt")
    assert activity.user_info[DOCUMENT_URL_KEY] == f"file://{tmp_path}/c.txt"
    assert wake_ups <= 4, wake_ups
    assert quiet(app)

    os.unlink(tmp_path / "c.txt")
    wake_ups_until(app, lambda: app.current_activity is None)
    assert app.current_activity is None
    (tmp_path / "c.txt").write_text("v3")
    doc.saved()
    assert app.current_activity is activity
    doc.close()
    assert activity.is_invalidated


def test_edited_and_saved(app, tmp_path):
    from handoff import _ffi
    (tmp_path / "e.txt").write_text("v1")
    with Document(app, TYPE, tmp_path / "e.txt") as doc:
        doc.edited()
        assert doc.activity.needs_save
        doc.saved()
        assert not doc.activity.needs_save
    with pytest.raises(ValueError):
        doc.edited()
    assert _ffi.DocumentPtr


def test_errors(app, tmp_path):
    with pytest.raises(HandoffError) as error:
        Document(app, TYPE, tmp_path / "absent")
    assert error.value.code == Status.NOT_FOUND
    with pytest.raises(HandoffError) as error:
        Document(app, TYPE, tmp_path)
    assert error.value.code == Status.INVALID_VALUE
    with pytest.raises(HandoffError) as error:
        app.start_accessing("https://example.com/plan.odt")
    assert error.value.code == Status.INVALID_ARGUMENT
    with pytest.raises(HandoffError) as error:
        app.stop_accessing("file://elsewhere/plan.odt")
    assert error.value.code == Status.INVALID_ARGUMENT


@pytest.mark.skipif(os.path.exists("/.flatpak-info"), reason="inside a Flatpak sandbox the agent answers (Tests/cli/test_document_portal.py)")
def test_start_accessing_outside_a_sandbox_is_the_urls_path(app):
    assert app.start_accessing("file:///home/ada/My%20plan.odt") == "/home/ada/My plan.odt"
    app.stop_accessing("file:///home/ada/My%20plan.odt")


EDITOR_PLIST = {
    "CFBundleIdentifier": "com.example.TextEditor",
    "HandoffTeamIdentifier": "A1B2C3D4E5",
    "NSUserActivityTypes": ["com.example.TextEditor.browse"],
    "CFBundleDocumentTypes": [
        {"CFBundleTypeName": "Rich Text", "LSItemContentTypes": ["public.rtf"], "CFBundleTypeExtensions": ["rtf"],
         "NSUbiquitousDocumentUserActivityType": "com.example.TextEditor.rtf"},
        {"CFBundleTypeName": "PDF", "CFBundleTypeRole": "Viewer", "LSItemContentTypes": ["com.adobe.pdf"]},
        {"CFBundleTypeName": "Broken", "NSUbiquitousDocumentUserActivityType": 7},
    ],
}


@pytest.mark.parametrize("form", [plistlib.FMT_XML, plistlib.FMT_BINARY])
def test_an_info_plist_declares_its_document_types(tmp_path, form):
    path = tmp_path / "Info.plist"
    path.write_bytes(plistlib.dumps(EDITOR_PLIST, fmt=form))
    manifest = Manifest.from_info_plist(path)
    assert manifest.activity_types == ("com.example.TextEditor.browse", "com.example.TextEditor.rtf")
    assert manifest.declares("com.example.TextEditor.rtf")
    assert any("CFBundleDocumentTypes[2].NSUbiquitousDocumentUserActivityType" in w for w in manifest.warnings)
