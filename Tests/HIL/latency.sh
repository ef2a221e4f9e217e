#!/usr/bin/env bash
# HIL latency benchmark (on demand, not part of .ci/run): boots the gpio-sim guest once and,
# for the debug and release builds, at settle_us 50 (the default) and 1000, debounce 10/10 ms,
# types 50 random keys at 300 ms and at 80 ms spacing (40 ms taps, 3 ms of contact chatter at
# each end) into `kioskpad keytest` and `kioskpad run`. Each line it prints gives correct,
# wrong, missed and doubled keys and the press -> key event (keytest) or press -> frame (run)
# latency median/p90/max, timed from the emulator's log of when each contact really closed.
#
#   Tests/HIL/latency.sh                 debug and release, 80 ms runs repeated 3 times
#   Tests/HIL/latency.sh --debug-only --repeat 1
#   Tests/HIL/latency.sh --evdev --release-only   instead: `kioskpad run` with a virtual USB
#                                                 numeric keypad (uinput), key write -> frame
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
repeat=3
evdev=''
builds=(debug release)
while [ $# -gt 0 ]; do
    case $1 in
        --repeat) repeat=$2; shift 2 ;;
        --debug-only) builds=(debug); shift ;;
        --release-only) builds=(release); shift ;;
        --evdev) evdev=1; shift ;;
        *) echo "latency: unknown option '$1' (valid: --repeat N, --debug-only, --release-only, --evdev)" >&2; exit 2 ;;
    esac
done
cd "$repo"
args=()
for build in "${builds[@]}"; do
    flags=(-c "$build")
    [ "$build" = release ] && flags+=(--static-swift-stdlib)   # as deploy/install.sh builds it
    swift build "${flags[@]}" --product kioskpad >&2
    swift build "${flags[@]}" --product keypad-emu >&2
    args+=("$build=$(swift build "${flags[@]}" --show-bin-path)")
done
out=$(mktemp -d /tmp/kioskpad-latency.XXXXXX)
GUEST_RWDIR=$out GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} "$repo/Tests/Guest/run.sh" "EVDEV_ONLY=$evdev sh '$repo/Tests/HIL/latency-guest.sh' '$out' '$repeat' ${args[*]}" | tee "$out/console.log" | grep '^latency:'
echo "latency: artifacts in $out" >&2
