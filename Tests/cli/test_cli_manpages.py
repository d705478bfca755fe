# SPDX-License-Identifier: MIT OR Apache-2.0
"""The man pages, man/handoff.1 and man/handoff-agent.1, kept in step with
the tool: every command has its subsection, every option its help lists is
described there (with the value help says it takes), no option is described
that help does not know, every environment variable the code reads is
named, and both pages render with no groff or man warning. Each check
returns what is wrong, and is shown to find a command or option taken out
of a page."""

import re
import shutil
from pathlib import Path

import pytest

from cli_help import account_actions, all_options, commands, global_options, options
from manpage import OPTION, ManPage, render_warnings

ROOT = Path(__file__).resolve().parents[2]
HANDOFF_1 = ROOT / "man" / "handoff.1"
AGENT_1 = ROOT / "man" / "handoff-agent.1"
EVERY_COMMAND = {"--json", "--help"}  # described once, under OPTIONS

needs_groff = pytest.mark.skipif(shutil.which("groff") is None,
                                 reason="groff is missing (groff-base: sh scripts/install-deps.sh)")


def tool_page_problems(source):
    """What handoff.1 gets wrong against the tool's help."""
    page = ManPage(source)
    problems = []
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "NETWORK OPTIONS", "ENVIRONMENT",
                    "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"):
        if section not in page.sections:
            problems.append(f"no section {section}")
    if problems:
        return problems
    described = page.sections["OPTIONS"].definitions()
    problems += [f"OPTIONS does not describe {option}" for option in global_options() if option not in described]
    network = page.sections["NETWORK OPTIONS"].definitions()
    subsections = page.subsections("COMMANDS")
    problems += [f"a subsection {name!r} of no command" for name in subsections
                 if name.removeprefix("handoff ") not in commands()]
    for command in commands():
        block = subsections.get(f"handoff {command}")
        if block is None:
            problems.append(f"no subsection 'handoff {command}' in COMMANDS")
            continue
        own, named = block.definitions(), block.named_options()
        accepted = options(command)
        for option, value in accepted.items():
            if option in EVERY_COMMAND:
                continue
            if option in own:
                shown = own[option]
            elif option in named and option in network:
                shown = network[option]
            else:
                problems.append(f"'handoff {command}' does not describe {option}")
                continue
            if shown != value:
                problems.append(f"'handoff {command}': {option} {shown or ''} where help says {option} {value or ''}")
        problems += [f"'handoff {command}' describes {option}, which its --help does not list"
                     for option in own if option not in accepted]
        listed = " ".join(block.text().split()).partition("Network options (see NETWORK OPTIONS")[2]
        problems += [f"'handoff {command}' lists {option} among its network options, which it does not take"
                     for option in OPTION.findall(listed) if option not in accepted]
    problems += [f"NETWORK OPTIONS describes {option}, which no command takes" for option in network
                 if not any(option in options(command) for command in commands())]
    actions = subsections.get("handoff account")
    if actions is not None:
        problems += [f"'handoff account' does not describe the action {action}" for action in account_actions()
                     if action not in actions.tags()]
    known = all_options()
    problems += [f"names {option}, which no --help lists" for option in sorted(page.whole.named_options() - known)]
    return problems


def agent_page_problems(source):
    """What handoff-agent.1 gets wrong against `handoff agent --help`."""
    page = ManPage(source)
    if "OPTIONS" not in page.sections:
        return ["no section OPTIONS"]
    described = page.sections["OPTIONS"].definitions()
    accepted = options("agent")
    problems = [f"does not describe {option}" for option in accepted if option not in described]
    problems += [f"{option} {described[option] or ''} where help says {option} {value or ''}"
                 for option, value in accepted.items() if option in described and described[option] != value]
    problems += [f"describes {option}, which `handoff agent --help` does not list" for option in described
                 if option not in accepted]
    problems += [f"names {option}, which `handoff agent --help` does not list"
                 for option in sorted(page.whole.named_options() - set(accepted) - set(global_options()))]
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "SYSTEMD UNITS", "LOGGING", "SIGNALS", "ENVIRONMENT", "FILES",
                    "EXIT STATUS", "SEE ALSO"):
        if section not in page.sections:
            problems.append(f"no section {section}")
    return problems


def variables_read():
    """The environment variables the tool, the agent and the core read."""
    names = set()
    for folder in ("HandoffTool", "HandoffAgent", "HandoffContinuity"):
        for path in (ROOT / "Sources" / folder).rglob("*.swift"):
            names |= set(re.findall(r'(?:environment[\[(]|getenv\()"([A-Z][A-Z0-9_]*)"', path.read_text()))
    return names


def environment_entries(source):
    """The variables ENVIRONMENT has an entry (a tagged paragraph) for."""
    tags = " ".join(ManPage(source).sections["ENVIRONMENT"].tag_lines())
    return set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", tags))


def environment_problems(tool_source, agent_source):
    """Variables the code reads that neither page has an entry for, and
    the tool's own (HANDOFF_*) that handoff.1 has none for."""
    described = environment_entries(tool_source) | environment_entries(agent_source)
    problems = [f"no ENVIRONMENT has an entry for {name}" for name in sorted(variables_read() - described)]
    problems += [f"handoff.1's ENVIRONMENT has no entry for {name}" for name in sorted(variables_read())
                 if name.startswith("HANDOFF_") and name not in environment_entries(tool_source)]
    return problems


# ---------------------------------------------------------------- the pages


def test_handoff_1_describes_every_command_and_option_help_lists_and_no_other():
    assert tool_page_problems(HANDOFF_1.read_text()) == []


def test_handoff_agent_1_describes_every_option_of_the_agent_and_no_other():
    assert agent_page_problems(AGENT_1.read_text()) == []


def test_the_pages_name_every_environment_variable_the_code_reads():
    assert "HANDOFF_AGENT_SOCKET" in variables_read() and "XDG_CONFIG_HOME" in variables_read()
    assert environment_problems(HANDOFF_1.read_text(), AGENT_1.read_text()) == []


def test_the_agent_page_describes_the_units_as_dist_ships_them():
    agent = ManPage(AGENT_1.read_text()).sections["SYSTEMD UNITS"].text()
    for unit in (ROOT / "dist" / "systemd").iterdir():
        assert unit.name in agent
        settings = [line for line in unit.read_text().splitlines() if re.match(r"^[A-Z]\w+=", line)]
        for line in settings:
            key, value = line.split("=", 1)
            if key in ("Description", "ExecStart", "Also", "Type", "WantedBy", "Requires", "After"):
                continue  # said in words
            assert line in agent or f"{key}=" in agent and value in agent, f"{unit.name}: {line}"


@needs_groff
@pytest.mark.parametrize("page", [HANDOFF_1, AGENT_1], ids=lambda p: p.name)
def test_the_page_renders_with_no_warning(page):
    assert render_warnings(page) == []


# ------------------------------------------- the checks find what is missing


def changed(source, old, new):
    """source with its first old replaced by new (which must be there)."""
    assert old in source, old
    return source.replace(old, new, 1)


def without_tagged_paragraph(source, option):
    """source less the .TP whose tag is option (its tag line and the .TP), in the first block having it."""
    roff = option.replace("-", r"\-")
    lines = source.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(rf"\fB{roff}\fR") and lines[i - 1] == ".TP")
    return "\n".join(lines[:index - 1] + lines[index + 1:]) + "\n"


def test_the_tool_page_check_finds_a_command_taken_out():
    source = changed(HANDOFF_1.read_text(), '.SS "handoff devices"', '.SS "handoff devicez"')
    assert "no subsection 'handoff devices' in COMMANDS" in tool_page_problems(source)


@pytest.mark.parametrize("option", ["--qr", "--yes-if-code", "--once", "--required-key", "--listen"])
def test_the_tool_page_check_finds_an_option_taken_out(option):
    problems = tool_page_problems(without_tagged_paragraph(HANDOFF_1.read_text(), option))
    assert any(problem.endswith(f"does not describe {option}") for problem in problems), problems


def test_the_tool_page_check_finds_a_network_option_no_longer_named():
    # nearby's list of network options loses --connect-timeout.
    source = changed(HANDOFF_1.read_text(), ".BR \\-\\-no\\-tailnet ,\n.BR \\-\\-connect\\-timeout .\n.SS \"handoff devices\"",
                     ".BR \\-\\-no\\-tailnet .\n.SS \"handoff devices\"")
    assert "'handoff nearby' does not describe --connect-timeout" in tool_page_problems(source)


def test_the_tool_page_check_finds_a_network_option_a_command_does_not_take():
    source = changed(HANDOFF_1.read_text(), ".BR \\-\\-no\\-tailnet ,\n.BR \\-\\-connect\\-timeout .\n.SS \"handoff devices\"",
                     ".BR \\-\\-no\\-tailnet ,\n.BR \\-\\-channel ,\n.BR \\-\\-connect\\-timeout .\n.SS \"handoff devices\"")
    assert "'handoff nearby' lists --channel among its network options, which it does not take" in \
        tool_page_problems(source)


def test_the_tool_page_check_finds_an_unknown_option_and_a_wrong_value():
    source = changed(HANDOFF_1.read_text(), r"\fB\-\-once\fR", r"\fB\-\-only\-once\fR")
    problems = tool_page_problems(source)
    assert "'handoff nearby' describes --only-once, which its --help does not list" in problems
    assert "names --only-once, which no --help lists" in problems
    source = changed(HANDOFF_1.read_text(), r"\fB\-\-timeout\fR \fISECONDS\fR", r"\fB\-\-timeout\fR")
    assert "'handoff pair': --timeout  where help says --timeout SECONDS" in tool_page_problems(source)


def test_the_tool_page_check_finds_an_account_action_taken_out():
    source = changed(HANDOFF_1.read_text(), ".TP\n.B rotate\n", ".PP\n")
    assert "'handoff account' does not describe the action rotate" in tool_page_problems(source)


@pytest.mark.parametrize("option", ["--socket", "--no-pairing", "--fetch-timeout", "--json"])
def test_the_agent_page_check_finds_an_option_taken_out(option):
    assert f"does not describe {option}" in agent_page_problems(without_tagged_paragraph(AGENT_1.read_text(), option))


def test_the_environment_check_finds_a_variable_taken_out():
    tool = changed(HANDOFF_1.read_text(), ".B \\%HANDOFF_AGENT_SOCKET\nThe path", ".B SOME_OTHER\nThe path")
    agent = changed(AGENT_1.read_text(), ".B \\%HANDOFF_AGENT_SOCKET\nThe socket's", ".B SOME_OTHER\nThe socket's")
    problems = environment_problems(tool, agent)
    assert "handoff.1's ENVIRONMENT has no entry for HANDOFF_AGENT_SOCKET" in problems
    assert "no ENVIRONMENT has an entry for HANDOFF_AGENT_SOCKET" in problems


@needs_groff
def test_the_render_check_finds_a_broken_page(tmp_path):
    broken = tmp_path / "broken.1"
    broken.write_text(changed(HANDOFF_1.read_text(), ".SH ENVIRONMENT", ".SH ENVIRONMENT\n.XY undefined\n\\fQbad"))
    assert render_warnings(broken)
