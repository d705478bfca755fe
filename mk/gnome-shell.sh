#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The GNOME Shell extension (dist/gnome-shell/handoff@libhandoff.org,
# docs/gnome-shell.md) in the variant a shell loads: GNOME Shell 43 and 44
# load extension.js with gjs's legacy `imports` ("legacy"), 45 and later as
# an ES module ("esm"). The shared modules are the same text in both; the
# ES variant appends an export line naming what each one's
# `/* exported ... */` comment names (the legacy loader exports top-level
# `var` and `function` declarations by itself).
#
#   sh mk/gnome-shell.sh variant [VERSION]
#       prints legacy or esm for GNOME Shell VERSION (default: the installed
#       `gnome-shell --version`); exits 1 with nothing printed when there is
#       no gnome-shell or its version is one metadata.json does not claim
#   sh mk/gnome-shell.sh build legacy|esm OUT VERSION_NAME
#       writes OUT/handoff@libhandoff.org
set -eu

here=$(dirname "$0")
UUID=handoff@libhandoff.org
SRC=$here/../dist/gnome-shell/$UUID
ICON=$here/../data/icons/hicolor/symbolic/apps/handoff-symbolic.svg
# The agent's interfaces (the one text of them): client.js's @AGENT1_XML@.
AGENT1_XML=$here/../dist/dbus/org.libhandoff.Agent1.xml
SHARED_JS="model.js client.js indicator.js"
# What each variant's metadata.json claims: the versions it is written for.
LEGACY_VERSIONS='["43", "44"]'
ESM_VERSIONS='["45", "46", "47"]'

variant() {
    version=${1:-}
    if [ -z "$version" ]; then
        command -v gnome-shell >/dev/null 2>&1 || exit 1
        version=$(gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9][0-9]*\).*/\1/p')
    fi
    case ${version%%.*} in
        43|44) echo legacy ;;
        45|46|47) echo esm ;;
        *) exit 1 ;;
    esac
}

build() {
    kind=$1 out=$2/$UUID version_name=$3
    case $kind in
        legacy) versions=$LEGACY_VERSIONS ;;
        esm) versions=$ESM_VERSIONS ;;
        *) echo "no variant '$kind' (legacy or esm)" >&2; exit 2 ;;
    esac
    rm -rf "$out"
    mkdir -p "$out/icons"
    # Inside a JavaScript template literal: no backquote, no ${.
    if grep -q -e '`' -e '\${' "$AGENT1_XML"; then
        echo "$AGENT1_XML has a \` or \${: it cannot be embedded in client.js" >&2; exit 2
    fi
    for file in $SHARED_JS; do
        awk -v xml="$AGENT1_XML" '
            index($0, "@AGENT1_XML@") {
                at = index($0, "@AGENT1_XML@")
                printf "%s", substr($0, 1, at - 1)
                while ((getline line < xml) > 0) print line
                close(xml)
                print substr($0, at + length("@AGENT1_XML@"))
                next
            }
            { print }' "$SRC/$file" > "$out/$file"
        if [ "$kind" = esm ]; then
            names=$(sed -n 's|^/\* exported \(.*\) \*/$|\1|p' "$SRC/$file")
            [ -n "$names" ] || { echo "$SRC/$file has no /* exported ... */ line" >&2; exit 2; }
            printf '\nexport {%s};\n' "$names" >> "$out/$file"
        fi
    done
    cp "$SRC/entry/$kind.js" "$out/extension.js"
    cp "$SRC/stylesheet.css" "$out/stylesheet.css"
    cp "$ICON" "$out/icons/handoff-symbolic.svg"
    sed -e "s|@SHELL_VERSIONS@|$versions|" -e "s|@VERSION@|$version_name|" "$SRC/metadata.json.in" > "$out/metadata.json"
    chmod 0644 "$out"/*.js "$out"/*.json "$out"/*.css "$out/icons/handoff-symbolic.svg"
}

case ${1:-} in
    variant) variant "${2:-}" ;;
    build) [ $# -eq 4 ] || { echo "usage: $0 build legacy|esm OUT VERSION_NAME" >&2; exit 2; }; build "$2" "$3" "$4" ;;
    *) echo "usage: $0 variant [VERSION] | build legacy|esm OUT VERSION_NAME" >&2; exit 2 ;;
esac
