# SPDX-License-Identifier: MIT OR Apache-2.0
"""A small reader of gettext .po/.pot files (the standard library has none):
each entry's flags, msgid, msgid_plural and msgstr forms. Entries are
separated by blank lines (as xgettext, msgmerge and msgfmt write them);
obsolete ones (#~) and the header (msgid "") are left out."""
import ast
import re
from dataclasses import dataclass, field

FIELD = re.compile(r"\{([A-Za-z0-9_]+)\}")


@dataclass
class Entry:
    msgid: str = ""
    plural: str | None = None
    strings: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)


def fields(text: str) -> set[str]:
    """The `{name}` fields of a text (Sources/HandoffAgent/Localization)."""
    return set(FIELD.findall(text))


def parse_block(lines: list[str]) -> Entry:
    entry = Entry()
    target = None
    for line in lines:
        if line.startswith("#,"):
            entry.flags |= {f.strip() for f in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            value = ast.literal_eval(line)
            if target == "msgid":
                entry.msgid += value
            elif target == "plural":
                entry.plural += value
            elif isinstance(target, int):
                entry.strings[target] += value
        else:
            keyword, _, rest = line.partition(" ")
            value = ast.literal_eval(rest.strip())
            if keyword == "msgid":
                entry.msgid, target = value, "msgid"
            elif keyword == "msgid_plural":
                entry.plural, target = value, "plural"
            elif keyword == "msgstr" or keyword.startswith("msgstr["):
                entry.strings.append(value)
                target = len(entry.strings) - 1
            else:
                target = None  # msgctxt: not used here
    return entry


def read(path) -> list[Entry]:
    text = open(path, encoding="utf-8").read()
    entries = []
    for block in re.split(r"\n\s*\n", text):
        lines = [l for l in block.splitlines() if l.strip() and not l.startswith("#~")]
        if any(l.startswith("msgid ") for l in lines):
            entry = parse_block(lines)
            if entry.msgid:
                entries.append(entry)
    return entries
