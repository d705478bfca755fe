# SPDX-License-Identifier: MIT OR Apache-2.0
"""The shell completions (completions/handoff.bash, _handoff, handoff.fish)
kept in step with the tool: each script names every command and option
help lists and no other, and each shell really completes with it: the
commands, the account actions, exactly each command's options, the values
of --role, --socket and --interface; in bash, an option that takes a value
is followed by its value, not by options. Every list compared against comes
from `handoff --help` (cli_help.py). Each check returns what is wrong, and
is shown to find a command or option taken out of a script."""

import re
import shutil
from pathlib import Path

import pytest

import completion_shells as shells
from cli_help import account_actions, all_options, commands, help_text, options

ROOT = Path(__file__).resolve().parents[2]
COMPLETIONS = ROOT / "completions"
SCRIPTS = {"bash": "handoff.bash", "zsh": "_handoff", "fish": "handoff.fish"}


def needs(shell):
    return pytest.mark.skipif(shutil.which(shell) is None,
                              reason=f"{shell} is missing (sh scripts/install-deps.sh installs it)")


def named_options(shell, source):
    """The options a script names (fish declares them as `complete ... -l NAME`)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    if shell == "fish":
        declared = "\n".join(line for line in code.splitlines() if line.startswith("complete "))
        return {f"--{name}" for name in re.findall(r"(?<![\w-])-l ([a-z][a-z-]*)", declared)}
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", code))


def naming_problems(shell, folder):
    source = (Path(folder) / SCRIPTS[shell]).read_text()
    known = all_options()
    named = named_options(shell, source)
    problems = [f"{SCRIPTS[shell]} does not name {option}" for option in sorted(known - named)]
    problems += [f"{SCRIPTS[shell]} names {option}, which no --help lists" for option in sorted(named - known)]
    problems += [f"{SCRIPTS[shell]} does not name the command {command}" for command in commands()
                 if not re.search(rf"(?<![\w-]){command}(?![\w-])", source)]
    return problems


def expected_answers():
    """(command line as words, what a shell must offer for it, exactly),
    all from the tool's help."""
    cases = [(["handoff", ""], set(commands()) | {"help"}),
             (["handoff", "acc"], {"account"}),
             (["handoff", "--json", "pu"], {"publish"}),
             (["handoff", "account", ""], set(account_actions())),
             (["handoff", "help", "dev"], {c for c in commands() if c.startswith("dev")}),
             (["handoff", "device", "--role", ""], {"full", "send-only"})]
    cases += [(["handoff", command, "--"], set(options(command))) for command in commands()]
    return cases


def answer_problems(line, offered, expected):
    if set(offered) != expected:
        return [f"`{' '.join(line)}<Tab>` offers {sorted(offered)}, help says {sorted(expected)}"]
    return []


def bash_problems(folder):
    cases = expected_answers()
    # After each option: its value when it takes one (no option offered), else the options.
    follow = [(command, option, value) for command in commands() for option, value in options(command).items()
              if option != "--help"]
    answers = shells.bash(folder, [line for line, _ in cases] + [["handoff", c, o, "--"] for c, o, _ in follow])
    problems = []
    for (line, expected), offered in zip(cases, answers):
        problems += answer_problems(line, offered, expected)
    for (command, option, value), offered in zip(follow, answers[len(cases):]):
        if value and offered:
            problems.append(f"bash offers {offered[:3]}... after `handoff {command} {option}`, which takes {value}")
        if not value and not offered:
            problems.append(f"bash offers no option after `handoff {command} {option}`, a flag")
    return problems


def fish_problems(folder):
    cases = expected_answers()
    answers = shells.fish(folder, [" ".join(line) for line, _ in cases])
    problems = []
    for (line, expected), offered in zip(cases, answers):
        problems += answer_problems(line, offered, expected)
    return problems


def zsh_problems(folder):
    problems = []
    for line, expected in expected_answers():
        problems += answer_problems(line, shells.zsh(folder, " ".join(line)), expected)
    return problems


def copy_with(tmp_path, script, old, new):
    """A folder holding the scripts, one of them with old replaced by new."""
    folder = tmp_path / "completions"
    shutil.copytree(COMPLETIONS, folder)
    source = (folder / script).read_text()
    assert old in source, old
    (folder / script).write_text(source.replace(old, new, 1))
    return folder


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("shell", sorted(SCRIPTS))
def test_each_script_names_every_command_and_option_and_no_other(shell):
    assert naming_problems(shell, COMPLETIONS) == []


@pytest.mark.parametrize("shell, script, old, new, problem", [
    ("bash", "handoff.bash", "--no-pairing ", "", "handoff.bash does not name --no-pairing"),
    ("zsh", "_handoff", "--yes-if-code=", "--yes-if=", "_handoff names --yes-if, which no --help lists"),
    ("fish", "handoff.fish", "-l fetch-timeout", "-l fetch-time", "handoff.fish does not name --fetch-timeout"),
])
def test_the_naming_check_finds_an_option_taken_out(tmp_path, shell, script, old, new, problem):
    assert problem in naming_problems(shell, copy_with(tmp_path, script, old, new))


# ---------------------------------------------------------------- bash


@needs("bash")
def test_bash_completes_commands_actions_options_and_values():
    assert bash_problems(COMPLETIONS) == []


@needs("bash")
def test_bash_completes_a_file_after_socket_and_interfaces_after_interface(tmp_path):
    (tmp_path / "agent.sock").touch()
    socket, interface = shells.bash(COMPLETIONS, [["handoff", "agent", "--socket", str(tmp_path / "ag")],
                                                  ["handoff", "nearby", "--interface", "l"]])
    assert socket == [str(tmp_path / "agent.sock")]
    assert "lo" in interface


@needs("bash")
@pytest.mark.parametrize("old, new, problem", [
    ("pair device nearby devices publish", "pair device nearby publish", "`handoff <Tab>` offers"),
    (" --qr", "", "`handoff account --<Tab>` offers"),
    ("--once --timeout --agent", "--timeout --agent", "`handoff nearby --<Tab>` offers"),
    ("--required-key | --timeout", "--timeout", "after `handoff publish --required-key`, which takes KEY"),
])
def test_the_bash_check_finds_a_command_or_option_taken_out(tmp_path, old, new, problem):
    problems = bash_problems(copy_with(tmp_path, "handoff.bash", old, new))
    assert any(problem in p for p in problems), problems


# ---------------------------------------------------------------- fish


@needs("fish")
def test_fish_completes_commands_actions_options_and_values():
    assert fish_problems(COMPLETIONS) == []


@needs("fish")
def test_fish_completes_a_file_after_socket(tmp_path):
    (tmp_path / "agent.sock").touch()
    [offered] = shells.fish(COMPLETIONS, [f"handoff agent --socket {tmp_path}/ag"])
    assert offered == [f"{tmp_path}/agent.sock"]


@needs("fish")
@pytest.mark.parametrize("old, new, problem", [
    ("-n 'not __handoff_command' -a doctor", "-n 'not __handoff_command' -a doctors", "`handoff <Tab>` offers"),
    ("-n '__handoff_using nearby' -l once", "-n '__handoff_using publish' -l once",
     "`handoff nearby --<Tab>` offers"),
])
def test_the_fish_check_finds_a_command_or_option_taken_out(tmp_path, old, new, problem):
    problems = fish_problems(copy_with(tmp_path, "handoff.fish", old, new))
    assert any(problem in p for p in problems), problems


# ---------------------------------------------------------------- zsh


@needs("zsh")
def test_zsh_reads_the_script():
    checked = shells.subprocess.run(["zsh", "-n", str(COMPLETIONS / "_handoff")], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr
    assert (COMPLETIONS / "_handoff").read_text().startswith("#compdef handoff\n")


@needs("zsh")
def test_zsh_completes_commands_actions_options_and_values():
    assert zsh_problems(COMPLETIONS) == []


@needs("zsh")
def test_the_zsh_check_finds_an_option_taken_out(tmp_path):
    folder = copy_with(tmp_path, "_handoff", "        '--no-pairing[never offer to pair new devices]' ;;",
                       "        ;;")
    assert answer_problems(["handoff", "agent", "--"], shells.zsh(folder, "handoff agent --"),
                           set(options("agent")))
    assert "--no-pairing" in help_text("agent")
