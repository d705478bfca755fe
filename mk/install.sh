#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# `make install` and `make uninstall` (mk/install.mk): copy the library,
# header, tool, handoff.pc, the agent's user units, the man pages and the
# shell completions into place, and
# record in a manifest what was created, so that uninstall removes exactly
# that: the files, and the folders that did not exist before (never one
# that did, such as /usr/local/lib). Then mk/dynamic-linker.sh makes the
# dynamic linker find the library, or says the one line that does.
#
#   sh mk/install.sh install|uninstall
#
# Everything comes from the environment (mk/install.mk sets it):
#   DESTDIR    stages the files (packaging); paths below are the final ones
#   PREFIX BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR USERUNITDIR DATADIR
#   MANDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR AUTOSTARTDIR LOCALEDIR VERSION SOMAJOR
#   MOZHOSTDIR CHROMIUMHOSTDIR (the browser host manifests), BROWSER_EXTENSION
#   (the extension's folder; empty: none installed), NVIM_PLUGIN (bridges/nvim;
#   empty: none installed)
#   LINGUAS (the languages, space-separated; handoff.mo each, docs/TRANSLATING.md)
#   install only: BUILT_LIB BUILT_TOOL HEADER GLIB_HEADER PC_IN UNIT_SOCKET
#                 UNIT_SERVICE UNIT_MPRIS MPRIS_ENTRY UNIT_DOCUMENTS DOCUMENTS_ENTRY (default: beside
#                 the MPRIS ones) AUTOSTART MAN_PAGES (the folder of handoff.1 and
#                 handoff-agent.1) COMPLETIONS (of handoff.bash, _handoff,
#                 handoff.fish) ICONS (data/icons: the tray's, hicolor layout)
#                 LOCALES (build/locale: <lang>/LC_MESSAGES/handoff.mo)
#                 SEARCH (dist/search: the desktop's search of the history)
#   GNOME_SHELL_VERSION (optional): the GNOME Shell whose variant of the
#              extension is installed (default: the installed gnome-shell's;
#              mk/gnome-shell.sh); none or one outside 43–47: not installed
#
# The manifest, $DATADIR/handoff/install-manifest, holds one entry a line:
# "file PATH" (also the links) and "dir PATH", final paths. Uninstall
# trusts it only within what this script installs: a "file" it removes
# must be one of the paths below, a "dir" one of the install folders or a
# parent of one, removed with rmdir (so only when empty).
set -eu

here=$(dirname "$0")
: "${DESTDIR=}"
: "${LINGUAS=}"
for var in PREFIX BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR USERUNITDIR DATADIR MANDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR AUTOSTARTDIR LOCALEDIR \
           MOZHOSTDIR CHROMIUMHOSTDIR; do
    eval "value=\${$var:?$var is not set}"
    case $value in
        /*) ;;
        *) echo "$var must be an absolute path, not '$value'" >&2; exit 2 ;;
    esac
done
[ "$1" = uninstall ] || [ "$1" = install ] || { echo "usage: $0 install|uninstall" >&2; exit 2; }

MANIFEST=$DATADIR/handoff/install-manifest
# The tray's icons (docs/agent.md §6 "The tray"), in the hicolor theme the
# agent names as its IconThemePath's ($DATADIR/icons).
ICONDIR=$DATADIR/icons/hicolor
REAL=libhandoff.so.$VERSION
# The browser bridge (docs/browser.md): its launcher, the host manifests
# where Firefox and Chromium look, and the unpacked extension.
BROWSER_HOST=$LIBDIR/handoff/browser-host
EXTENSIONDIR=$DATADIR/handoff/browser-extension
# The desktop's search of the history (docs/history.md): GNOME Shell's
# provider, KRunner's runner, the bus service that starts the agent, and
# the entry GNOME Shell shows the results under.
HISTORY=org.libhandoff.History
GNOMESEARCHDIR=$DATADIR/gnome-shell/search-providers
KRUNNERDIR=$DATADIR/krunner/dbusplugins
DBUSSERVICEDIR=$DATADIR/dbus-1/services
# The agent's session-bus API (docs/agent.md §15) for other front ends.
DBUSIFACEDIR=$DATADIR/dbus-1/interfaces
AGENT1_XML=org.libhandoff.Agent1.xml
HOST_JSON=org.libhandoff.browser.json
# The Neovim plugin (docs/documents.md §8): a package of its own, started
# by every nvim (its help tags beside its help, no shared doc/tags).
NVIMPACK=$DATADIR/nvim/site/pack/handoff/start/handoff
NVIM_FILES="plugin/handoff.lua lua/handoff/init.lua doc/handoff.txt doc/tags"
# The GNOME Shell extension (docs/gnome-shell.md) where the shell finds
# the system's extensions, in the variant the installed shell loads (43,
# 44: legacy imports; 45-47: ES modules); none when there is no such shell.
GNOMEEXTDIR=$DATADIR/gnome-shell/extensions/handoff@libhandoff.org
GNOMEEXT_FILES="extension.js model.js client.js indicator.js metadata.json stylesheet.css icons/handoff-symbolic.svg"
GNOME_VARIANT=$(sh "$here/gnome-shell.sh" variant "${GNOME_SHELL_VERSION:-}" 2>/dev/null || true)
NL='
'

# Every file install makes (final paths), one a line; with "all", also the
# extension's when this install would not make them (what uninstall knows).
installed_files() {
    printf '%s\n' "$LIBDIR/$REAL" "$LIBDIR/libhandoff.so.$SOMAJOR" "$LIBDIR/libhandoff.so" \
        "$INCLUDEDIR/handoff.h" "$INCLUDEDIR/handoff-glib.h" "$BINDIR/handoff" "$PKGCONFIGDIR/handoff.pc" \
        "$USERUNITDIR/handoff-agent.socket" "$USERUNITDIR/handoff-agent.service" \
        "$MANDIR/man1/handoff.1" "$MANDIR/man1/handoff-agent.1" \
        "$BASHCOMPDIR/handoff" "$ZSHCOMPDIR/_handoff" "$FISHCOMPDIR/handoff.fish" \
        "$ICONDIR/scalable/apps/handoff.svg" "$ICONDIR/scalable/status/handoff-available.svg" \
        "$ICONDIR/scalable/status/handoff-paused.svg" "$ICONDIR/symbolic/apps/handoff-symbolic.svg" \
        "$AUTOSTARTDIR/handoff-agent.desktop" \
        "$USERUNITDIR/handoff-mpris.service" "$DATADIR/applications/org.libhandoff.media.desktop" "$MANIFEST" \
        "$USERUNITDIR/handoff-documents.service" "$DATADIR/applications/org.libhandoff.documents.desktop" \
        "$GNOMESEARCHDIR/$HISTORY.search-provider.ini" "$KRUNNERDIR/$HISTORY.desktop" \
        "$DBUSSERVICEDIR/$HISTORY.service" "$DATADIR/applications/$HISTORY.desktop" "$DBUSIFACEDIR/$AGENT1_XML"
    for lang in $LINGUAS; do printf '%s\n' "$LOCALEDIR/$lang/LC_MESSAGES/handoff.mo"; done
    printf '%s\n' "$BROWSER_HOST" "$MOZHOSTDIR/$HOST_JSON" "$CHROMIUMHOSTDIR/$HOST_JSON"
    if [ -n "${BROWSER_EXTENSION:-}" ]; then
        for file in $(cd "$BROWSER_EXTENSION" && ls); do printf '%s\n' "$EXTENSIONDIR/$file"; done
    fi
    if [ -n "${NVIM_PLUGIN:-}" ]; then
        for file in $NVIM_FILES; do printf '%s\n' "$NVIMPACK/$file"; done
    fi
    if [ -n "$GNOME_VARIANT" ] || [ "${1:-}" = all ]; then
        for file in $GNOMEEXT_FILES; do printf '%s\n' "$GNOMEEXTDIR/$file"; done
    fi
}

# The folders the files go in ("all": as installed_files).
install_dirs() {
    printf '%s\n' "$LIBDIR" "$INCLUDEDIR" "$BINDIR" "$PKGCONFIGDIR" "$USERUNITDIR" "$DATADIR/handoff" \
        "$MANDIR/man1" "$BASHCOMPDIR" "$ZSHCOMPDIR" "$FISHCOMPDIR" "$ICONDIR/scalable/apps" "$ICONDIR/scalable/status" \
        "$ICONDIR/symbolic/apps" "$AUTOSTARTDIR" \
        "$DATADIR/applications" "$GNOMESEARCHDIR" "$KRUNNERDIR" "$DBUSSERVICEDIR" "$DBUSIFACEDIR"
    for lang in $LINGUAS; do printf '%s\n' "$LOCALEDIR/$lang/LC_MESSAGES"; done
    printf '%s\n' "$LIBDIR/handoff" "$MOZHOSTDIR" "$CHROMIUMHOSTDIR" "$EXTENSIONDIR"
    [ -z "${NVIM_PLUGIN:-}" ] || printf '%s\n' "$NVIMPACK/plugin" "$NVIMPACK/lua/handoff" "$NVIMPACK/doc"
    if [ -n "$GNOME_VARIANT" ] || [ "${1:-}" = all ]; then printf '%s\n' "$GNOMEEXTDIR/icons"; fi
}

# Is line $1 one of the lines of $2?
listed() {
    case "$NL$2$NL" in *"$NL$1$NL"*) return 0 ;; esac
    return 1
}

# Creates folder $1 (final path) under DESTDIR with its missing parents,
# printing each one it created, parents first.
make_dir() {
    missing=""
    dir=$1
    while [ -n "$dir" ] && [ "$dir" != / ] && [ ! -d "$DESTDIR$dir" ]; do
        missing="$dir$NL$missing"
        dir=$(dirname "$dir")
    done
    printf '%s' "$missing" | while IFS= read -r dir; do
        [ -n "$dir" ] || continue
        mkdir -m 0755 "$DESTDIR$dir"
        printf '%s\n' "$dir"
    done
}

# sed replacement text: \, & and the delimiter | taken literally.
sed_text() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }

do_install() {
    # Folders created by an earlier install stay ours: it made them.
    created=""
    if [ -f "$DESTDIR$MANIFEST" ]; then
        created=$(sed -n 's/^dir //p' "$DESTDIR$MANIFEST")
    fi
    # The staging folder itself is the packager's, not recorded.
    [ -z "$DESTDIR" ] || mkdir -p "$DESTDIR"
    new=$(install_dirs | while IFS= read -r dir; do make_dir "$dir"; done)
    [ -z "$new" ] || created="${created:+$created$NL}$new"

    install -m 0755 "$BUILT_LIB" "$DESTDIR$LIBDIR/$REAL"
    ln -sfn "$REAL" "$DESTDIR$LIBDIR/libhandoff.so.$SOMAJOR"
    ln -sfn "libhandoff.so.$SOMAJOR" "$DESTDIR$LIBDIR/libhandoff.so"
    install -m 0644 "$HEADER" "$DESTDIR$INCLUDEDIR/handoff.h"
    install -m 0644 "$GLIB_HEADER" "$DESTDIR$INCLUDEDIR/handoff-glib.h"   # header-only GLib GSource
    install -m 0755 "$BUILT_TOOL" "$DESTDIR$BINDIR/handoff"
    sed -e "s|@PREFIX@|$(sed_text "$PREFIX")|" -e "s|@LIBDIR@|$(sed_text "$LIBDIR")|" \
        -e "s|@INCLUDEDIR@|$(sed_text "$INCLUDEDIR")|" -e "s|@VERSION@|$VERSION|" \
        "$PC_IN" > "$DESTDIR$PKGCONFIGDIR/handoff.pc"
    chmod 0644 "$DESTDIR$PKGCONFIGDIR/handoff.pc"
    install -m 0644 "$UNIT_SOCKET" "$DESTDIR$USERUNITDIR/handoff-agent.socket"
    # systemd reads "%x" as a specifier: a "%" in the path is doubled.
    exec_start=$(sed_text "$(printf '%s' "$BINDIR" | sed 's/%/%%/g')")
    sed -e "s|^ExecStart=.*/handoff agent\$|ExecStart=$exec_start/handoff agent|" \
        "$UNIT_SERVICE" > "$DESTDIR$USERUNITDIR/handoff-agent.service"
    chmod 0644 "$DESTDIR$USERUNITDIR/handoff-agent.service"
    # The autostart entry names the installed command: in Exec a path with
    # characters the Desktop Entry spec reserves is quoted ("\\", "\"", "`"
    # and "$" escaped) and "%" doubled; TryExec is a plain string ("\\" doubled).
    tool="$BINDIR/handoff"
    case "$tool" in
        *[!A-Za-z0-9/._+-]*) exec_path="\"$(printf '%s' "$tool" | sed -e 's/[\\"`$]/\\&/g' -e 's/%/%%/g')\"" ;;
        *) exec_path=$tool ;;
    esac
    try_path=$(printf '%s' "$tool" | sed 's/\\/\\\\/g')
    sed -e "s|^Exec=.*\$|Exec=$(sed_text "$exec_path") agent|" -e "s|^TryExec=.*\$|TryExec=$(sed_text "$try_path")|" \
        "$AUTOSTART" > "$DESTDIR$AUTOSTARTDIR/handoff-agent.desktop"
    chmod 0644 "$DESTDIR$AUTOSTARTDIR/handoff-agent.desktop"
    # The MPRIS bridge (docs/mpris.md): its user unit, and the desktop entry
    # the agent starts it by to continue a track.
    sed -e "s|^ExecStart=.*/handoff mpris-bridge\$|ExecStart=$exec_start/handoff mpris-bridge|" \
        "$UNIT_MPRIS" > "$DESTDIR$USERUNITDIR/handoff-mpris.service"
    chmod 0644 "$DESTDIR$USERUNITDIR/handoff-mpris.service"
    sed -e "s|^Exec=.*\$|Exec=$(sed_text "$exec_path") mpris-bridge|" -e "s|^TryExec=.*\$|TryExec=$(sed_text "$try_path")|" \
        "$MPRIS_ENTRY" > "$DESTDIR$DATADIR/applications/org.libhandoff.media.desktop"
    chmod 0644 "$DESTDIR$DATADIR/applications/org.libhandoff.media.desktop"
    # The documents bridge (docs/documents.md §7), alike: beside the MPRIS files.
    documents_unit=${UNIT_DOCUMENTS:-$(dirname "$UNIT_MPRIS")/handoff-documents.service}
    documents_entry=${DOCUMENTS_ENTRY:-$(dirname "$MPRIS_ENTRY")/org.libhandoff.documents.desktop}
    sed -e "s|^ExecStart=.*/handoff documents-bridge\$|ExecStart=$exec_start/handoff documents-bridge|" \
        "$documents_unit" > "$DESTDIR$USERUNITDIR/handoff-documents.service"
    chmod 0644 "$DESTDIR$USERUNITDIR/handoff-documents.service"
    sed -e "s|^Exec=.*\$|Exec=$(sed_text "$exec_path") documents-bridge|" -e "s|^TryExec=.*\$|TryExec=$(sed_text "$try_path")|" \
        "$documents_entry" > "$DESTDIR$DATADIR/applications/org.libhandoff.documents.desktop"
    chmod 0644 "$DESTDIR$DATADIR/applications/org.libhandoff.documents.desktop"
    # The desktop's search of the history: the entry names the installed
    # command as the autostart entry does; the bus service's Exec is read
    # as a shell would (no "%" rule), quoted alike.
    sed -e "s|^Exec=.*\$|Exec=$(sed_text "$exec_path") history|" -e "s|^TryExec=.*\$|TryExec=$(sed_text "$try_path")|" \
        "$SEARCH/$HISTORY.desktop" > "$DESTDIR$DATADIR/applications/$HISTORY.desktop"
    case "$tool" in
        *[!A-Za-z0-9/._+-]*) bus_exec="\"$(printf '%s' "$tool" | sed -e 's/[\\"`$]/\\&/g')\"" ;;
        *) bus_exec=$tool ;;
    esac
    sed -e "s|^Exec=.*\$|Exec=$(sed_text "$bus_exec") agent|" "$SEARCH/$HISTORY.service" > "$DESTDIR$DBUSSERVICEDIR/$HISTORY.service"
    install -m 0644 "$SEARCH/$HISTORY.search-provider.ini" "$DESTDIR$GNOMESEARCHDIR/$HISTORY.search-provider.ini"
    install -m 0644 "$SEARCH/$HISTORY.krunner.desktop" "$DESTDIR$KRUNNERDIR/$HISTORY.desktop"
    chmod 0644 "$DESTDIR$DATADIR/applications/$HISTORY.desktop" "$DESTDIR$DBUSSERVICEDIR/$HISTORY.service"
    install -m 0644 "$here/../dist/dbus/$AGENT1_XML" "$DESTDIR$DBUSIFACEDIR/$AGENT1_XML"
    install -m 0644 "$MAN_PAGES/handoff.1" "$DESTDIR$MANDIR/man1/handoff.1"
    install -m 0644 "$MAN_PAGES/handoff-agent.1" "$DESTDIR$MANDIR/man1/handoff-agent.1"
    # Each shell's own name for the file: bash-completion loads it by the command's name.
    install -m 0644 "$COMPLETIONS/handoff.bash" "$DESTDIR$BASHCOMPDIR/handoff"
    install -m 0644 "$COMPLETIONS/_handoff" "$DESTDIR$ZSHCOMPDIR/_handoff"
    install -m 0644 "$COMPLETIONS/handoff.fish" "$DESTDIR$FISHCOMPDIR/handoff.fish"
    for lang in $LINGUAS; do   # the translations, where the tool looks: ../share/locale from bin/
        install -m 0644 "$LOCALES/$lang/LC_MESSAGES/handoff.mo" "$DESTDIR$LOCALEDIR/$lang/LC_MESSAGES/handoff.mo"
    done
    install -m 0644 "$ICONS/hicolor/scalable/apps/handoff.svg" "$DESTDIR$ICONDIR/scalable/apps/handoff.svg"
    for icon in handoff-available handoff-paused; do
        install -m 0644 "$ICONS/hicolor/scalable/status/$icon.svg" "$DESTDIR$ICONDIR/scalable/status/$icon.svg"
    done
    install -m 0644 "$ICONS/hicolor/symbolic/apps/handoff-symbolic.svg" "$DESTDIR$ICONDIR/symbolic/apps/handoff-symbolic.svg"
    # The GNOME Shell extension, built straight into place in its variant.
    if [ -n "$GNOME_VARIANT" ]; then
        sh "$here/gnome-shell.sh" build "$GNOME_VARIANT" "$DESTDIR$DATADIR/gnome-shell/extensions" "$VERSION"
        echo "the GNOME Shell extension ($GNOME_VARIANT variant): gnome-extensions enable handoff@libhandoff.org"
    else
        echo "the GNOME Shell extension is not installed: no GNOME Shell 43-47 here (GNOME_SHELL_VERSION=N chooses one)"
    fi

    # The browser bridge: a launcher naming the installed command (the
    # browsers start a host without arguments), and its manifests.
    printf '#!/bin/sh\n# Started by the browser for the Handoff extension (docs/browser.md).\nexec %s browser-host "$@"\n' \
        "'$(printf '%s' "$tool" | sed "s/'/'\\\\''/g")'" > "$DESTDIR$BROWSER_HOST"
    chmod 0755 "$DESTDIR$BROWSER_HOST"
    "$BUILT_TOOL" browser-host --print-manifest firefox --program "$BROWSER_HOST" > "$DESTDIR$MOZHOSTDIR/$HOST_JSON"
    "$BUILT_TOOL" browser-host --print-manifest chromium --program "$BROWSER_HOST" > "$DESTDIR$CHROMIUMHOSTDIR/$HOST_JSON"
    chmod 0644 "$DESTDIR$MOZHOSTDIR/$HOST_JSON" "$DESTDIR$CHROMIUMHOSTDIR/$HOST_JSON"
    if [ -n "${BROWSER_EXTENSION:-}" ]; then
        for file in $(cd "$BROWSER_EXTENSION" && ls); do
            install -m 0644 "$BROWSER_EXTENSION/$file" "$DESTDIR$EXTENSIONDIR/$file"
        done
    fi
    if [ -n "${NVIM_PLUGIN:-}" ]; then
        for file in $NVIM_FILES; do install -m 0644 "$NVIM_PLUGIN/$file" "$DESTDIR$NVIMPACK/$file"; done
        # It runs the installed command (a long Lua string: any path).
        sed -e "s|^local PROGRAM = .*\$|local PROGRAM = [==[$(sed_text "$tool")]==]|" \
            "$NVIM_PLUGIN/lua/handoff/init.lua" > "$DESTDIR$NVIMPACK/lua/handoff/init.lua"
    fi

    {
        echo "# libhandoff $VERSION: what \`make install\` created; \`make uninstall\` removes exactly this."
        installed_files | sed 's/^/file /'
        printf '%s\n' "$created" | sort -u | sed -n 's/^./dir &/p'
    } > "$DESTDIR$MANIFEST.tmp"
    chmod 0644 "$DESTDIR$MANIFEST.tmp"
    mv -f "$DESTDIR$MANIFEST.tmp" "$DESTDIR$MANIFEST"

    echo "installed libhandoff $VERSION under $DESTDIR$PREFIX (manifest: $DESTDIR$MANIFEST)"
    sh "$here/dynamic-linker.sh" install "$LIBDIR"
    echo "the agent: systemctl --user daemon-reload && systemctl --user enable --now handoff-agent.socket handoff-agent.service"
}

# Is $1 one of the install folders or a parent of one?
ours_or_parent() {
    install_dirs all | while IFS= read -r dir; do
        case "$dir/" in "$1/"*) echo yes; break ;; esac
    done | grep -q yes
}

do_uninstall() {
    known=$(installed_files all)
    if [ -f "$DESTDIR$MANIFEST" ]; then
        files=$(sed -n 's/^file //p' "$DESTDIR$MANIFEST")
        dirs=$(sed -n 's/^dir //p' "$DESTDIR$MANIFEST")
    else
        echo "no manifest at $DESTDIR$MANIFEST (not installed, or by an older version): removing the files, leaving every folder"
        files=$known
        dirs=""
    fi
    printf '%s\n' "$files" | while IFS= read -r path; do
        [ -n "$path" ] || continue
        if listed "$path" "$known"; then
            rm -f "$DESTDIR$path"
        else
            echo "not removing $path: not a file this install makes (manifest edited?)" >&2
        fi
    done
    # Deepest first: a folder's children (longer paths) go before it.
    printf '%s\n' "$dirs" | awk 'length { print length($0) "\t" $0 }' | sort -rn | cut -f2- |
        while IFS= read -r dir; do
            if ! ours_or_parent "$dir"; then
                echo "not removing $dir: not an install folder (manifest edited?)" >&2
            elif [ -d "$DESTDIR$dir" ] && ! rmdir "$DESTDIR$dir" 2>/dev/null; then
                echo "left $DESTDIR$dir: it holds files install did not put there"
            fi
        done
    echo "uninstalled libhandoff from $DESTDIR$PREFIX"
    sh "$here/dynamic-linker.sh" uninstall "$LIBDIR"
}

if [ "$1" = install ]; then do_install; else do_uninstall; fi
