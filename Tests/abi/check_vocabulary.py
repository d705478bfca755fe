#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""One delegate vocabulary across C, Python and Rust (README, "Delegate
methods"): every delegate method the header declares, under its current
(not deprecated) name, is a method of the Python and Rust bindings and is
listed in the README of each language. And the 0.1.0 names kept for one
release: each deprecated alias of the header (HANDOFF_DEPRECATED_("renamed
NEW")) is, in Rust, a trait method of the old name marked #[deprecated]
whose note names the new one (Rust's trait already said
continue_user_activity in 0.1.0; Python's methods always had Apple's names,
so neither has anything to keep there).

And the documents' vocabulary (docs/documents.md section 6): each
HANDOFF_DOCUMENT_*_KEY macro of the header is a constant of the same name
less HANDOFF_ with the same text in Python and in Rust, and each
handoff_document_X / handoff_url_X_accessing function is a method X
(X_accessing) of both bindings, named in both READMEs.

Usage: check_vocabulary.py [REPOSITORY_ROOT]"""

import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")


def read(*path):
    with open(os.path.join(root, *path), encoding="utf-8") as f:
        return f.read()


def delegate_methods(header):
    """(struct, field) of each function-pointer field of the delegate
    structs, without the deprecated aliases (a field whose declaration is
    marked HANDOFF_DEPRECATED_)."""
    methods = []
    for struct, body in re.findall(r"typedef struct (handoff_\w*delegate) \{(.*?)\} \1;", header, re.S):
        parts = re.split(r"\(\*(\w+)\)", body)
        for name, declaration in zip(parts[1::2], parts[2::2]):
            if "HANDOFF_DEPRECATED_" not in declaration.split(";")[0]:
                methods.append((struct, name))
    return methods


def renamed_fields(header):
    """(old, new) of each deprecated alias field of the delegate structs."""
    return re.findall(r'\(\*(\w+)\)\([^)]*\)\s*HANDOFF_DEPRECATED_\("renamed (\w+)"\)', header)


# 0.1.0 names that were never Rust trait methods.
NOT_RUST_METHODS_IN_0_1_0 = {"continue_activity"}

header = read("include", "handoff.h")
methods = delegate_methods(header)
renamed = renamed_fields(header)
places = {
    "README.md": read("README.md"),
    "bindings/python/README.md": read("bindings", "python", "README.md"),
    "bindings/rust/README.md": read("bindings", "rust", "README.md"),
}
python = "".join(read(p) for p in sorted(glob.glob(os.path.join(root, "bindings/python/handoff/*.py"))))
rust = "".join(read(p) for p in sorted(glob.glob(os.path.join(root, "bindings/rust/src/**/*.rs"), recursive=True)))

failed = passed = 0
if len(methods) < 12:
    print(f"FAIL - the header's delegates have {len(methods)} methods; the parser found too few")
    failed += 1
for struct, name in methods:
    missing = [place for place, text in places.items() if not re.search(rf"\b{name}\b", text)]
    if not re.search(rf"\bdef {name}\(", python):
        missing.append("a Python method")
    if not re.search(rf"\bfn {name}\b", rust):
        missing.append("a Rust method")
    if missing:
        print(f"FAIL - {struct}.{name} has no counterpart in: {', '.join(missing)}")
        failed += 1
    else:
        print(f"ok   - {struct}.{name}: C, Python, Rust and their READMEs")
        passed += 1
if len(renamed) < 8:
    print(f"FAIL - the header has {len(renamed)} renamed delegate fields; the parser found too few")
    failed += 1
for old, new in renamed:
    if old in NOT_RUST_METHODS_IN_0_1_0:
        continue
    deprecated = (rf'#\[deprecated\(\s*since = "0\.2\.0",\s*note = "renamed to `{new}`[^"]*"\s*\)\]'
                  rf'\s*fn {old}\(')
    if re.search(deprecated, rust):
        print(f"ok   - Rust keeps 0.1.0's {old}, deprecated, naming {new}")
        passed += 1
    else:
        print(f"FAIL - Rust has no fn {old} marked #[deprecated(since = \"0.2.0\", "
              f"note = \"renamed to `{new}`...\")]")
        failed += 1
keys = re.findall(r'#define (HANDOFF_(DOCUMENT_\w+_KEY)) "([^"]*)"', header)
if len(keys) < 2:
    print(f"FAIL - the header has {len(keys)} document keys; the parser found too few")
    failed += 1
for macro, name, text in keys:
    missing = []
    if not re.search(rf'^{name} = "{re.escape(text)}"', python, re.M):
        missing.append("Python")
    if not re.search(rf'pub const {name}: &str = "{re.escape(text)}";', rust):
        missing.append("Rust")
    if missing:
        print(f"FAIL - {macro} (\"{text}\") has no constant {name} of the same text in: {', '.join(missing)}")
        failed += 1
    else:
        print(f"ok   - {macro}: {name} in Python and Rust")
        passed += 1
document_methods = [m for m in re.findall(r"\bhandoff_document_(\w+)\(", header) if m not in ("new", "free", "activity")]
document_methods += [m + "_accessing" for m in re.findall(r"\bhandoff_url_(\w+)_accessing\(", header)]
if len(set(document_methods)) < 4:
    print(f"FAIL - the header has {len(set(document_methods))} document methods; the parser found too few")
    failed += 1
for name in sorted(set(document_methods)):
    missing = [place for place in ("bindings/python/README.md", "bindings/rust/README.md")
               if not re.search(rf"\b{name}\b", places[place])]
    if not re.search(rf"\bdef {name}\(", python):
        missing.append("a Python method")
    if not re.search(rf"\bfn {name}\b", rust):
        missing.append("a Rust method")
    if missing:
        print(f"FAIL - document method {name} has no counterpart in: {', '.join(missing)}")
        failed += 1
    else:
        print(f"ok   - document method {name}: C, Python, Rust and their READMEs")
        passed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
