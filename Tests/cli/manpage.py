# SPDX-License-Identifier: MIT OR Apache-2.0
"""Reading a man page written with the man macros, as far as the checks of
test_cli_manpages need: its sections (.SH) and subsections (.SS), the
options each defines (a tagged paragraph, .TP, whose tag is "--name VALUE")
and the options it names anywhere; and whether groff and man render it
without a warning."""

import os
import re
import shutil
import subprocess

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


def plain(line):
    """A roff line as text: macro name, font changes, quotes and escapes gone."""
    line = re.sub(r"^\.[A-Za-z]+\s*", "", line)
    line = re.sub(r"\\f[BIRP]", "", line)
    for escape, text in ((r"\-", "-"), (r"\%", ""), (r"\&", ""), (r"\(dq", '"'), (r"\e", "\\")):
        line = line.replace(escape, text)
    return line.replace('"', "").strip()


class Block:
    """Lines of the page (comments left out) between two headings."""

    def __init__(self, lines):
        self.lines = [line for line in lines if not line.startswith('.\\"')]

    def text(self):
        return "\n".join(plain(line) for line in self.lines)

    def named_options(self):
        """The options named in the text, and in the examples (.EX) those on
        the command lines that run handoff (not systemctl's)."""
        found, example, continuing = set(), False, False
        for line in self.lines:
            if line.startswith((".EX", ".EE")):
                example, continuing = line.startswith(".EX"), False
                continue
            text = plain(line)
            if example:
                words = [word for word in text.split() if not re.match(r"^[A-Z_]+=", word)]
                counted = continuing or words[:1] == ["handoff"]
                continuing = counted and text.endswith("\\")  # a backslash: the command goes on
                if not counted:
                    continue
            found |= set(OPTION.findall(text))
        return found

    def definitions(self):
        """{option: its value's placeholder or None} of the tagged paragraphs
        whose tag is an option."""
        found = {}
        for index, line in enumerate(self.lines[:-1]):
            if line.strip() in (".TP", ".TQ"):
                tag = plain(self.lines[index + 1]).split()
                if tag and OPTION.fullmatch(tag[0]):
                    found[tag[0]] = tag[1] if len(tag) > 1 else None
        return found

    def tag_lines(self):
        """The tag of every tagged paragraph, as text."""
        return [plain(self.lines[i + 1]) for i, line in enumerate(self.lines[:-1]) if line.strip() in (".TP", ".TQ")]

    def tags(self):
        """The first word of every tagged paragraph's tag."""
        return [tag.split()[0] for tag in self.tag_lines() if tag]


def _split(lines, macro):
    """{heading: Block} for each `macro` heading among lines."""
    parts, heading, body = {}, None, []
    for line in lines:
        if line.startswith(macro + " "):
            if heading is not None:
                parts[heading] = Block(body)
            heading, body = plain(line), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        parts[heading] = Block(body)
    return parts


class ManPage:
    def __init__(self, source):
        self.source = source
        self.lines = source.splitlines()
        self.whole = Block(self.lines)
        self.sections = _split(self.lines, ".SH")

    def subsections(self, section):
        return _split(self.sections[section].lines, ".SS")


def render_warnings(path):
    """What groff (all warnings on), man (as lintian runs it) and lexgrog
    say about the page: empty when it renders cleanly."""
    said = []
    groff = subprocess.run(["groff", "-man", "-ww", "-z", str(path)], capture_output=True, text=True, timeout=60)
    said += [f"groff: {line}" for line in groff.stderr.splitlines()]
    if groff.returncode != 0:
        said.append(f"groff exited {groff.returncode}")
    if shutil.which("man"):
        env = dict(os.environ, LC_ALL="C.UTF-8", MANROFFSEQ="", MANWIDTH="80")
        man = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", str(path)],
                             capture_output=True, text=True, timeout=60, env=env)
        said += [f"man: {line}" for line in man.stderr.splitlines()]
        if man.returncode != 0:
            said.append(f"man exited {man.returncode}")
    if shutil.which("lexgrog"):  # man-db's reader of the NAME line (whatis, apropos; lintian's bad-whatis-entry)
        whatis = subprocess.run(["lexgrog", str(path)], capture_output=True, text=True, timeout=60)
        if whatis.returncode != 0 or f'"{path.stem} - ' not in whatis.stdout:
            said.append(f"lexgrog: no NAME line for {path.stem}: {whatis.stdout.strip()} {whatis.stderr.strip()}")
    return said
