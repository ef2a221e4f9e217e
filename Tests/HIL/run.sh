#!/usr/bin/env bash
# Hardware-in-loop suite: boots a real Linux kernel with gpio-sim under QEMU once
# (../shared/hil/run-hil.sh) and runs every check in Tests/HIL/guest.sh against a real
# GPIO chip through libgpiod. Needs ../shared/hil/setup.sh to have run (.ci/run does).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
hil=${KIOSKPAD_HIL_DIR:-$repo/../shared/hil}
[ -x "$hil/run-hil.sh" ] || { echo "hil: no $hil/run-hil.sh (shared/ must sit beside the checkout)" >&2; exit 2; }
cd "$repo"
swift build --product kioskpad >&2
swift build --product keypad-emu >&2
bin=$(swift build --show-bin-path)
out=$(mktemp -d /tmp/kioskpad-hil-out.XXXXXX)
set +e
HIL_RWDIR=$out HIL_TIMEOUT=${HIL_TIMEOUT:-900} "$hil/run-hil.sh" "sh '$repo/Tests/HIL/guest.sh' '$bin' '$out'" | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
echo "hil: guest exit $status; artifacts in $out" >&2
# The guest's summary ("hil: N passed, M failed") closes the run.
summary=$(grep -a '^hil: [0-9]* passed, [0-9]* failed' "$out/console.log" | tail -1)
echo "${summary:-hil: 0 passed, 1 failed}"
[ -n "$summary" ] || status=1
exit $status
