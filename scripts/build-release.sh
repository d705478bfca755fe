#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds a recorded release (RELEASES) from its commit, for the
# compatibility tests: build/releases/<version>/ gets lib/ (the library
# with its SONAME link), include/handoff.h, bin/handoff, and bin/peer and
# bin/streamer (the integration tests' C apps, built against that
# release's header and library). Kept between runs: a release whose stamp names its commit is
# not built again.
#
#   sh scripts/build-release.sh VERSION     build it, print its folder
#   sh scripts/build-release.sh --previous  the newest release older than VERSION
set -eu
cd "$(dirname "$0")/.."

current=$(cat VERSION)
releases() { grep -v '^#' RELEASES | awk 'NF >= 2 { print $1, $2 }'; }

if [ "${1:-}" = "--previous" ]; then
    # The newest recorded release older than this tree's own version
    # (by version, whatever the file's order).
    version=$(releases | awk '{ print $1 }' | { cat; echo "$current"; } | sort -u -V \
        | awk -v cur="$current" '$1 == cur { print prev; exit } { prev = $1 }')
    [ -n "$version" ] || { echo "RELEASES records no release before $current" >&2; exit 1; }
else
    version=${1:?usage: build-release.sh VERSION | --previous}
fi
commit=$(releases | awk -v v="$version" '$1 == v { print $2 }')
[ -n "$commit" ] || { echo "RELEASES records no release $version" >&2; exit 1; }

out=build/releases/$version
stamp=$out/built-from
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$commit" ] && [ -x "$out/bin/handoff" ] && [ -x "$out/bin/peer" ] && [ -x "$out/bin/streamer" ]; then
    echo "$out"
    exit 0
fi

if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "release $version's commit $commit is not in this clone (a shallow clone?):" >&2
    echo "  fetch the history (git fetch --unshallow) to build it" >&2
    exit 1
fi

echo "building release $version from $commit into $out" >&2
rm -rf "$out"
mkdir -p "$out/src" "$out/bin" "$out/lib" "$out/include"
git archive "$commit" | tar -x -C "$out/src"
# Its own Makefile, as its users built it; output stays in its folder.
make -C "$out/src" lib tool build/bin/peer >"$out/build.log" 2>&1 || {
    tail -40 "$out/build.log" >&2
    echo "building release $version failed: $out/build.log" >&2
    exit 1
}
cp -P "$out"/src/build/lib/libhandoff.so* "$out/lib/"
cp "$out/src/include/handoff.h" "$out/include/"
cp "$out/src/build/bin/handoff" "$out/bin/handoff"
# The C apps find their release's library by rpath: the copy's.
for app in peer streamer; do
    cc -std=c11 -D_POSIX_C_SOURCE=200809L -I"$out/include" -o "$out/bin/$app" "$out/src/Tests/integration/$app.c" \
        -L"$out/lib" -lhandoff -Wl,-rpath,"$(cd "$out/lib" && pwd)"
done
echo "$commit" >"$stamp"
echo "$out"
