# SPDX-License-Identifier: MIT OR Apache-2.0
"""The translations (docs/TRANSLATING.md, mk/l10n.mk): the committed
template is what the sources mark, every language of po/LINGUAS is
complete with the same `{fields}` as the English, and the real `handoff`
speaks German to a German-speaking person, falls back to English for a
bad translation, and finds its catalogue where `make install` puts it.

Run through `make test-l10n`, which passes the tool (HANDOFF_TOOL), the
built catalogues (HANDOFF_LOCALEDIR) and xgettext's flags."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import po_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "po"
TEMPLATE = PO / "handoff.pot"


def env_or_fail(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through `make test-l10n`")
    return value


def languages():
    return [l.strip() for l in (PO / "LINGUAS").read_text().splitlines() if l.strip() and not l.startswith("#")]


def messages(text):
    """A template without what changes on every extraction: the opening
    comment (ours, see mk/l10n.mk) and POT-Creation-Date."""
    text = text[text.index('msgid ""'):]
    return "\n".join(l for l in text.splitlines() if not l.startswith('"POT-Creation-Date:'))


# ---------------------------------------------------------------- the template

def test_the_template_is_a_fresh_extraction(tmp_path):
    flags = shlex.split(env_or_fail("L10N_XGETTEXT_FLAGS"))
    sources = env_or_fail("L10N_SOURCES").split()
    fresh = tmp_path / "fresh.pot"
    subprocess.run(["xgettext", *flags, "-o", str(fresh), *sources], cwd=ROOT, check=True,
                   stderr=subprocess.DEVNULL, timeout=120)
    assert messages(TEMPLATE.read_text(encoding="utf-8")) == messages(fresh.read_text(encoding="utf-8")), \
        "po/handoff.pot is not what the sources mark: run `make update-po` and translate (docs/TRANSLATING.md)"


# tr("…") / trn("…", "…": a literal right after the call, as Swift allows
# (StaticString: no interpolation). Cross-checks xgettext's C reader on Swift.
MARKED = re.compile(r'\btrn?\(\s*"((?:[^"\\\n]|\\.)*)"(?:\s*,\s*"((?:[^"\\\n]|\\.)*)")?')


ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0", "r": "\r"}


def swift_literal(text):
    """The text of a Swift literal with the escapes C shares (the only ones xgettext reads alike)."""
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(0)), text)


def test_every_marked_literal_is_in_the_template():
    ids = {e.msgid for e in po_file.read(TEMPLATE)} | {e.plural for e in po_file.read(TEMPLATE) if e.plural}
    found = 0
    for source in env_or_fail("L10N_SOURCES").split():
        for match in MARKED.finditer((ROOT / source).read_text(encoding="utf-8")):
            for literal in filter(None, match.groups()):
                found += 1
                text = swift_literal(literal)
                assert "\\(" not in literal, f"{source}: a marked text cannot interpolate: {literal}"
                assert text in ids, f"{source}: {text!r} is marked but not in po/handoff.pot (make update-po)"
    assert found >= len(ids)


def test_marked_texts_use_fields_not_printf_formats():
    for entry in po_file.read(TEMPLATE):
        for text in filter(None, [entry.msgid, entry.plural]):
            assert not re.search(r"%[0-9]*\$?[-+ #0]*[0-9]*[sdifu@]", text), f"use {{name}} fields, not {text!r}"
        assert "c-format" not in entry.flags


# ---------------------------------------------------------------- the languages

@pytest.mark.parametrize("lang", languages())
def test_every_text_is_translated(lang):
    po = PO / f"{lang}.po"
    check = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, str(po)],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "LC_ALL": "C"})
    assert check.returncode == 0, check.stderr
    assert "fuzzy" not in check.stderr and "untranslated" not in check.stderr, check.stderr
    for option in ("--untranslated", "--only-fuzzy"):
        left = subprocess.run(["msgattrib", option, "--no-obsolete", str(po)], capture_output=True, text=True,
                              check=True, timeout=60).stdout
        assert "msgid" not in left.replace('msgid ""\nmsgstr ""', ""), f"{po} {option}:\n{left}"
    template = {(e.msgid, e.plural) for e in po_file.read(TEMPLATE)}
    translated = {(e.msgid, e.plural) for e in po_file.read(po)}
    assert translated == template, f"{po} is not merged with the template: make update-po"


@pytest.mark.parametrize("lang", languages())
def test_translations_keep_the_fields(lang):
    for entry in po_file.read(PO / f"{lang}.po"):
        assert entry.strings and all(entry.strings), entry.msgid
        if entry.plural is None:
            assert po_file.fields(entry.strings[0]) == po_file.fields(entry.msgid), entry
        else:
            allowed = po_file.fields(entry.msgid) | po_file.fields(entry.plural)
            for form in entry.strings:
                assert po_file.fields(form) <= allowed, entry
        # A line break of the English is one in the translation too.
        assert all(s.count("\n") == entry.msgid.count("\n") for s in entry.strings), entry


# ---------------------------------------------------------------- the tool speaks

def run_doctor(tmp_path, env, *options):
    """`handoff doctor` with no account: its findings, fixes and summary
    come from the catalogue; --listen 0 and no multicast keep it local."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    base.pop("HANDOFF_LOCALEDIR", None)
    base.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_RUNTIME_DIR": str(home)})
    env = dict(env)
    tool = env.pop("TOOL", None) or env_or_fail("HANDOFF_TOOL")
    base.update(env)
    result = subprocess.run([tool, *options, "doctor", "--listen", "0", "--no-multicast", "--beacon-port", "47391"],
                            env=base, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr  # no account: a failure, in any language
    return result.stdout + result.stderr


def has_german_locale():
    out = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.lower()
    return "de_de.utf8" in out.split()


@pytest.mark.skipif(not has_german_locale(), reason="no de_DE.UTF-8 locale (scripts/install-deps.sh generates it)")
def test_a_german_speaking_person_reads_german(tmp_path):
    text = run_doctor(tmp_path, {"LANG": "de_DE.UTF-8", "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")})
    assert "Abhilfe: `handoff account create`" in text, text
    assert "0 Warnung(en), 1 Fehler." in text, text
    assert "warte 0 s auf andere Geräte" in text, text


def test_language_is_honoured_in_the_c_utf8_locale(tmp_path):
    # Where only C.UTF-8 exists, LANGUAGE still chooses (glibc ignores it in "C" only).
    text = run_doctor(tmp_path, {"LANGUAGE": "de", "LANG": "C.UTF-8", "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")})
    assert "Abhilfe:" in text and "in Ordnung" in text, text


def test_an_ungenerated_locale_still_honours_language(tmp_path):
    # LANG names a locale the system lacks: setlocale fails; C.UTF-8 then, and LANGUAGE.
    text = run_doctor(tmp_path, {"LANGUAGE": "de", "LANG": "de_AT.UTF-8@nonexistent",
                                 "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")})
    assert "Abhilfe:" in text, text


def test_english_by_default(tmp_path):
    text = run_doctor(tmp_path, {"LANG": "C.UTF-8", "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")})
    assert "       fix: `handoff account create`" in text, text
    assert "0 warning(s), 1 failure(s)." in text and "Abhilfe" not in text, text


def test_a_translation_with_other_fields_falls_back_to_english(tmp_path):
    # A translator renamed a field, and dropped one: those two texts are
    # shown in English, with every value; the others stay German.
    po = (PO / "de.po").read_text(encoding="utf-8")
    po = po.replace('msgstr "Abhilfe: {todo}"', 'msgstr "Abhilfe: {aufgabe}"')
    po = po.replace('msgstr "{ok} in Ordnung, {warnings} Warnung(en), {failures} Fehler."',
                    'msgstr "{ok} in Ordnung, {failures} Fehler."')
    assert "{aufgabe}" in po and "{ok} in Ordnung, {failures}" in po
    bad = tmp_path / "bad.po"
    bad.write_text(po, encoding="utf-8")
    catalogue = tmp_path / "locale" / "de" / "LC_MESSAGES"
    catalogue.mkdir(parents=True)
    subprocess.run(["msgfmt", "-o", str(catalogue / "handoff.mo"), str(bad)], check=True, timeout=60)
    text = run_doctor(tmp_path, {"LANGUAGE": "de", "LANG": "C.UTF-8", "HANDOFF_LOCALEDIR": str(tmp_path / "locale")})
    assert "       fix: `handoff account create`" in text and "{aufgabe}" not in text, text
    assert "0 warning(s), 1 failure(s)." in text, text
    assert "warte 0 s auf andere Geräte" in text, text  # the good ones still translated


def test_the_installed_layout_needs_no_variable(tmp_path):
    # <prefix>/bin/handoff reads <prefix>/share/locale, as make install lays it out.
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    tool = prefix / "bin" / "handoff"
    shutil.copy2(env_or_fail("HANDOFF_TOOL"), tool)
    for lang in languages():
        target = prefix / "share" / "locale" / lang / "LC_MESSAGES"
        target.mkdir(parents=True)
        shutil.copy2(Path(env_or_fail("HANDOFF_LOCALEDIR")) / lang / "LC_MESSAGES" / "handoff.mo", target)
    text = run_doctor(tmp_path, {"LANGUAGE": "de", "LANG": "C.UTF-8", "TOOL": str(tool)})
    assert "Abhilfe:" in text, text


# ---------------------------------------------------------------- every command, both languages

def run_tool(tmp_path, lang_env, *args, verbatim=""):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "config"), "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")})
    env.update(lang_env)
    result = subprocess.run([env_or_fail("HANDOFF_TOOL"), *map(str, args)], env=env, capture_output=True,
                            text=True, timeout=60)
    # A signal (a crash) is never an answer; nor is a field left unfilled.
    assert result.returncode in (0, 1), (args, result.returncode, result.stderr)
    text = result.stdout + result.stderr
    assert not re.search(r"\{[A-Za-z0-9_]+\}", text.replace(verbatim, "") if verbatim else text), text
    return text


ENGLISH = {"LANG": "C.UTF-8"}
GERMAN = {"LANG": "C.UTF-8", "LANGUAGE": "de"}


@pytest.mark.parametrize("lang_env, offering, title, looking, listening, this_device", [
    (ENGLISH, "Offering it (UDP port", '"Plan {x}" as', "Looking for activity", "Devices of account", "(this device)"),
    (GERMAN, "Wird angeboten (UDP-Port", "„Plan {x}“ als", "Suche Aktivität", "Geräte des Kontos", "(dieses Gerät)"),
])
def test_publish_continue_and_devices_speak_without_fault(tmp_path, lang_env, offering, title, looking, listening,
                                                          this_device):
    # Each on loopback, alone: ports nobody answers on, one-second waits.
    from cli_support import free_port  # Tests/cli, through conftest.py
    run_tool(tmp_path, lang_env, "account", "create")
    net = ["--beacon-port", free_port(), "--no-multicast", "--peer", f"127.0.0.1:{free_port()}", "--channel", "127.0.0.1:0"]
    # A value that looks like a field stays as it is (fields are filled in one pass).
    published = run_tool(tmp_path, lang_env, "publish", "--type", "com.example.l10n", "--title", "Plan {x}",
                         "--timeout", "1", *net, verbatim="Plan {x}")
    assert offering in published and title in published, published
    continued = run_tool(tmp_path, lang_env, "continue", "6F9619FF-8B86-D011-B42D-00C04FC964FF", "--timeout", "1",
                         "--embedded", *net)
    assert looking in continued, continued
    devices = run_tool(tmp_path, lang_env, "devices", "--listen", "1", "--embedded", *net)
    assert listening in devices and this_device in devices, devices


def test_json_stays_english(tmp_path):
    # Scripts read --json: doctor's findings there are English whatever the language.
    text = run_doctor(tmp_path, {"LANGUAGE": "de", "LANG": "C.UTF-8", "HANDOFF_LOCALEDIR": env_or_fail("HANDOFF_LOCALEDIR")},
                      "--json")
    report = json.loads(text.splitlines()[0])
    account = next(f for f in report["findings"] if f["check"] == "account.file")
    assert account["what"].startswith("no account on this device (") and account["todo"].startswith("`handoff account create` on"), account
