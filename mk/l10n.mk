# SPDX-License-Identifier: MIT OR Apache-2.0
# Translations of the words a person reads in the agent and the `handoff`
# tool (gettext; docs/TRANSLATING.md). libhandoff.so is not translated.
#
#   make locale       build/locale/<lang>/LC_MESSAGES/handoff.mo for po/LINGUAS
#   make update-po    po/handoff.pot extracted anew, every po/<lang>.po merged
#   make test-l10n    the template is current, every language complete, placeholders
#                     kept, and the tool speaks German (Tests/l10n)

LINGUAS      := $(shell sed "/^\#/d" po/LINGUAS)
LOCALEDIR    := $(BUILD)/locale
MO_FILES     := $(foreach lang,$(LINGUAS),$(LOCALEDIR)/$(lang)/LC_MESSAGES/handoff.mo)
# Where marked texts live: the agent and the tool (Sources/HandoffAgent's
# Localization defines tr and trn).
L10N_SOURCES := $(sort $(shell find Sources/HandoffAgent Sources/HandoffTool -name '*.swift'))
# xgettext has no Swift mode; marked texts are plain literals (StaticString
# makes sure), which its C mode reads. No line numbers (a moved line does
# not change the template) and sorted by msgid (a moved string neither);
# `{name}` fields, not printf formats, hence no-c-format.
XGETTEXT_FLAGS := --language=C --from-code=UTF-8 --keyword= --keyword=tr:1 --keyword=trn:1,2 \
    --flag=tr:1:no-c-format --flag=trn:1:no-c-format --flag=trn:2:no-c-format \
    --add-comments=TRANSLATORS: --add-location=file --sort-output \
    --package-name=handoff --msgid-bugs-address=https://github.com/libhandoff/libhandoff/issues

.PHONY: locale update-po test-l10n

## locale: compile the translations into build/locale/
locale: $(MO_FILES)

# make install (mk/install.mk, read before this file) installs them.
install: $(MO_FILES)

# msgfmt comes with gettext, which `make deps` installs (under -j too).
ifneq ($(filter test,$(MAKECMDGOALS)),)
$(MO_FILES): | deps
endif

$(LOCALEDIR)/%/LC_MESSAGES/handoff.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

# The template's opening comment is ours (xgettext writes a placeholder).
## update-po: extract po/handoff.pot anew and merge every po/LANG.po
update-po:
	@# Its C reader warns of Swift's multi-line literals and apostrophes in them: not marked texts.
	xgettext $(XGETTEXT_FLAGS) -o po/handoff.pot.tmp $(L10N_SOURCES) 2> po/xgettext.log || { cat po/xgettext.log; exit 1; }
	@grep -v 'warning: unterminated' po/xgettext.log >&2 || true; rm -f po/xgettext.log
	@{ printf '%s\n' '# SPDX-License-Identifier: MIT OR Apache-2.0' \
	    '# The texts a person reads in handoff, the agent and the tool: made by' \
	    '# `make update-po` from the sources, never edited by hand (docs/TRANSLATING.md).' '#'; \
	  sed '1,/^#$$/d' po/handoff.pot.tmp; } > po/handoff.pot.new && rm -f po/handoff.pot.tmp
	@# Only its date would change: the template (and the languages' headers) stay as they are.
	@if [ -f po/handoff.pot ] && [ "$$(grep -v '^"POT-Creation-Date:' po/handoff.pot.new)" = "$$(grep -v '^"POT-Creation-Date:' po/handoff.pot)" ]; \
	then rm -f po/handoff.pot.new; echo "po/handoff.pot: no change"; else mv -f po/handoff.pot.new po/handoff.pot; echo "po/handoff.pot: extracted anew"; fi
	@for lang in $(LINGUAS); do \
	  echo "msgmerge po/$$lang.po"; \
	  msgmerge --quiet --update --backup=none --add-location=file --sort-output po/$$lang.po po/handoff.pot || exit 1; \
	done

# The test re-extracts with the same flags (passed in), so the Makefile
# stays the one place they are written.
# The agent's German notifications and tray use the fake notification server
# and StatusNotifierWatcher (mk/agent-dbus.mk).
## test-l10n: (test) the template current, every language complete, the tool in German
test-l10n: $(MO_FILES) $(TOOL) $(LIB) $(FAKE_NOTIFICATIONS) $(FAKE_WATCHER)
	HANDOFF_TOOL=$(abspath $(TOOL)) HANDOFF_LOCALEDIR=$(abspath $(LOCALEDIR)) \
	  HANDOFF_FAKE_NOTIFICATIONS=$(abspath $(FAKE_NOTIFICATIONS)) HANDOFF_LIBRARY=$(abspath $(LIB)) \
	  HANDOFF_FAKE_WATCHER=$(abspath $(FAKE_WATCHER)) \
	  L10N_XGETTEXT_FLAGS='$(XGETTEXT_FLAGS)' L10N_SOURCES='$(L10N_SOURCES)' \
	  $(PYTHON) -m pytest -q -p no:cacheprovider Tests/l10n

EXTRA_TESTS += test-l10n
