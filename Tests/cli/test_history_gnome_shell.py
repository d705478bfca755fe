# SPDX-License-Identifier: MIT OR Apache-2.0
"""The history's search inside a real GNOME Shell (Debian's 43, headless,
Tests/support/gnome_shell.py), with the provider installed as `make
install` installs it (dist/search: its .ini and the Handoff History
entry). A person types a word in the overview: the shell asks B's agent,
and the entry appears under "Handoff History" with its title, and a line
naming the app by its name (not its bundle id), the device and when.
Activating it launches the app, which restores the saved activity.
Skipped without gnome-shell (the install script installs it)."""

import json
import shutil
from pathlib import Path

import pytest

import gnome_shell
from agent_desktop import Desktop, kill_apps, wait_for
from cli_support import TOOL
from test_agent_e2e import app_event
from test_history_search import BUNDLE, DEVICE, TYPE, History

pytestmark = pytest.mark.skipif(gnome_shell.available() is not None,
                                reason=f"no GNOME Shell here: {gnome_shell.available()}")

ROOT = Path(__file__).resolve().parents[2]
PROVIDER = "org.libhandoff.History.desktop"

# What the overview shows for a search: the provider's results as the
# shell laid them out, each with the meta the agent gave.
RESULTS = """(() => {
    const controls = imports.ui.main.overview._overview._controls;
    const provider = controls._searchController._searchResults._providers.find(p => p.id === %s);
    if (!provider || !provider.display) return null;
    const shown = Object.values(provider.display._resultDisplays).filter(r => r.visible && r.mapped);
    return shown.map(r => ({id: r.metaInfo.id, name: r.metaInfo.name, description: r.metaInfo.description}));
})()"""

ACTIVATE = """(() => {
    const controls = imports.ui.main.overview._overview._controls;
    const provider = controls._searchController._searchResults._providers.find(p => p.id === %s);
    provider.display._resultDisplays[%s].activate();
    return true;
})()"""


def install_provider(folder):
    """dist/search and the icons as `make install` puts them, with Exec
    naming the tool under test: a data folder for the shell's
    XDG_DATA_DIRS."""
    (folder / "gnome-shell" / "search-providers").mkdir(parents=True)
    (folder / "applications").mkdir(parents=True)
    shutil.copy(ROOT / "dist/search/org.libhandoff.History.search-provider.ini",
                folder / "gnome-shell" / "search-providers")
    entry = (ROOT / "dist/search" / PROVIDER).read_text()
    entry = entry.replace("/usr/local/bin/handoff", str(TOOL))
    (folder / "applications" / PROVIDER).write_text(entry)
    shutil.copytree(ROOT / "data/icons", folder / "icons")


def test_the_overview_finds_an_entry_by_word_shows_the_apps_name_and_continues_it(pair, ports, tmp_path, procs):
    root = tmp_path / "desktop"
    data = tmp_path / "shell-data"
    install_provider(data)
    (root / "data" / "applications").mkdir(parents=True)
    shell = gnome_shell.GnomeShell(tmp_path / "shell", servicedirs=[Desktop.services_folder(root)],
                                   env={"XDG_DATA_HOME": str(root / "data"), "XDG_DATA_DIRS": f"{data}:/usr/share"})
    procs.append(shell)
    desktop = Desktop(root, procs, fake=False, bus=shell.bus)
    app_log = tmp_path / "app.jsonl"
    desktop.install(BUNDLE, BUNDLE, [TYPE], app_log)
    history = History(pair[1], desktop, tmp_path, ports)
    history.serving()
    entry = history.add("Chapter three", keywords=["novel"], user_info={"page": "217"})
    history.add("Grocery list", keywords=["errands"])
    try:
        shell.search("novel")
        results = wait_for(lambda: shell.eval(RESULTS % json.dumps(PROVIDER)) or None,
                           f"Handoff History's results in the overview; the shell said: {shell.log_tail()}")
        screenshot(shell, "gnome-shell-history-search")
        assert [r["id"] for r in results] == [entry], results
        assert results[0]["name"] == "Chapter three", results
        # The app by the name its desktop entry gives, never the bundle id.
        assert results[0]["description"].startswith(f"E2E app · {DEVICE} · "), results
        assert BUNDLE not in results[0]["description"], results

        assert shell.eval(ACTIVATE % (json.dumps(PROVIDER), json.dumps(entry))) is True
        restored = app_event(app_log, "continue", type=TYPE)
        assert restored["title"] == "Chapter three" and restored["user_info"] == {"page": "217"}, restored
    finally:
        kill_apps(app_log)


def screenshot(shell, name):
    """Into /work/screens when that folder exists (a person looks at it;
    not part of the assertions)."""
    folder = Path("/work/screens")
    if folder.is_dir():
        shell.screenshot(folder / f"{name}.png")
