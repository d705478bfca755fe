# SPDX-License-Identifier: MIT OR Apache-2.0
"""What each shell's completion script offers for a command line, asked
the way each shell asks it: bash through the completion function with
COMP_WORDS and COMP_CWORD set, fish with `complete -C`, zsh by pressing Tab
in an interactive shell (complete.zsh). Each takes the folder holding the
scripts, so a test can ask a changed copy."""

import shlex
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
END = "\x1e"  # between the answers of several lines asked at once
WAIT = 60


def bash(folder, lines):
    """[COMPREPLY] for each line (a list of words, the last the one being
    completed), asked in one bash."""
    script = [f"source {shlex.quote(str(Path(folder) / 'handoff.bash'))}",
              'ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _handoff;'
              f' printf "%s\\n" "${{COMPREPLY[@]}}"; printf "{END}\\n"; }}']
    script += ["ask " + " ".join(shlex.quote(word) for word in words) for words in lines]
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(script)], capture_output=True, text=True,
                          timeout=WAIT)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return _answers(done.stdout, len(lines))


def fish(folder, lines):
    """[offered words] for each command line (a string), asked in one fish."""
    def quoted(text):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    script = [f"source {quoted(str(Path(folder) / 'handoff.fish'))}"]
    script += [f"complete -C {quoted(line)}; echo {END}" for line in lines]
    done = subprocess.run(["fish", "--no-config", "-c", "\n".join(script)], capture_output=True, text=True,
                          timeout=WAIT)
    assert done.returncode == 0 and not done.stderr, done.stderr
    # complete -C prints "word<TAB>description".
    return [[word.split("\t", 1)[0] for word in answer] for answer in _answers(done.stdout, len(lines))]


def zsh(folder, line):
    """The words zsh offers for a command line (a string) on Tab."""
    with tempfile.TemporaryDirectory(prefix="handoff-zsh-") as scratch:
        out = Path(scratch) / "offered"
        done = subprocess.run(["zsh", "-f", str(HERE / "complete.zsh"), str(folder), str(out), line],
                              capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return out.read_text().split() if out.exists() else []


def _answers(stdout, count):
    parts = stdout.split(END + "\n")
    assert len(parts) == count + 1 and parts[-1] == "", stdout
    return [[line for line in part.splitlines() if line] for part in parts[:-1]]
