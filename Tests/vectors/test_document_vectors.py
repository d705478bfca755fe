# SPDX-License-Identifier: MIT OR Apache-2.0
"""docs/PROTOCOL.md's vectors against the independent Python recomputations
beside this file (protocol_vectors.py, pairing_vectors.py, relay_vectors.py,
code_pairing_vectors.py): every value they print must be the document's
vector of that name. The document's markers are those DocumentVectors
(Swift) reads: a line starting with "Vector `name`" before an indented
block, or a row of a table whose first column is headed "vector".

    python3 -m pytest -q Tests/vectors
"""

import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PROTOCOL = HERE.parents[1] / "docs" / "PROTOCOL.md"
SCRIPTS = ["protocol_vectors.py", "pairing_vectors.py", "code_pairing_vectors.py", "relay_vectors.py"]


def document_vectors(text):
    """name -> value, by the document's markers."""
    vectors = {}
    lines = text.split("\n")
    in_table = False
    for i, line in enumerate(lines):
        if line.startswith("Vector `"):
            name = line.split("`")[1]
            j = i + 1
            while j < len(lines) and lines[j] and not lines[j].startswith("    "):
                j += 1
            while j < len(lines) and not lines[j]:
                j += 1
            value = ""
            while j < len(lines) and lines[j].startswith("    "):
                value += re.sub(r"\s", "", lines[j])
                j += 1
            vectors[name] = value
        elif line.startswith("|"):
            cells = [c.strip() for c in line.split("|")[1:]]
            if cells[0] == "vector":
                in_table = True
            elif in_table and len(cells) >= 2 and cells[1].count("`") >= 2:
                vectors[cells[0]] = cells[1].split("`")[1]
        else:
            in_table = False
    return vectors


def printed(script):
    """name -> value from a script's "name: value" or "| name | `value` |" lines."""
    out = subprocess.run([sys.executable, str(HERE / script)], check=True, capture_output=True, text=True).stdout
    values = {}
    for line in out.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.split("|")[1:]]
            values[cells[0]] = cells[1].strip("`")
        elif ": " in line:
            name, value = line.split(": ", 1)
            values[name] = value
    return values


@pytest.fixture(scope="module")
def document():
    return document_vectors(PROTOCOL.read_text(encoding="utf-8"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_recomputed_values_are_the_documents(document, script):
    values = printed(script)
    assert len(values) >= 8, f"{script} printed {len(values)} values"
    for name, value in values.items():
        assert name in document, f"{script} computes {name!r}, which PROTOCOL.md has no vector of"
        assert document[name] == value, f"PROTOCOL.md's {name!r} differs from {script}'s {value}"


def test_the_parser_finds_the_documents_vectors(document):
    # A parser that found nothing would let every script pass.
    assert {"advert packet", "pkS", "code w", "pairing beacon", "Damm table"} <= document.keys()
    assert len(document) >= 40
