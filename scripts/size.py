#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Where the bytes of a stripped binary come from (`make size`).

Reads the linker map that the release link writes (Package.swift: lld
-Map) and the stripped file, and prints the file's size split by origin:
the project's own targets, the Swift standard library, the Swift runtime,
Foundation, the regex modules, what the linker makes itself (relocations,
symbol tables, the unwind index) and the rest (ELF headers, alignment).

Only sections that take room in the stripped file count (no debug info,
symbol tables or .bss), so the rows add up to the file's size.

    scripts/size.py STRIPPED MAP [STRIPPED MAP ...]
"""

import collections
import os
import re
import subprocess
import sys

# "VMA LMA Size Align" then the output section (no indent), an input
# section (8 spaces) or a symbol (16 spaces).
MAP_LINE = re.compile(r'^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ ( *)(\S.*)$')
ARCHIVE_MEMBER = re.compile(r'/lib([\w+-]+)\.a\(([^)]*)\)$')

# Static archives of the Swift toolchain by origin; anything else is "other".
STDLIB = {'swiftSynchronization', 'swiftGlibc', 'swift_Builtin_float', 'swift_Volatile'}
RUNTIME = {'dispatch', 'BlocksRuntime'}
FOUNDATION = {'FoundationEssentials', '_FoundationCShims', '_FoundationCollections',
              'FoundationInternationalization', '_FoundationICU', 'Foundation', 'CoreFoundation'}
REGEX = {'swift_StringProcessing', 'swift_RegexParser', 'swiftRegexBuilder'}

ROWS = ['project', 'Swift stdlib', 'Swift runtime', 'Foundation', 'regex', 'linker-made', 'other']


def origin(input_file):
    """(row, detail) for one input file named in the map."""
    if input_file == '<internal>':
        return 'linker-made', None
    if input_file.endswith('/footprint/Swift.o'):
        # libswiftCore.a's Swift.o, made collectable (scripts/unretained_stdlib.py).
        return 'Swift stdlib', 'swiftCore'
    target = re.search(r'/([^/]+)\.build/[^/]+\.o$', input_file)
    if target and '/.build/' in input_file:
        return 'project', target.group(1)
    member = ARCHIVE_MEMBER.search(input_file)
    if not member:
        if input_file.endswith('swiftrt.o'):
            return 'Swift runtime', 'swiftrt.o'
        return 'other', input_file.rsplit('/', 1)[-1]
    lib, obj = member.groups()
    if lib == 'swiftCore':
        # Swift.o is the standard library; the Unicode tables back String.
        # The other members are the runtime (C++): metadata, casts, demangler.
        if obj == 'Swift.o' or obj.startswith('Unicode'):
            return 'Swift stdlib', 'swiftCore'
        return 'Swift runtime', 'swiftCore'
    if lib == 'swift_Concurrency':
        return ('Swift stdlib' if obj.endswith('.swift.o') or obj == '_Concurrency.o'
                else 'Swift runtime'), '_Concurrency'
    for row, libs in (('Swift stdlib', STDLIB), ('Swift runtime', RUNTIME),
                      ('Foundation', FOUNDATION), ('regex', REGEX)):
        if lib in libs:
            return row, lib
    return 'other', 'lib%s.a' % lib


def file_sections(path):
    """Names of the sections that occupy bytes in the file."""
    out = subprocess.run(['readelf', '-SW', path], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+(\S+)', line)
        if m and m.group(2) not in ('NULL', 'NOBITS'):
            names.add(m.group(1))
    return names


def breakdown(stripped, map_path):
    kept = file_sections(stripped)
    rows = collections.Counter()
    details = collections.defaultdict(collections.Counter)
    section = None
    with open(map_path) as f:
        for line in f:
            m = MAP_LINE.match(line)
            if not m:
                continue
            size, indent, name = int(m.group(1), 16), len(m.group(2)), m.group(3)
            if indent == 0:
                section = name
            elif indent == 8 and section in kept:
                row, detail = origin(name.rsplit(':(', 1)[0])
                if row == 'linker-made':
                    detail = section
                rows[row] += size
                details[row][detail] += size
    total = os.path.getsize(stripped)
    rest = total - sum(rows.values())
    rows['other'] += rest
    details['other']['headers, alignment'] += rest
    return total, rows, details


def mib(n):
    return '%6.2f MiB' % (n / 1048576)


def report(stripped, map_path):
    total, rows, details = breakdown(stripped, map_path)
    print('%s: %s (%d bytes) stripped' % (stripped, mib(total).strip(), total))
    for row in ROWS:
        if not rows[row]:
            continue
        print('  %-14s %s %5.1f%%' % (row, mib(rows[row]), 100.0 * rows[row] / total))
        for detail, size in details[row].most_common(6):
            if detail and size >= 10240:
                print('      %-26s %s' % (detail, mib(size)))


def main(args):
    if not args or len(args) % 2:
        sys.exit(__doc__)
    for stripped, map_path in zip(args[::2], args[1::2]):
        if not os.path.exists(map_path):
            sys.exit('%s: no linker map; each release link writes one (Package.swift): '
                     'rm .build/release/libhandoff.so .build/release/handoff-cli, then make size' % map_path)
        report(stripped, map_path)


if __name__ == '__main__':
    main(sys.argv[1:])
