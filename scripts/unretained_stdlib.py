#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The toolchain's standard library object, with its sections collectable.

The static libswiftCore.a keeps the standard library in one object,
Swift.o, and marks every one of its per-function sections SHF_GNU_RETAIN,
so `--gc-sections` may drop none of them: whatever the library calls, all
of it is linked. This copies Swift.o out of the archive with that flag
cleared; the library's release link (Package.swift) takes the copy ahead
of the archive, and the linker then keeps what something refers to, as it
does for every other object. Nothing else in the object changes.

    scripts/unretained_stdlib.py OUTPUT [SWIFTC]
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

SHF_GNU_RETAIN = 0x200000
# Functions, constants and variables: kept when something refers to them.
COLLECTABLE = ('.text.', '.rodata.', '.data.')


def archive_path(swiftc):
    """libswiftCore.a of the toolchain that builds the library."""
    info = json.loads(subprocess.run([swiftc, '-print-target-info'], check=True,
                                     capture_output=True, text=True).stdout)
    resources = info['paths']['runtimeResourcePath']
    return os.path.join(resources + '_static', 'linux', 'libswiftCore.a')


def clear_retain(data):
    """Clears SHF_GNU_RETAIN on the code and data sections of an ELF64 LE
    object. The runtime's records (swift5_*: conformances, type and field
    descriptors) stay retained: it finds them by section, not by reference."""
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit('Swift.o: not a 64-bit little-endian ELF object')
    shoff = struct.unpack_from('<Q', data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    names_at = struct.unpack_from('<Q', data, shoff + shstrndx * shentsize + 0x18)[0]
    cleared = 0
    for i in range(shnum):
        header = shoff + i * shentsize
        name_end = data.index(b'\0', names_at + struct.unpack_from('<I', data, header)[0])
        name = data[names_at + struct.unpack_from('<I', data, header)[0]:name_end].decode()
        if not name.startswith(COLLECTABLE):
            continue
        at = header + 8  # sh_flags
        flags = struct.unpack_from('<Q', data, at)[0]
        if flags & SHF_GNU_RETAIN:
            struct.pack_into('<Q', data, at, flags & ~SHF_GNU_RETAIN)
            cleared += 1
    return cleared


def main(args):
    if not 1 <= len(args) <= 2:
        sys.exit(__doc__)
    output = args[0]
    archive = archive_path(args[1] if len(args) > 1 else 'swiftc')
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(['ar', 'x', archive, 'Swift.o'], cwd=work, check=True)
        with open(os.path.join(work, 'Swift.o'), 'rb') as f:
            data = bytearray(f.read())
    cleared = clear_retain(data)
    if not cleared:
        sys.exit('%s: Swift.o has no retained section; the link needs no copy' % archive)
    os.makedirs(os.path.dirname(output) or '.', exist_ok=True)
    with open(output + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(output + '.tmp', output)
    print('%s: %d sections made collectable' % (output, cleared))


if __name__ == '__main__':
    main(sys.argv[1:])
