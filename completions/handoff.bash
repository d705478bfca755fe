# SPDX-License-Identifier: MIT OR Apache-2.0
# bash completion for handoff(1): commands, account actions, each command's
# options, and the values some options take (a file for --socket, the roles,
# network interfaces). Needs nothing of the bash-completion package.
# Kept in step with `handoff COMMAND --help` by Tests/cli/test_cli_completions.py.

_handoff_commands="account pair device nearby devices publish continue doctor agent settings history relay browser-host mpris-bridge documents-bridge session help"
_handoff_account_actions="create code join show rotate"

# The options of one command (--json and --help: every command's).
_handoff_options() {
    local link="--beacon-port --peer --no-multicast --interface"
    local beacons="$link --tailnet-socket --no-tailnet"
    local channel="--channel --connect-timeout --fetch-timeout"
    local options
    case $1 in
        account) options="--force --qr" ;;
        pair) options="--join --force --name --yes-if-code --show-code --code --timeout --listen $link" ;;
        device) options="--name --role" ;;
        settings) options="" ;;
        history) options="--app --device --limit --all" ;;
        relay) options="--password-file --ca-file --allow-plain" ;;
        browser-host) options="--install-user --print-manifest --program" ;;
        mpris-bridge) options="--bus" ;;
        documents-bridge) options="--elsewhere --exclude" ;;
        session) options="--app --type --team --agent --embedded $beacons $channel" ;;
        nearby) options="--type --once --timeout --agent --embedded $beacons --connect-timeout" ;;
        devices) options="--listen --agent --embedded $beacons $channel" ;;
        publish) options="--type --title --info --url --team --required-key --searchable --keyword --searchable-key --persistent-id --once --timeout --agent --embedded $beacons $channel" ;;
        continue) options="--type --team --timeout --agent --embedded $beacons $channel" ;;
        doctor) options="--listen --peer --beacon-port --no-multicast --interface --tailnet-socket --no-tailnet --channel --connect-timeout --agent --embedded" ;;
        agent) options="--socket --no-launch --no-notifications --no-tray --no-search --no-bus-api --no-pairing $beacons $channel" ;;
    esac
    echo "$options --json --help"
}

# The options that take a value (the next word is that value, not an option).
_handoff_takes_value() {
    case $1 in
        --beacon-port | --peer | --interface | --channel | --connect-timeout | --fetch-timeout | \
        --type | --title | --info | --url | --team | --required-key | --timeout | --listen | \
        --keyword | --searchable-key | --persistent-id | --app | --device | --limit | \
        --name | --role | --yes-if-code | --code | --socket | --tailnet-socket | \
        --password-file | --ca-file | --print-manifest | --program | --bus | --exclude) return 0 ;;
    esac
    return 1
}

_handoff() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()

    # The command: the first word after the global options.
    local i=1 command=""
    while [ "$i" -lt "$COMP_CWORD" ]; do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) command=${COMP_WORDS[i]}; break ;;
        esac
        i=$((i + 1))
    done

    if [ -z "$command" ]; then
        case $cur in
            -*) COMPREPLY=($(compgen -W "--json --help --version" -- "$cur")) ;;
            *) COMPREPLY=($(compgen -W "$_handoff_commands" -- "$cur")) ;;
        esac
        return 0
    fi

    # A value after an option that takes one.
    if _handoff_takes_value "$prev"; then
        case $prev in
            --socket | --tailnet-socket | --password-file | --ca-file | --exclude) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
            --role) COMPREPLY=($(compgen -W "full send-only" -- "$cur")) ;;
            --interface) COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" -- "$cur")) ;;
        esac
        return 0
    fi

    case $command in
        help)
            [ "$COMP_CWORD" -eq $((i + 1)) ] && COMPREPLY=($(compgen -W "$_handoff_commands" -- "$cur"))
            return 0 ;;
        account)
            # The action: the first word after "account" that is no option.
            local j=$((i + 1)) action=""
            while [ "$j" -lt "$COMP_CWORD" ]; do
                case ${COMP_WORDS[j]} in
                    -*) ;;
                    *) action=${COMP_WORDS[j]}; break ;;
                esac
                j=$((j + 1))
            done
            if [ -z "$action" ] && [ "${cur#-}" = "$cur" ]; then
                COMPREPLY=($(compgen -W "$_handoff_account_actions" -- "$cur"))
                return 0
            fi
            local options="--json --help"
            case $action in
                create) options="--force $options" ;;
                code) options="--qr $options" ;;
                join) options="--force $options" ;;
                "") options=$(_handoff_options account) ;;
            esac
            case $cur in
                -*) COMPREPLY=($(compgen -W "$options" -- "$cur")) ;;
            esac
            return 0 ;;
    esac

    if [ "$command" = settings ] && [ "${cur#-}" = "$cur" ]; then
        # settings pause|resume|device DEVICE offer|accept|history on|off|app ID mute|unmute|web-domains|history|documents
        # |history on|off|other-devices|days|entries|folder NAME PATH|remove
        # |documents max-size|sync-wait|exclude PATH|include PATH|elsewhere on|off
        local words=() k=$((i + 1))
        while [ "$k" -lt "$COMP_CWORD" ]; do
            case ${COMP_WORDS[k]} in -*) ;; *) words+=("${COMP_WORDS[k]}") ;; esac
            k=$((k + 1))
        done
        case ${#words[@]}:${words[0]} in
            0:) COMPREPLY=($(compgen -W "pause resume device app history folder documents" -- "$cur")) ;;
            2:folder) COMPREPLY=($(compgen -d -- "$cur") $(compgen -W "remove" -- "$cur")) ;;
            1:documents) COMPREPLY=($(compgen -W "max-size sync-wait exclude include elsewhere" -- "$cur")) ;;
            2:documents)
                case ${words[1]} in
                    elsewhere) COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
                    exclude|include) COMPREPLY=($(compgen -f -- "$cur")) ;;
                esac ;;
            2:device) COMPREPLY=($(compgen -W "offer accept history" -- "$cur")) ;;
            3:device) COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
            2:app) COMPREPLY=($(compgen -W "mute unmute web-domains history documents" -- "$cur")) ;;
            3:app) COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
            1:history) COMPREPLY=($(compgen -W "on off other-devices days entries" -- "$cur")) ;;
            2:history) [ "${words[1]}" = other-devices ] && COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
        esac
        return 0
    fi

    if [ "$command" = history ] && [ "${cur#-}" = "$cur" ]; then
        # history list|search TERMS|show ID|delete ID...: the action only.
        local k=$((i + 1)) action=""
        while [ "$k" -lt "$COMP_CWORD" ]; do
            case ${COMP_WORDS[k]} in -*) ;; *) action=${COMP_WORDS[k]}; break ;; esac
            k=$((k + 1))
        done
        [ -z "$action" ] && COMPREPLY=($(compgen -W "list search show delete" -- "$cur"))
        return 0
    fi

    if [ "$command" = relay ] && [ "${cur#-}" = "$cur" ]; then
        # relay show|set URL|clear: the action only; a URL is typed.
        local k=$((i + 1)) action=""
        while [ "$k" -lt "$COMP_CWORD" ]; do
            case ${COMP_WORDS[k]} in -*) ;; *) action=${COMP_WORDS[k]}; break ;; esac
            k=$((k + 1))
        done
        [ -z "$action" ] && COMPREPLY=($(compgen -W "show set clear" -- "$cur"))
        return 0
    fi

    case $cur in
        -*) COMPREPLY=($(compgen -W "$(_handoff_options "$command")" -- "$cur")) ;;
    esac
    return 0
}

complete -F _handoff handoff
