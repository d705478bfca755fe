# SPDX-License-Identifier: MIT OR Apache-2.0
"""A PEP 517 build backend for the libhandoff Python package, standard
library only, so `pip install ./bindings/python` works offline and with no
build tools installed (a fresh venv has no `wheel`).

The wheel carries the package and a copy of the library: $HANDOFF_LIBRARY
if set, else the repository's build/lib. With no library it fails, saying
how to build one (`make lib`, `make wheel`), rather than make a wheel that
cannot run. It is tagged for this platform (linux_x86_64, for installing
here); `make wheel` turns it into a manylinux wheel with auditwheel. An
editable install bundles nothing: the checkout finds build/lib at import.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import zipfile
from pathlib import Path

SOURCE = Path.cwd()  # PEP 517: hooks run at the root of the source tree
PACKAGE = "handoff"
SONAME = "libhandoff.so.0"


# ------------------------------------------------------------ metadata

def _project() -> dict:
    """pyproject.toml's [project] table."""
    text = (SOURCE / "pyproject.toml").read_text("utf-8")
    try:
        import tomllib
        return tomllib.loads(text)["project"]
    except ImportError:  # Python < 3.11: our file's simple `key = "value"` lines
        section = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
        return dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"', section, re.M))


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.8')}",
        "License: MIT OR Apache-2.0",
        "Classifier: License :: OSI Approved :: MIT License",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Description-Content-Type: text/markdown",
        "",
    ]
    readme = SOURCE / "README.md"
    return "\n".join(lines) + "\n" + (readme.read_text("utf-8") if readme.exists() else "")


def _licence_files() -> list:
    """The project's two licence texts (the user's choice of either), from
    the binding's folder when an sdist was unpacked there, else from the
    repository root."""
    names = ("LICENSE-MIT", "LICENSE-APACHE")
    for folder in (SOURCE, SOURCE.parent.parent):
        found = [folder / name for name in names if (folder / name).is_file()]
        if len(found) == len(names):
            return found
    raise SystemExit("LICENSE-MIT and LICENSE-APACHE not found beside pyproject.toml or in the repository root")


def _dist_info(project: dict) -> str:
    return f"{_normalized(project['name'])}-{project['version']}.dist-info"


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


# ------------------------------------------------------------ the library

def _library() -> Path:
    """The real file of the library to bundle; SystemExit saying how to
    build it when there is none (a wheel without it could not run)."""
    explicit = os.environ.get("HANDOFF_LIBRARY")
    repository = SOURCE.parent.parent  # bindings/python -> the repository
    candidate = Path(explicit) if explicit else repository / "build" / "lib" / SONAME
    if candidate.is_file():
        return candidate.resolve()
    where = "$HANDOFF_LIBRARY" if explicit else "the repository's build folder"
    raise SystemExit(
        f"libhandoff: no library to put in the wheel: {candidate} ({where}) does not exist.\n"
        "The package is the library plus its binding, so build the library first, at the\n"
        "repository root:\n"
        "    make lib       then pip install ./bindings/python again\n"
        "    make wheel     a manylinux wheel, carrying the library, in build/python/wheelhouse\n"
        "or set HANDOFF_LIBRARY to a built libhandoff.so.0. (For a checkout whose build/lib\n"
        "comes and goes, pip install -e ./bindings/python finds the library when imported.)")


def _platform_tag() -> str:
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


# ------------------------------------------------------------ wheels

class _Wheel:
    """A wheel being written, with its RECORD."""

    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record: list[str] = []

    def add(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{name},sha256={digest},{len(data)}")

    def finish(self, dist_info: str) -> None:
        self.record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o100644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _build(wheel_directory: str, editable: bool) -> str:
    project = _project()
    dist_info = _dist_info(project)
    library = None if editable else _library()
    tag = f"py3-none-{_platform_tag()}" if library else "py3-none-any"  # editable: any
    filename = f"{_normalized(project['name'])}-{project['version']}-{tag}.whl"
    wheel = _Wheel(Path(wheel_directory) / filename)
    if editable:
        # The source tree itself on sys.path: it finds the repository's build.
        wheel.add(f"{_normalized(project['name'])}.pth", (str(SOURCE) + "\n").encode())
    else:
        for path in sorted((SOURCE / PACKAGE).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc" \
                    and not path.name.startswith("libhandoff.so"):
                wheel.add(path.relative_to(SOURCE).as_posix(), path.read_bytes())
        if library:
            wheel.add(f"{PACKAGE}/{SONAME}", library.read_bytes(), 0o755)
    wheel.add(f"{dist_info}/METADATA", _metadata(project).encode())
    for path in _licence_files():
        wheel.add(f"{dist_info}/licenses/{path.name}", path.read_bytes())
    wheel.add(f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: handoff_build\n"
        f"Root-Is-Purelib: {'false' if library else 'true'}\nTag: {tag}\n").encode())
    wheel.add(f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode())
    wheel.finish(dist_info)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _build(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{_normalized(project['name'])}-{project['version']}"
    filename = f"{base}.tar.gz"
    files = [SOURCE / "pyproject.toml", SOURCE / "README.md"]
    for folder in (PACKAGE, "build_backend", "tests", "bench"):
        files += [p for p in sorted((SOURCE / folder).rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
                  and not p.name.startswith("libhandoff.so")]
    with tarfile.open(Path(sdist_directory) / filename, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for path in files:
            if path.exists():
                tar.add(path, arcname=f"{base}/{path.relative_to(SOURCE).as_posix()}")
        for path in _licence_files():
            tar.add(path, arcname=f"{base}/{path.name}")
        pkg_info = _metadata(project).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return filename
