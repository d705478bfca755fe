#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""What keeps libhandoff.so small stays in force (README "Size").

    Tests/abi/check_footprint.py STRIPPED UNSTRIPPED STDLIB_COPY [SWIFTC]

- the stripped library stays under a bound (make size says where bytes go);
- it has no unwind tables (and, built with PACK_RELATIVE_RELOCS=1, its
  relative relocations are packed: DT_RELR);
- nothing in it reads a Unicode character's name: the release link answers
  that lookup with a stub (Sources/CLinux/no_scalar_names.c), which is
  right only while Unicode.Scalar.Properties.name and .nameAlias are
  not linked;
- the collectable copy of the standard library (scripts/unretained_stdlib.py)
  keeps retained every runtime record section (swift5_*) the toolchain's
  Swift.o retains.
"""

import os
import re
import subprocess
import sys
import tempfile

# 5.4 MiB now, 4.98 MiB with DT_RELR (README "Size"); the bound leaves room
# for features, not for a step of the trimmed link coming undone (each
# saves 0.5 MiB or more).
BOUND = int(5.75 * 1048576)
# Demangled: Unicode.Scalar.Properties.name.getter, .nameAlias.getter.
NAME_GETTERS = ('$ss7UnicodeO6ScalarV10PropertiesV4nameSSSgvg',
                '$ss7UnicodeO6ScalarV10PropertiesV9nameAliasSSSgvg')

failures = 0


def check(ok, what):
    global failures
    print('%s - %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures += 1


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def sections(path):
    """(name, flags) of each section header."""
    out = []
    for line in run('readelf', '-SW', path).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+([A-Za-z]*)\s', line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def main(args):
    if len(args) not in (3, 4):
        sys.exit(__doc__)
    stripped, unstripped, stdlib_copy = args[:3]
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
    from unretained_stdlib import archive_path
    archive = archive_path(args[3] if len(args) == 4 else 'swiftc')
    size = len(open(stripped, 'rb').read())
    check(size <= BOUND, '%s: %d bytes stripped, bound %d (make size)' % (stripped, size, BOUND))
    packed = '(RELR)' in run('readelf', '-d', stripped)
    print('     relative relocations %s' % ('packed (DT_RELR)' if packed else 'not packed (PACK_RELATIVE_RELOCS=0)'))
    names = [n for n, _ in sections(stripped)]
    check('.eh_frame' not in names and '.eh_frame_hdr' not in names, 'no unwind tables (.eh_frame)')
    symbols = set(line.split()[-1] for line in run('nm', unstripped).splitlines() if line.strip())
    linked = [s for s in NAME_GETTERS if s in symbols]
    check(not linked, 'no Unicode character-name getter linked (the name lookup is a stub): %s'
          % (', '.join(linked) or 'none'))
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(['ar', 'x', os.path.abspath(archive), 'Swift.o'], cwd=work, check=True)
        original = sections(os.path.join(work, 'Swift.o'))
    copy = sections(stdlib_copy)
    retained = [i for i, (n, f) in enumerate(original) if n.startswith('swift5_') and 'R' in f]
    kept = [i for i in retained if i < len(copy) and copy[i][0] == original[i][0] and 'R' in copy[i][1]]
    check(retained and kept == retained, '%s: %d of the %d retained runtime record sections retained'
          % (stdlib_copy, len(kept), len(retained)))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main(sys.argv[1:])
