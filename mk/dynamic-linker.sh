#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# After `make install` and `make uninstall` (mk/install.sh): make the
# dynamic linker find libhandoff.so.$SOMAJOR in LIBDIR, or print the line
# that does. Without this a program linked with `pkg-config --libs handoff`
# exits 127 after installing into /usr/local: the linker looks there only
# through its cache, which only ldconfig updates.
#
#   sh mk/dynamic-linker.sh install|uninstall LIBDIR
#
# What it does (Tests/install/test_dynamic_linker.py checks each case):
#   DESTDIR set             nothing: the files are staged, and the package
#                           manager runs ldconfig where they land
#   LIBDIR searched, root   runs ldconfig, then checks that its cache
#                           resolves the library to LIBDIR (uninstall: runs
#                           ldconfig so the cache forgets it)
#   LIBDIR searched, user   prints: run as root: ldconfig
#   LIBDIR not searched     prints the export LD_LIBRARY_PATH=... line, and
#                           the /etc/ld.so.conf.d line that makes it permanent
# "Searched" means among the folders ldconfig scans (ld.so.conf and its
# built-in ones), compared as files (-ef), so /lib and /usr/lib are one.
# LDCONFIG names the program (the tests give a fake one); default:
# ldconfig from PATH, /sbin or /usr/sbin.
set -eu

mode=$1
libdir=$2
soname=libhandoff.so.${SOMAJOR:?SOMAJOR is not set}
: "${DESTDIR=}"

if [ -n "$DESTDIR" ]; then
    [ "$mode" = install ] && echo "staged under DESTDIR: ldconfig is left to the package manager where the files land"
    exit 0
fi

if [ -z "${LDCONFIG:-}" ]; then
    LDCONFIG=$(PATH="$PATH:/sbin:/usr/sbin" command -v ldconfig || true)
fi

# Is folder $1 one the dynamic linker searches?
searched() {
    [ -n "$LDCONFIG" ] || return 1
    # "-v -N -X": list the folders, touch neither the cache nor the links.
    # Lines "DIR: (from FILE:LINE)" (older glibc: "DIR:"); libraries are
    # indented under them.
    "$LDCONFIG" -v -N -X 2>/dev/null | sed -n '/^[^[:space:]]/{ s/: (from .*//; s/:$//; p; }' |
        while IFS= read -r dir; do
            if [ "$dir" -ef "$1" ]; then echo yes; break; fi
        done | grep -q yes
}

if ! searched "$libdir"; then
    if [ "$mode" = install ]; then
        echo "the dynamic linker does not search $libdir; run programs that use libhandoff after:"
        echo "  export LD_LIBRARY_PATH=$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
        echo "or make every program find it (as root):"
        echo "  echo '$libdir' > /etc/ld.so.conf.d/handoff.conf && ldconfig"
    fi
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "$libdir is searched through the dynamic linker's cache; update it: run as root: ldconfig"
    exit 0
fi

echo "running ldconfig: $libdir is searched through the dynamic linker's cache"
"$LDCONFIG"
if [ "$mode" = install ]; then
    # The first entry for the soname is the one programs get.
    found=$("$LDCONFIG" -p | sed -n "s/^[[:space:]]*$soname (.*) => //p" | head -n 1)
    if [ -z "$found" ]; then
        echo "ldconfig ran, yet its cache has no $soname: see ldconfig -p" >&2
        exit 1
    elif ! [ "$(dirname "$found")" -ef "$libdir" ]; then
        echo "warning: programs will load $found, another copy found before $libdir/$soname" >&2
    fi
elif [ -f /etc/ld.so.conf.d/handoff.conf ] && grep -qxF "$libdir" /etc/ld.so.conf.d/handoff.conf; then
    echo "/etc/ld.so.conf.d/handoff.conf still names $libdir: remove it when nothing else there needs it"
fi
