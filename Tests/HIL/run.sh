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
status=0
HIL_RWDIR=$out HIL_TIMEOUT=${HIL_TIMEOUT:-900} "$hil/run-hil.sh" "sh '$repo/Tests/HIL/guest.sh' '$bin' '$out'" || status=$?
echo "hil: guest exit $status; artifacts in $out"
exit $status
