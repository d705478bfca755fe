# SPDX-License-Identifier: MIT OR Apache-2.0
# fish completion for handoff(1): commands, account actions, each command's
# options with what they take (a file for --socket, the roles, network
# interfaces). Kept in step with `handoff COMMAND --help` by
# Tests/cli/test_cli_completions.py.

# The command: the first word after the global options (which take no value).
function __handoff_command
    for token in (commandline -opc)[2..-1]
        switch $token
            case '-*'
            case '*'
                echo $token
                return 0
        end
    end
    return 1
end

# Is the command one of the arguments?
function __handoff_using
    contains -- (__handoff_command) $argv
end

# `handoff account` with no action yet.
function __handoff_account_needs_action
    set -l words
    for token in (commandline -opc)[2..-1]
        string match -q -- '-*' $token; or set -a words $token
    end
    test "$words[1]" = account; and test (count $words) -eq 1
end

# `handoff account ACTION`, ACTION one of the arguments.
function __handoff_account_action
    set -l words
    for token in (commandline -opc)[2..-1]
        string match -q -- '-*' $token; or set -a words $token
    end
    test "$words[1]" = account; and contains -- "$words[2]" $argv
end

complete -c handoff -f

# Before the command.
complete -c handoff -n 'not __handoff_command' -l version -d 'print the version and exit'
complete -c handoff -n 'not __handoff_command' -a account -d "create the account, show its pairing code, join it"
complete -c handoff -n 'not __handoff_command' -a pair -d 'add a device to the account by comparing a code'
complete -c handoff -n 'not __handoff_command' -a device -d "show or change this device's name and role"
complete -c handoff -n 'not __handoff_command' -a settings -d 'show or change the controls: pause, per device, per app'
complete -c handoff -n 'not __handoff_command' -a history -d 'list, search, show and delete what the history keeps'
complete -c handoff -n 'not __handoff_command' -a relay -d 'show, set or clear the MQTT broker that relays handoffs'
complete -c handoff -n 'not __handoff_command' -a browser-host -d "the browser extension's native-messaging host"
complete -c handoff -n 'not __handoff_command' -a nearby -d 'list the activities your other devices offer, live'
complete -c handoff -n 'not __handoff_command' -a devices -d "list the account's devices heard recently"
complete -c handoff -n 'not __handoff_command' -a publish -d 'offer an activity to your other devices'
complete -c handoff -n 'not __handoff_command' -a continue -d 'continue an activity another device offers'
complete -c handoff -n 'not __handoff_command' -a doctor -d 'check this device and its network for Handoff'
complete -c handoff -n 'not __handoff_command' -a agent -d 'run the per-user agent (foreground)'
complete -c handoff -n 'not __handoff_command' -a mpris-bridge -d 'offer what your media player plays to your other devices'
complete -c handoff -n 'not __handoff_command' -a documents-bridge -d 'offer the document you work on to your other devices'
complete -c handoff -n 'not __handoff_command' -a session -d 'be an app for a script: JSON lines in and out'
complete -c handoff -n 'not __handoff_command' -a help -d 'show the help of a command'

# Every command's.
complete -c handoff -l json -d 'print JSON for scripts'
complete -c handoff -l help -d 'show the help and exit'

# help COMMAND
complete -c handoff -n '__handoff_using help' -a 'account pair device nearby devices publish continue doctor agent settings history relay browser-host mpris-bridge documents-bridge session'

# account
complete -c handoff -n __handoff_account_needs_action -a create -d 'make a new account'
complete -c handoff -n __handoff_account_needs_action -a code -d 'print the pairing code'
complete -c handoff -n __handoff_account_needs_action -a join -d 'store the account of a pairing code (- reads it from stdin)'
complete -c handoff -n __handoff_account_needs_action -a show -d 'print the account ID, files and this device'
complete -c handoff -n __handoff_account_needs_action -a rotate -d 'replace the account key on this device'
complete -c handoff -n '__handoff_account_needs_action; or __handoff_account_action create join' -l force -d 'replace an existing, different account'
complete -c handoff -n '__handoff_account_needs_action; or __handoff_account_action code' -l qr -d 'show the pairing code as a QR code too'

# pair
complete -c handoff -n '__handoff_using pair' -l join -d 'join another account even though this device has one'
complete -c handoff -n '__handoff_using pair' -l force -d "with --join: replace this device's account"
complete -c handoff -n '__handoff_using pair' -l name -x -d "this device's name, as the other devices show it"
complete -c handoff -n '__handoff_using pair' -l yes-if-code -x -d 'answer the comparison: yes if the code is DIGITS'
complete -c handoff -n '__handoff_using pair' -l show-code -d 'pair by a one-time code: make one and show it'
complete -c handoff -n '__handoff_using pair' -l code -x -d 'pair by the one-time code the other device shows'
complete -c handoff -n '__handoff_using pair' -l timeout -x -d 'how long to wait (at most and by default 120 s)'
complete -c handoff -n '__handoff_using pair' -l listen -x -d 'joiner: TCP address HOST:PORT to listen on'

# device
complete -c handoff -n '__handoff_using device' -l name -x -d 'the name other devices show'
complete -c handoff -n '__handoff_using device' -l role -x -a 'full send-only' -d 'full, or send-only'

# settings pause|resume|device DEVICE offer|accept|history on|off|app ID mute|unmute|web-domains|history|documents
# |history on|off|other-devices|days|entries|folder NAME PATH|remove
# |documents max-size|sync-wait|exclude PATH|include PATH|elsewhere on|off
function __handoff_settings_words
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]; and string match -q -- '-*' $words[1]
        set -e words[1]
    end
    test "$words[1]" = settings; or return 1
    set -e words[1]
    test (count $words) -eq $argv[1]; or return 1
    test -z "$argv[2]"; or test "$words[1]" = "$argv[2]"
end
complete -c handoff -n '__handoff_settings_words 0' -a 'pause resume device app history folder documents'
complete -c handoff -n '__handoff_settings_words 2 device' -a 'offer accept history'
complete -c handoff -n '__handoff_settings_words 3 device' -a 'on off'
complete -c handoff -n '__handoff_settings_words 2 app' -a 'mute unmute web-domains history documents'
complete -c handoff -n '__handoff_settings_words 3 app' -a 'on off'
complete -c handoff -n '__handoff_settings_words 1 history' -a 'on off other-devices days entries'
complete -c handoff -n '__handoff_settings_words 2 folder' -a 'remove (__fish_complete_directories)'
complete -c handoff -n '__handoff_settings_words 1 documents' -a 'max-size sync-wait exclude include elsewhere'

# history list|search TERMS|show ID|delete ID...
function __handoff_history_needs_action
    set -l words
    for token in (commandline -opc)[2..-1]
        string match -q -- '-*' $token; or set -a words $token
    end
    test "$words[1]" = history; and test (count $words) -eq 1
end
complete -c handoff -n __handoff_history_needs_action -a list -d 'the newest first (the default)'
complete -c handoff -n __handoff_history_needs_action -a search -d 'the entries matching TERMS'
complete -c handoff -n __handoff_history_needs_action -a show -d 'one entry'
complete -c handoff -n __handoff_history_needs_action -a delete -d 'delete entries, an app, a device or all'
complete -c handoff -n '__handoff_using history' -l app -x -d "only this app's entries (list, delete)"
complete -c handoff -n '__handoff_using history' -l device -x -d "only this device's entries (list, delete)"
complete -c handoff -n '__handoff_using history' -l limit -x -d 'at most N entries'
complete -c handoff -n '__handoff_using history' -l all -d 'delete every entry'

# relay show|set URL|clear
function __handoff_relay_needs_action
    set -l words
    for token in (commandline -opc)[2..-1]
        string match -q -- '-*' $token; or set -a words $token
    end
    test "$words[1]" = relay; and test (count $words) -eq 1
end
complete -c handoff -n __handoff_relay_needs_action -a show -d 'show the relay (the default)'
complete -c handoff -n __handoff_relay_needs_action -a set -d 'use the broker at URL'
complete -c handoff -n __handoff_relay_needs_action -a clear -d 'forget the relay and its password'
complete -c handoff -n '__handoff_using relay' -l password-file -r -F -d 'set: read the password from FILE (- for stdin)'
complete -c handoff -n '__handoff_using relay' -l ca-file -r -F -d "set: check the broker against the CA certificates in FILE"
complete -c handoff -n '__handoff_using relay' -l allow-plain -d 'set: allow mqtt:// (no TLS) to a broker elsewhere'

# mpris-bridge
complete -c handoff -n '__handoff_using mpris-bridge' -l bus -r -d 'the D-Bus address of the session bus'

# documents-bridge
complete -c handoff -n '__handoff_using documents-bridge' -l elsewhere -d 'also offer files outside your home directory'
complete -c handoff -n '__handoff_using documents-bridge' -l exclude -r -F -d 'never offer files under PATH (repeatable)'

# session
complete -c handoff -n '__handoff_using session' -l app -x -d "the app's bundle identifier (required)"
complete -c handoff -n '__handoff_using session' -l type -x -d 'an activity type the app publishes and continues (repeatable)'
complete -c handoff -n '__handoff_using session' -l team -x -d "the app's team identifier"

# nearby, devices, continue, doctor: the agent or an engine of their own
complete -c handoff -n '__handoff_using nearby devices publish continue doctor session' -l agent -d 'through the handoff agent, or fail'
complete -c handoff -n '__handoff_using nearby devices publish continue doctor session' -l embedded -d "with an engine of the tool's own"

# nearby
complete -c handoff -n '__handoff_using nearby' -l type -x -d 'only activities of this type'
complete -c handoff -n '__handoff_using nearby' -l once -d 'exit after the first available activity'
complete -c handoff -n '__handoff_using nearby' -l timeout -x -d 'stop after this many seconds'

# devices
complete -c handoff -n '__handoff_using devices' -l listen -x -d 'with an engine of its own, seconds to listen (default 5)'

# publish
complete -c handoff -n '__handoff_using publish' -l type -x -d 'the activity type (required)'
complete -c handoff -n '__handoff_using publish' -l title -x -d 'the title other devices show'
complete -c handoff -n '__handoff_using publish' -l info -x -d 'a userInfo entry KEY=VALUE (repeatable)'
complete -c handoff -n '__handoff_using publish' -l url -x -d 'web page (http or https) where no app can continue it'
complete -c handoff -n '__handoff_using publish' -l team -x -d 'team identifier the tool acts as (default HANDOFFCLI)'
complete -c handoff -n '__handoff_using publish' -l required-key -x -d 'a userInfo key the activity needs (repeatable)'
complete -c handoff -n '__handoff_using publish' -l searchable -d 'eligible for search: the history keeps it'
complete -c handoff -n '__handoff_using publish' -l keyword -x -d 'a keyword search finds it by (repeatable)'
complete -c handoff -n '__handoff_using publish' -l searchable-key -x -d 'a userInfo key whose strings search finds it by (repeatable)'
complete -c handoff -n '__handoff_using publish' -l persistent-id -x -d 'its persistent identifier'
complete -c handoff -n '__handoff_using publish' -l once -d 'exit after the first device continued it'
complete -c handoff -n '__handoff_using publish' -l timeout -x -d 'stop after this many seconds'

# continue
complete -c handoff -n '__handoff_using continue' -l type -x -d "the activity's type (default: as offered)"
complete -c handoff -n '__handoff_using continue' -l team -x -d 'team identifier the tool acts as (default HANDOFFCLI)'
complete -c handoff -n '__handoff_using continue' -l timeout -x -d 'seconds to wait for the offer (default 15)'

# doctor
complete -c handoff -n '__handoff_using doctor' -l listen -x -d 'seconds to listen for beacons (default 5; 0 skips)'
complete -c handoff -n '__handoff_using doctor' -l peer -x -d "test another device's channel at HOST:PORT (repeatable)"
complete -c handoff -n '__handoff_using doctor' -l beacon-port -x -d 'the beacon UDP port to check (default 52370)'
complete -c handoff -n '__handoff_using doctor' -l no-multicast -d 'do not join the multicast groups'
complete -c handoff -n '__handoff_using doctor' -l interface -x -a '(__fish_print_interfaces)' -d 'check multicast on this interface only'
complete -c handoff -n '__handoff_using doctor' -l channel -x -d 'the channel address HOST:PORT to test listening on'
complete -c handoff -n '__handoff_using doctor' -l connect-timeout -x -d 'seconds to connect to and authenticate a channel (default 3)'

# agent
complete -c handoff -n '__handoff_using agent' -l socket -r -F -d 'where apps connect'
complete -c handoff -n '__handoff_using agent' -l no-launch -d 'never launch installed apps nor open web pages'
complete -c handoff -n '__handoff_using agent' -l no-notifications -d 'show no desktop notifications'
complete -c handoff -n '__handoff_using agent' -l no-tray -d 'show no tray icon'
complete -c handoff -n '__handoff_using agent' -l no-search -d 'serve no search of the history to the desktop'
complete -c handoff -n '__handoff_using agent' -l no-bus-api -d 'serve no session-bus API to desktop front ends'
complete -c handoff -n '__handoff_using agent' -l no-pairing -d 'never offer to pair new devices'

# Network options: the beacons (pair, nearby, devices, publish, continue, agent)...
complete -c handoff -n '__handoff_using pair nearby devices publish continue agent session' -l beacon-port -x -d 'UDP port of the discovery beacons (default 52370)'
complete -c handoff -n '__handoff_using pair nearby devices publish continue agent session' -l peer -x -d 'also send beacons to HOST:PORT (repeatable)'
complete -c handoff -n '__handoff_using pair nearby devices publish continue agent session' -l no-multicast -d 'no multicast: only the --peer addresses'
complete -c handoff -n '__handoff_using pair nearby devices publish continue agent session' -l interface -x -a '(__fish_print_interfaces)' -d 'multicast on this interface only (repeatable)'
# ...the tailnet (not pair: it runs no engine)...
complete -c handoff -n '__handoff_using nearby devices publish continue agent doctor session' -l tailnet-socket -r -F -d "tailscaled's socket, for the tailnet's devices"
complete -c handoff -n '__handoff_using nearby devices publish continue agent doctor session' -l no-tailnet -d 'do not ask tailscaled for tailnet devices'
# ...and the channel (nearby: --connect-timeout only).
complete -c handoff -n '__handoff_using devices publish continue agent session' -l channel -x -d 'address HOST:PORT the TLS channel listens on'
complete -c handoff -n '__handoff_using nearby devices publish continue agent session' -l connect-timeout -x -d 'seconds to connect to and authenticate a device (default 3)'
complete -c handoff -n '__handoff_using devices publish continue agent session' -l fetch-timeout -x -d "seconds a sender's app has to hand over an activity (default 5)"

# browser-host (the browsers start it; a person installs or prints its manifests)
complete -c handoff -n '__handoff_using browser-host' -l install-user -d 'write the host manifests for this user'
complete -c handoff -n '__handoff_using browser-host' -l print-manifest -x -a 'firefox chromium' -d 'print the host manifest for a browser'
complete -c handoff -n '__handoff_using browser-host' -l program -r -F -d 'with --print-manifest: the launcher it names'
