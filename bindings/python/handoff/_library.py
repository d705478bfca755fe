# SPDX-License-Identifier: MIT OR Apache-2.0
"""Finding and loading libhandoff.so, and checking its version.

Places, in order (the first that loads wins):

1. ``$HANDOFF_LIBRARY``: when set, the only place looked at, so a typo
   never silently loads some other copy;
2. the copy inside the package (``pip install`` puts one there);
3. the repository's build folder (``build/lib``), when the package runs
   from a source checkout;
4. the system: the dynamic linker's own search (``LD_LIBRARY_PATH``,
   ``/etc/ld.so.cache``, ...).
"""

from __future__ import annotations

import ctypes
import os

ENVIRONMENT_VARIABLE = "HANDOFF_LIBRARY"
SONAME = "libhandoff.so.0"
#: The library major version this binding speaks.
MAJOR_VERSION = 0

# (os.path, not pathlib: importing pathlib costs more than the rest of
# this module; import time matters.)
_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
# bindings/python/handoff/_library.py -> the repository root.
_REPOSITORY_DIR = os.path.dirname(os.path.dirname(os.path.dirname(_PACKAGE_DIR)))


def places() -> list[tuple[str, str]]:
    """The (description, path or name) pairs tried, in order."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        return [(f"${ENVIRONMENT_VARIABLE}", explicit)]
    return [
        ("copy inside the package", os.path.join(_PACKAGE_DIR, SONAME)),
        ("repository build folder", os.path.join(_REPOSITORY_DIR, "build", "lib", SONAME)),
        ("system (dynamic linker search)", SONAME),
    ]


def load() -> tuple[ctypes.CDLL, str]:
    """The loaded library and where it came from, version checked.

    Raises ImportError listing every place tried, or naming the version
    found when it is not the one this binding speaks.
    """
    tried = []
    if not os.environ.get(ENVIRONMENT_VARIABLE):
        tried.append(f"${ENVIRONMENT_VARIABLE}: not set")
    for description, where in places():
        is_path = "/" in where
        if is_path and not os.path.exists(where):
            tried.append(f"{description}: {where}: no such file")
            continue
        try:
            library = ctypes.CDLL(where)
        except OSError as error:
            tried.append(f"{description}: {where}: {error}")
            continue
        check_version(library, where)
        return library, where
    raise ImportError(
        "libhandoff could not be loaded. Places tried, in order:\n  - "
        + "\n  - ".join(tried)
        + f"\nBuild it with `make` at the repository root, install it, or set "
        f"{ENVIRONMENT_VARIABLE} to the path of libhandoff.so."
    )


def check_version(library: ctypes.CDLL, where: str) -> None:
    """Refuses a library of another major version (or not libhandoff)."""
    try:
        number_fn = library.handoff_version_number
        string_fn = library.handoff_version_string
    except AttributeError:
        raise ImportError(f"{where} is not libhandoff: it has no handoff_version_number") from None
    number_fn.argtypes, number_fn.restype = [], ctypes.c_uint
    string_fn.argtypes, string_fn.restype = [], ctypes.c_char_p
    number = number_fn()
    if number // 10000 != MAJOR_VERSION:
        found = (string_fn() or b"?").decode("utf-8", "replace")
        raise ImportError(
            f"{where} is libhandoff {found} (version number {number}), but this binding "
            f"speaks libhandoff {MAJOR_VERSION}.x: install the binding that matches the "
            f"library, or point {ENVIRONMENT_VARIABLE} at a libhandoff {MAJOR_VERSION}.x."
        )
