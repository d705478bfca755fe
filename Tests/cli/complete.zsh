# SPDX-License-Identifier: MIT OR Apache-2.0
# What zsh offers for a command line, as a person pressing Tab would get it:
# an interactive zsh in a pseudo-terminal (zsh/zpty) loads the completion
# system with FOLDER first in $fpath, the line is typed with a Tab, and the
# words every completion adds (compadd, wrapped) are written to OUT, one a
# line; the shell exits once the completion is done.
#
#   zsh -f complete.zsh FOLDER OUT 'handoff acc'
zmodload zsh/zpty || exit 3
folder=$1 out=$2 line=$3
zpty shell zsh -f -i
zpty -w shell "PS1=''; fpath=(${(q)folder} \$fpath); autoload -Uz compinit; compinit -u -D"
# The matches of each compadd, other than those only gathered (-O, -A, -D).
zpty -w shell "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi;" \
    "local -a matched; builtin compadd -A matched \"\$@\"; print -rl -- \$matched >> ${(q)out}; builtin compadd \"\$@\"; }"
zpty -w shell "comppostfuncs=(exit)"
zpty -w shell "bindkey '^I' complete-word"
zpty -w -n shell "$line"$'\t'
# Until the shell exits (the caller bounds the time).
while zpty -r shell chunk; do :; done
exit 0
