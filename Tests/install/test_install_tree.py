# SPDX-License-Identifier: MIT OR Apache-2.0
"""`make install` and `make uninstall` into temporary prefixes, with and
without DESTDIR: the layout and its links, the man pages and completions
where man and the shells find them, the manifest, a C program built
through pkg-config that runs with the line install printed, and an
uninstall that leaves the tree exactly as it was (the folders install
created gone, every folder that existed before kept, empty or not).
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from install_support import (HERE, ROOT, VERSION, build_c, export_line, install, make, readelf_dynamic, run, snapshot,
                             uninstall)


@pytest.fixture
def root():
    folder = Path(tempfile.mkdtemp(prefix="handoff-install-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# The man pages and completions: where install puts each (below the prefix),
# from which file of the repository. Debian's packaging relies on these paths.
DOCUMENTATION = {
    "share/man/man1/handoff.1": "man/handoff.1",
    "share/man/man1/handoff-agent.1": "man/handoff-agent.1",
    "share/bash-completion/completions/handoff": "completions/handoff.bash",
    "share/zsh/vendor-completions/_handoff": "completions/_handoff",
    "share/fish/vendor_completions.d/handoff.fish": "completions/handoff.fish",
    # The tray's icons, in the hicolor layout the agent's IconThemePath names.
    "share/icons/hicolor/scalable/apps/handoff.svg": "data/icons/hicolor/scalable/apps/handoff.svg",
    "share/icons/hicolor/scalable/status/handoff-available.svg": "data/icons/hicolor/scalable/status/handoff-available.svg",
    "share/icons/hicolor/scalable/status/handoff-paused.svg": "data/icons/hicolor/scalable/status/handoff-paused.svg",
    "share/icons/hicolor/symbolic/apps/handoff-symbolic.svg": "data/icons/hicolor/symbolic/apps/handoff-symbolic.svg",
}

# The GNOME Shell extension (docs/gnome-shell.md), in the variant the
# installed gnome-shell loads; not installed without one (mk/gnome-shell.sh).
GNOME_VARIANT = subprocess.run(["sh", str(ROOT / "mk" / "gnome-shell.sh"), "variant"], capture_output=True,
                               text=True, timeout=60).stdout.strip()
GNOME_EXTENSION = "share/gnome-shell/extensions/handoff@libhandoff.org"
GNOME_FOLDERS = ["share/gnome-shell/extensions", GNOME_EXTENSION, f"{GNOME_EXTENSION}/icons"] if GNOME_VARIANT else []


# The translations of po/LINGUAS, as mk/l10n.mk compiles them (docs/TRANSLATING.md).
LANGUAGES = [l.strip() for l in (ROOT / "po" / "LINGUAS").read_text().splitlines() if l.strip() and l[0] != "#"]
CATALOGUES = {f"share/locale/{lang}/LC_MESSAGES/handoff.mo": f"build/locale/{lang}/LC_MESSAGES/handoff.mo"
              for lang in LANGUAGES}


# The Neovim plugin: an nvim package below share/nvim/site, which nvim
# searches in every XDG data directory (docs/documents.md §8).
NVIM_PACKAGE = "share/nvim/site/pack/handoff/start/handoff"
NVIM_FOLDERS = ["share/nvim", "share/nvim/site", "share/nvim/site/pack", "share/nvim/site/pack/handoff",
                "share/nvim/site/pack/handoff/start", NVIM_PACKAGE, f"{NVIM_PACKAGE}/plugin", f"{NVIM_PACKAGE}/lua",
                f"{NVIM_PACKAGE}/lua/handoff", f"{NVIM_PACKAGE}/doc"]


def assert_nvim_plugin_installed(prefix):
    """Its files as in bridges/nvim, the help with its tags, and the
    plugin naming the installed command."""
    package = prefix / NVIM_PACKAGE
    for name in ("plugin/handoff.lua", "doc/handoff.txt", "doc/tags"):
        assert (package / name).read_bytes() == (ROOT / "bridges" / "nvim" / name).read_bytes(), name
    plugin = (package / "lua" / "handoff" / "init.lua").read_text()
    source = (ROOT / "bridges" / "nvim" / "lua" / "handoff" / "init.lua").read_text()
    assert plugin == source.replace("local PROGRAM = 'handoff'\n", f"local PROGRAM = [==[{prefix}/bin/handoff]==]\n")
    assert plugin != source


def assert_documentation_installed(top):
    for installed, source in {**DOCUMENTATION, **CATALOGUES}.items():
        path = top / installed
        assert path.read_bytes() == (ROOT / source).read_bytes(), installed
        assert path.stat().st_mode & 0o777 == 0o644, installed


def assert_search_installed(prefix):
    """The desktop's search of the history (docs/history.md): GNOME Shell's
    provider naming an entry it shows, KRunner's runner, and the bus service
    that starts the agent through its unit (else the installed command)."""
    share = prefix / "share"
    ini = (share / "gnome-shell" / "search-providers" / "org.libhandoff.History.search-provider.ini").read_text()
    for line in ("DesktopId=org.libhandoff.History.desktop", "BusName=org.libhandoff.History",
                 "ObjectPath=/org/libhandoff/History", "Version=2"):
        assert line + "\n" in ini, line
    entry = (share / "applications" / "org.libhandoff.History.desktop").read_text()
    assert f"Exec={prefix}/bin/handoff history\n" in entry and f"TryExec={prefix}/bin/handoff\n" in entry
    assert "\nNoDisplay=" not in entry  # GNOME Shell ignores the provider of an entry it hides
    runner = (share / "krunner" / "dbusplugins" / "org.libhandoff.History.desktop").read_text()
    assert "X-Plasma-API=DBus\n" in runner and "X-Plasma-DBusRunner-Service=org.libhandoff.History\n" in runner
    assert "X-Plasma-DBusRunner-Path=/org/libhandoff/History\n" in runner
    service = (share / "dbus-1" / "services" / "org.libhandoff.History.service").read_text()
    assert "Name=org.libhandoff.History\n" in service and "SystemdService=handoff-agent.service\n" in service
    assert f"Exec={prefix}/bin/handoff agent\n" in service
    assert (prefix / "lib" / "systemd" / "user" / "handoff-agent.service").is_file()  # the unit it names


def manifest_entries(prefix):
    lines = (prefix / "share" / "handoff" / "install-manifest").read_text().splitlines()
    return [tuple(line.split(" ", 1)) for line in lines if not line.startswith("#")]


def test_a_fresh_prefix_gets_the_library_its_links_and_a_manifest_then_uninstall_removes_it_all(root):
    (root / "unrelated").write_text("not ours\n")
    before = snapshot(root)
    prefix = root / "usr"
    out = install(f"PREFIX={prefix}")

    lib = prefix / "lib"
    assert os.readlink(lib / "libhandoff.so.0") == f"libhandoff.so.{VERSION}"
    assert os.readlink(lib / "libhandoff.so") == "libhandoff.so.0"
    assert readelf_dynamic(lib / f"libhandoff.so.{VERSION}", "SONAME") == ["libhandoff.so.0"]
    assert (prefix / "include" / "handoff.h").read_bytes() == (ROOT / "include" / "handoff.h").read_bytes()
    assert (prefix / "include" / "handoff-glib.h").read_bytes() == (ROOT / "include" / "handoff-glib.h").read_bytes()
    assert (prefix / "lib" / "systemd" / "user" / "handoff-agent.service").is_file()
    # The MPRIS bridge (docs/mpris.md): its unit and the entry the agent starts it by.
    bridge_unit = (prefix / "lib" / "systemd" / "user" / "handoff-mpris.service").read_text()
    assert f"ExecStart={prefix}/bin/handoff mpris-bridge\n" in bridge_unit
    entry = (prefix / "share" / "applications" / "org.libhandoff.media.desktop").read_text()
    assert f"Exec={prefix}/bin/handoff mpris-bridge\n" in entry and "X-Handoff-TeamIdentifier=LIBHANDOFF\n" in entry
    assert "X-Handoff-ActivityTypes=org.libhandoff.media.playing;\n" in entry and "NoDisplay=true\n" in entry
    # The documents bridge (docs/documents.md §7), alike.
    documents_unit = (prefix / "lib" / "systemd" / "user" / "handoff-documents.service").read_text()
    assert f"ExecStart={prefix}/bin/handoff documents-bridge\n" in documents_unit
    entry = (prefix / "share" / "applications" / "org.libhandoff.documents.desktop").read_text()
    assert f"Exec={prefix}/bin/handoff documents-bridge\n" in entry and "X-Handoff-TeamIdentifier=LIBHANDOFF\n" in entry
    assert "X-Handoff-ActivityTypes=org.libhandoff.document;\n" in entry and "NoDisplay=true\n" in entry
    assert_search_installed(prefix)
    assert_documentation_installed(prefix)
    assert_nvim_plugin_installed(prefix)
    if GNOME_VARIANT:
        metadata = json.loads((prefix / GNOME_EXTENSION / "metadata.json").read_text())
        assert metadata["uuid"] == "handoff@libhandoff.org" and metadata["version-name"] == VERSION, metadata
        assert ("import " in (prefix / GNOME_EXTENSION / "extension.js").read_text()) == (GNOME_VARIANT == "esm")
    entries = manifest_entries(prefix)
    files = {path for kind, path in entries if kind == "file"}
    dirs = {path for kind, path in entries if kind == "dir"}
    # Everything install made is listed, and nothing else.
    made = {str(p) for p in prefix.rglob("*") if not p.is_dir()}
    assert files == made
    assert dirs == {str(prefix), *(str(p) for p in prefix.rglob("*") if p.is_dir())}
    assert f"manifest: {prefix}/share/handoff/install-manifest" in out

    uninstall(f"PREFIX={prefix}")
    assert snapshot(root) == before


def test_uninstall_keeps_every_folder_that_existed_before_empty_or_not(root):
    prefix = root / "local"
    for folder in ("lib", "include", "share/doc", "bin"):
        (prefix / folder).mkdir(parents=True)
    (prefix / "lib" / "libother.so.1").write_text("someone else's\n")
    (prefix / "share" / "doc" / "README").write_text("someone else's\n")
    before = snapshot(root)

    install(f"PREFIX={prefix}")
    created = {path for kind, path in manifest_entries(prefix) if kind == "dir"}
    assert created == {str(prefix / p) for p in ("lib/pkgconfig", "lib/systemd", "lib/systemd/user", "share/handoff",
                                                 "share/man", "share/man/man1", "share/bash-completion",
                                                 "share/bash-completion/completions", "share/zsh",
                                                 "share/zsh/vendor-completions", "share/fish",
                                                 "share/fish/vendor_completions.d", "share/icons",
                                                 "share/icons/hicolor", "share/icons/hicolor/scalable",
                                                 "share/icons/hicolor/scalable/apps",
                                                 "share/icons/hicolor/scalable/status",
                                                 "share/icons/hicolor/symbolic", "share/icons/hicolor/symbolic/apps",
                                                 "etc", "etc/xdg",
                                                 "etc/xdg/autostart", "share/locale", "share/applications",
                                                 # the desktop's search of the history (docs/history.md)
                                                 "share/gnome-shell", "share/gnome-shell/search-providers",
                                                 "share/krunner", "share/krunner/dbusplugins",
                                                 "share/dbus-1", "share/dbus-1/services",
                                                 # the agent's session-bus API (docs/agent.md §15)
                                                 "share/dbus-1/interfaces",
                                                 # the browser bridge (docs/browser.md §1)
                                                 "lib/handoff", "lib/mozilla", "lib/mozilla/native-messaging-hosts",
                                                 "etc/chromium", "etc/chromium/native-messaging-hosts",
                                                 "share/handoff/browser-extension",
                                                 # the Neovim plugin, a package of its own (docs/documents.md §8)
                                                 *NVIM_FOLDERS, *GNOME_FOLDERS,
                                                 *(f"share/locale/{lang}" for lang in LANGUAGES),
                                                 *(f"share/locale/{lang}/LC_MESSAGES" for lang in LANGUAGES))}
    uninstall(f"PREFIX={prefix}")
    assert snapshot(root) == before  # include/ and bin/ stay, empty as they were


def test_a_second_install_keeps_the_record_of_the_folders_the_first_created(root):
    prefix = root / "opt"
    before = snapshot(root)
    install(f"PREFIX={prefix}")
    first = manifest_entries(prefix)
    install(f"PREFIX={prefix}")
    assert manifest_entries(prefix) == first
    uninstall(f"PREFIX={prefix}")
    assert snapshot(root) == before


def test_a_folder_holding_someone_elses_file_is_left_with_it(root):
    prefix = root / "usr"
    install(f"PREFIX={prefix}")
    (prefix / "lib" / "pkgconfig" / "other.pc").write_text("Name: other\n")
    out = uninstall(f"PREFIX={prefix}")
    assert f"left {prefix}/lib/pkgconfig" in out
    remaining = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    assert remaining == ["usr", "usr/lib", "usr/lib/pkgconfig", "usr/lib/pkgconfig/other.pc"]


def test_an_edited_manifest_cannot_make_uninstall_remove_other_things(root):
    prefix = root / "usr"
    victim_file = root / "victim.txt"
    victim_file.write_text("keep me\n")
    victim_dir = root / "victim-dir"
    victim_dir.mkdir()
    install(f"PREFIX={prefix}")
    with (prefix / "share" / "handoff" / "install-manifest").open("a") as out:
        out.write(f"file {victim_file}\ndir {victim_dir}\n")
    done = make("uninstall", f"PREFIX={prefix}")
    assert done.returncode == 0, done.stderr
    assert f"not removing {victim_file}" in done.stderr and f"not removing {victim_dir}" in done.stderr
    assert victim_file.read_text() == "keep me\n" and victim_dir.is_dir()
    assert not prefix.exists()


def test_uninstall_without_a_manifest_removes_the_files_and_no_folder(root):
    prefix = root / "usr"
    install(f"PREFIX={prefix}")
    (prefix / "share" / "handoff" / "install-manifest").unlink()
    out = uninstall(f"PREFIX={prefix}")
    assert "no manifest" in out
    assert not [p for p in prefix.rglob("*") if not p.is_dir()]
    assert (prefix / "lib" / "pkgconfig").is_dir()


def test_a_c_program_built_with_pkg_config_runs_with_the_line_install_printed(root):
    prefix = root / "usr"
    out = install(f"PREFIX={prefix}")
    line = export_line(out)
    assert line == f"export LD_LIBRARY_PATH={prefix}/lib${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
    assert "ldconfig" in out and f"echo '{prefix}/lib' > /etc/ld.so.conf.d/handoff.conf" in out

    program = build_c(root / "uses_handoff", pc_path=prefix / "lib" / "pkgconfig")
    assert readelf_dynamic(program, "NEEDED").count("libhandoff.so.0") == 1
    assert not readelf_dynamic(program, "RUNPATH") and not readelf_dynamic(program, "RPATH")
    # Without the line the dynamic linker cannot find it (the 127 of issue 17)...
    alone = run(program)
    assert alone.returncode == 127 and "libhandoff.so.0" in alone.stderr
    # ...with it, it runs.
    ran = run(program, setup=line)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"libhandoff {VERSION}\n"

    uninstall(f"PREFIX={prefix}")
    assert run(program, setup=line).returncode == 127


def test_a_glib_program_built_with_pkg_config_dispatches_through_the_installed_gsource(root):
    if subprocess.run(["pkg-config", "--exists", "glib-2.0"]).returncode != 0:
        pytest.skip("GLib's development files are missing (libglib2.0-dev: sh scripts/install-deps.sh)")
    prefix = root / "usr"
    line = export_line(install(f"PREFIX={prefix}"))
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "handoff", "glib-2.0"], capture_output=True,
                           text=True, env=env, check=True).stdout.split()
    assert f"-I{prefix}/include" in flags
    program = root / "uses_handoff_glib"
    built = subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-Werror",
                            str(HERE / "uses_handoff_glib.c"), "-o", str(program), *flags],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = run(program, setup=line)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout == "saves 1\n"
    uninstall(f"PREFIX={prefix}")
    assert not (prefix / "include" / "handoff-glib.h").exists()


def test_destdir_stages_under_the_final_prefix_and_runs_no_ldconfig(root):
    stage = root / "stage"
    stage.mkdir()
    before = snapshot(root)
    out = install(f"DESTDIR={stage}", "PREFIX=/usr/local")
    top = stage / "usr" / "local"
    assert (top / "lib" / f"libhandoff.so.{VERSION}").is_file()
    assert "prefix=/usr/local\n" in (top / "lib" / "pkgconfig" / "handoff.pc").read_text()
    # The manifest names the final paths, not the staging ones.
    entries = dict((path, kind) for kind, path in manifest_entries(top))
    assert entries["/usr/local/lib/libhandoff.so.0"] == "file"
    assert "/usr/local/lib/pkgconfig" in entries and not any(p.startswith(str(stage)) for p in entries)
    assert "staged under DESTDIR" in out
    assert export_line(out) is None and "running ldconfig" not in out

    uninstall(f"DESTDIR={stage}", "PREFIX=/usr/local")
    assert snapshot(root) == before


def test_destdir_with_prefix_usr_stages_the_man_pages_and_completions_where_distributions_look(root):
    stage = root / "stage"
    stage.mkdir()
    before = snapshot(root)
    install(f"DESTDIR={stage}", "PREFIX=/usr")
    assert_documentation_installed(stage / "usr")
    files = {path for kind, path in manifest_entries(stage / "usr") if kind == "file"}
    assert {f"/usr/{installed}" for installed in DOCUMENTATION} <= files
    uninstall(f"DESTDIR={stage}", "PREFIX=/usr")
    assert snapshot(root) == before


def test_man_and_the_shells_find_what_install_put_in_place(root):
    prefix = root / "usr"
    install(f"PREFIX={prefix}")
    share = prefix / "share"
    if shutil.which("man"):  # man-db (sh scripts/install-deps.sh)
        for page in ("handoff", "handoff-agent"):
            found = subprocess.run(["man", "-w", page], capture_output=True, text=True,
                                   env=dict(os.environ, MANPATH=str(share / "man")))
            assert found.stdout.strip() == str(share / "man" / "man1" / f"{page}.1"), found.stderr
    # bash-completion loads completions/NAME for the command NAME.
    bash = subprocess.run(["bash", "--norc", "-c",
                           f"source {share}/bash-completion/completions/handoff && complete -p handoff"],
                          capture_output=True, text=True)
    assert bash.stdout.strip() == "complete -F _handoff handoff", bash.stderr
    if shutil.which("fish"):  # fish autoloads handoff.fish from its vendor folder for the command on PATH
        fish = subprocess.run(["fish", "--no-config", "-c",
                               f"set -p fish_complete_path {share}/fish/vendor_completions.d; complete -C 'handoff acc'"],
                              capture_output=True, text=True,
                              env=dict(os.environ, PATH=f"{prefix}/bin:{os.environ['PATH']}"))
        assert fish.stdout.split("\t")[0] == "account", fish.stdout + fish.stderr
    if shutil.which("zsh"):  # compinit finds _handoff in the vendor folder by its #compdef line
        zsh = subprocess.run(["zsh", "-f", "-c", f"fpath=({share}/zsh/vendor-completions $fpath);"
                              " autoload -Uz compinit; compinit -u -D; print -r -- $_comps[handoff]"],
                             capture_output=True, text=True)
        assert zsh.stdout.strip() == "_handoff", zsh.stderr
    uninstall(f"PREFIX={prefix}")
    assert not share.exists()


def test_a_relative_prefix_is_refused_before_anything_is_made():
    done = make("install", "PREFIX=relative/dir")
    assert done.returncode != 0
    assert "PREFIX must be an absolute path" in done.stderr
    assert not (ROOT / "relative").exists()


def validate(entry):
    if shutil.which("desktop-file-validate"):
        checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stdout.strip(), checked


def test_the_autostart_entry_names_the_installed_command_validates_and_systemd_skips_it(root):
    prefix = root / "usr"
    install(f"PREFIX={prefix}")
    entry = prefix / "etc" / "xdg" / "autostart" / "handoff-agent.desktop"
    text = entry.read_text()
    assert entry.stat().st_mode & 0o777 == 0o644
    assert f"\nExec={prefix}/bin/handoff agent\n" in text and f"\nTryExec={prefix}/bin/handoff\n" in text
    assert "\nX-systemd-skip=true\n" in text
    validate(entry)
    generator = Path("/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator")
    if generator.exists():
        out = root / "generated"
        dirs = [out / "normal", out / "early", out / "late"]
        for folder in dirs:
            folder.mkdir(parents=True)
        env = dict(os.environ, XDG_CONFIG_DIRS=str(prefix / "etc" / "xdg"), XDG_CONFIG_HOME=str(root / "none"))
        subprocess.run([str(generator), *map(str, dirs)], env=env, check=True, capture_output=True)
        assert not any(out.rglob("*handoff*")), sorted(out.rglob("*"))
        # The same entry without the skip key would be a service: the check above means something.
        entry.write_text(text.replace("X-systemd-skip=true", "X-systemd-skip=false"))
        subprocess.run([str(generator), *map(str, dirs)], env=env, check=True, capture_output=True)
        assert any(out.rglob("*handoff*")), sorted(out.rglob("*"))
        entry.write_text(text)
    uninstall(f"PREFIX={prefix}")
    assert not entry.exists()


def test_a_prefix_with_reserved_characters_is_quoted_in_exec(root):
    prefix = root / "pre%fix"
    install(f"PREFIX={prefix}")
    entry = prefix / "etc" / "xdg" / "autostart" / "handoff-agent.desktop"
    text = entry.read_text()
    # Quoted, "%" doubled (the Desktop Entry spec's Exec rules).
    assert f'\nExec="{str(prefix).replace("%", "%%")}/bin/handoff" agent\n' in text, text
    assert f"\nTryExec={prefix}/bin/handoff\n" in text
    validate(entry)
    uninstall(f"PREFIX={prefix}")
    assert not entry.exists()


def test_the_system_prefixes_put_the_autostart_entry_in_etc_xdg(root):
    stage = root / "stage"
    install(f"DESTDIR={stage}", "PREFIX=/usr")
    text = (stage / "etc" / "xdg" / "autostart" / "handoff-agent.desktop").read_text()
    assert "\nExec=/usr/bin/handoff agent\n" in text and "\nTryExec=/usr/bin/handoff\n" in text
    uninstall(f"DESTDIR={stage}", "PREFIX=/usr")
    assert not (stage / "etc" / "xdg" / "autostart" / "handoff-agent.desktop").exists()


def test_nvim_finds_the_installed_plugin_and_its_help_in_the_prefixs_data_directory(root):
    """Installed, the package is nvim's own: any nvim whose XDG_DATA_DIRS
    holds PREFIX/share (as /usr/share and /usr/local/share are by default)
    loads it, finds `:help handoff`, and the plugin runs the installed
    command (which here finds no account: it says so, and nvim goes on)."""
    if not shutil.which("nvim"):
        pytest.skip("nvim is not installed (scripts/install-deps.sh)")
    prefix = root / "usr"
    install(f"PREFIX={prefix}")
    home = root / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_RUNTIME_DIR=str(root), XDG_DATA_DIRS=f"{prefix}/share",
               HANDOFF_AGENT_SOCKET=str(root / "none.sock"))
    found_file = root / "found.json"
    probe = ("lua vim.fn.writefile({vim.json.encode({exists = vim.fn.exists(':HandoffStatus'),"
             " help = (function() vim.cmd('help :HandoffStatus'); return vim.fn.expand('%:p') end)(),"
             " why = (function() vim.wait(10000, function() return not require('handoff').state().running end);"
             " return require('handoff').state().exit end)()})}, '" + str(found_file) + "')")
    result = subprocess.run(["nvim", "--headless", "-n", "-i", "NONE", "+" + probe, "+qa!"], capture_output=True,
                            text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result
    found = json.loads(found_file.read_text())
    assert found["exists"] == 2 and found["help"] == f"{prefix}/{NVIM_PACKAGE}/doc/handoff.txt", found
    assert found["why"] == 1, found  # the installed handoff ran, and ended: no account here
    uninstall(f"PREFIX={prefix}")
