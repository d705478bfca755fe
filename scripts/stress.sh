#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs a command RUNS times in a row with every core busy (one busy loop
# per core, started here and always stopped, whatever happens), stopping
# at the first failure: a flake that needs a loaded machine shows here
# instead of in someone's `make test`. mk/stress.mk (make test-stress).
#
#   sh scripts/stress.sh RUNS command [arguments...]
#
#   STRESS_CORES=N   busy loops to start (default: nproc)
set -u
runs=${1:?usage: stress.sh RUNS command [arguments...]}
shift
cores=${STRESS_CORES:-$(nproc)}
busy=""
stop_busy() {
    for pid in $busy; do kill "$pid" 2>/dev/null; done
    for pid in $busy; do wait "$pid" 2>/dev/null; done
    busy=""
}
trap stop_busy EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

i=0
while [ "$i" -lt "$cores" ]; do
    sh -c 'while :; do :; done' &
    busy="$busy $!"
    i=$((i + 1))
done

run=1
while [ "$run" -le "$runs" ]; do
    echo "stress: run $run of $runs, $cores busy loops, load $(cut -d' ' -f1-3 /proc/loadavg)"
    if ! "$@"; then
        echo "stress: run $run of $runs failed"
        exit 1
    fi
    run=$((run + 1))
done
echo "stress: $runs runs passed"
