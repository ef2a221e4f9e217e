#!/usr/bin/env bash
# CI's check that the benchmarks package still builds and each benchmark still runs: a debug
# build in the main build's scratch folder (only the benchmarks and what differs are compiled;
# the main build then recompiles about 130 steps, so CI runs this last), then every benchmark
# executable run once with KIOSKPAD_BENCHMARK_SMOKE=1 (one iteration, no warm-up: the figures
# mean nothing). Real figures come from `swift package benchmark` (docs/development.md).
# Needs what the benchmarks start: Debian's mosquitto and postgresql, libosdp (as the tests do).
#
#   Benchmarks/smoke.sh [NAME ...]     default: every benchmark target
#
# Closes with "benchmarks: N ran, M failed".
set -uo pipefail
cd "$(dirname "$0")"
export SWIFT_DETERMINISTIC_HASHING=1
# shellcheck source=/dev/null
source ../scripts/setup.sh > /dev/null
scratch=$(cd .. && pwd)/.build
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    mapfile -t names < <(sed -n 's/^            name: "\([A-Za-z]*\)",$/\1/p' Package.swift)
fi
if ! swift build --scratch-path "$scratch" > /tmp/kioskpad-benchmarks-build.log 2>&1; then
    tail -30 /tmp/kioskpad-benchmarks-build.log; echo "benchmarks: the package does not build" >&2; exit 1
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
# VerifierThroughput serves with a built kioskpad: the release one if there is one, else CI's debug build.
if [ -z "${KIOSKPAD_BINARY:-}" ] && [ ! -x "$scratch/release/kioskpad" ]; then export KIOSKPAD_BINARY="$scratch/debug/kioskpad"; fi
ran=0 failed=0
for name in "${names[@]}"; do
    started=$SECONDS
    log=$(mktemp /tmp/kioskpad-benchmark-"$name".XXXXXX)
    if KIOSKPAD_BENCHMARK_SMOKE=1 timeout 900 "$bin/$name" > "$log" 2>&1; then
        ran=$((ran + 1)); echo "benchmarks: $name ran once in $((SECONDS - started)) s"
    else
        failed=$((failed + 1)); tail -20 "$log"; echo "benchmarks: $name FAILED (log: $log)"
    fi
done
# Benchmarks/ManyDoors in a short form (the figures mean nothing, and no time is gated): ten
# doors holding the push channel through a change a second, and three remote unlocks through
# the API, each answered 202.
if [ $# -eq 0 ]; then
    door_binary=${KIOSKPAD_BINARY:-$scratch/release/kioskpad}
    for form in "--only changes --change-every 1 --push --seconds 5" "--only unlock --unlocks 3"; do
        started=$SECONDS
        log=$(mktemp /tmp/kioskpad-benchmark-manydoors.XXXXXX)
        # shellcheck disable=SC2086
        if timeout 300 python3 ManyDoors/many_doors.py "$door_binary" --doors 10 --users 200 $form > "$log" 2>&1 \
            && grep -Eq 'commit to door holding it: [1-9]|unlock: 3 through the API \(statuses \{202: 3\}\)' "$log"; then
            ran=$((ran + 1)); echo "benchmarks: ManyDoors $form ran once in $((SECONDS - started)) s"
        else
            failed=$((failed + 1)); tail -20 "$log"; echo "benchmarks: ManyDoors $form FAILED (log: $log)"
        fi
    done
fi
echo "benchmarks: $ran ran, $failed failed"
[ "$failed" -eq 0 ]
