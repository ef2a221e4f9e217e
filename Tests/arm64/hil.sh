#!/usr/bin/env bash
# Hardware-in-loop on arm64: the arm64 release build of kioskpad (scripts/cross-arm64.sh, linked
# against Debian trixie's libgpiod 2.x; with --suite bookworm, the bookworm build, against
# bookworm's libgpiod 1.6, in the bookworm arm64 root) runs the GPIO suite, Tests/HIL/guest.sh, on a real
# kernel GPIO chip (gpio-sim) inside an emulated arm64 system (Tests/Guest/run.sh --arch arm64). By
# default its core (HIL_SUITE=core): every key scanned, a PIN through `run`, the relay pulsed on
# a grant and never on a denial, the relay off after a kill -9 (the kernel releasing it, and
# `door off` on a model of Raspberry Pi's kernel, which keeps it driven). `--all` runs every
# section (door inputs, MQTT, evdev, Wiegand, the LCD over i2c-dev, ...): a full system under
# TCG is slow, 28 checks took about 13 minutes here. Then, with --debs DIR, the footprint of
# the packaged arm64 door (Benchmarks/Footprint/footprint.py) measured inside that system,
# where RSS is the program's own (under qemu-user it would be the emulator's), and how often an
# idle door wakes there (Tests/arm64/idle-wakeups.sh).
#
#   Tests/arm64/hil.sh [--suite trixie|bookworm] [--all] [--bin DIR] [--debs DIR] [--footprint-runs N]
#                      [--unordered-bin DIR]
#
# --bin DIR: the arm64 binaries (kioskpad and keypad-emu; default: build them).
# --unordered-bin DIR: also measure the door built without the link-order file.
# Closes with "hil-arm64: N passed, M failed".
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=''
debs=''
unordered=''
suite=core
release=trixie
runs=5
while [ $# -gt 0 ]; do
    case $1 in
        --bin) bin=$(cd "$2" && pwd); shift 2 ;;
        --debs) debs=$(cd "$2" && pwd); shift 2 ;;
        --unordered-bin) unordered=$(cd "$2" && pwd); shift 2 ;;
        --all) suite=all; shift ;;
        --suite) release=${2:?--suite needs trixie or bookworm}; shift 2 ;;
        --footprint-runs) runs=${2:?--footprint-runs needs a number}; shift 2 ;;
        *) echo "hil-arm64: unknown option '$1' (valid: --suite trixie|bookworm, --all, --bin DIR, --debs DIR, --footprint-runs N, --unordered-bin DIR)" >&2; exit 2 ;;
    esac
done
source "$repo/scripts/arm64/toolchain.sh"
case $release in
    trixie) api=2 guest_root=$arm64_target_root ;;
    bookworm)
        api=1 guest_root=$arm64_bookworm_root
        [ -n "$bin" ] || bin=$("$repo/scripts/cross-arm64.sh" --bookworm | tail -1) ;;
    *) echo "hil-arm64: --suite must be trixie or bookworm, not '$release'" >&2; exit 2 ;;
esac
[ -n "$bin" ] || bin=$("$repo/scripts/cross-arm64.sh" | tail -1)
for program in kioskpad keypad-emu; do
    [ -x "$bin/$program" ] || { echo "hil-arm64: no $bin/$program (scripts/cross-arm64.sh builds both)" >&2; exit 2; }
done
out=$(mktemp -d /tmp/kioskpad-hil-arm64.XXXXXX)
# The guest sees the clone and $out only; the build's folder is in the cache (cross-arm64.sh).
mkdir "$out/bin"
cp "$bin/kioskpad" "$bin/keypad-emu" "$out/bin/"
bin=$out/bin
footprint=''
if [ -n "$debs" ]; then
    door=$out/door
    revision=1; [ "$release" = trixie ] || revision='1~deb12'
    dpkg-deb -x "$(ls "$debs"/kioskpad_*-${revision}_arm64.deb | head -1)" "$door"
    # An emulated system takes seconds to work through footprint.py's 10,000 keys.
    footprint="; export FOOTPRINT_STOP_TIMEOUT_S=300; echo '== footprint: the packaged door'; python3 '$repo/Benchmarks/Footprint/footprint.py' '$door/usr/bin/kioskpad' $runs"
    if [ -n "$unordered" ]; then
        cp "$unordered/kioskpad" "$out/kioskpad-unordered"
        footprint+="; echo '== footprint: without the link-order file'; python3 '$repo/Benchmarks/Footprint/footprint.py' '$out/kioskpad-unordered' $runs"
    fi
fi
idle_door=$bin/kioskpad
[ -z "$debs" ] || idle_door=$door/usr/bin/kioskpad
footprint+="; sh '$repo/Tests/arm64/idle-wakeups.sh' '$idle_door' '$repo/config/users.example'"
# The guest's root is an overlay on tmpfs (half the guest's memory); the suite's files are small.
set +e
GUEST_ARM64_ROOT=$guest_root GUEST_RWDIR=$out GUEST_MEM=${GUEST_MEM:-2G} "$repo/Tests/Guest/run.sh" --arch arm64 \
    "uname -m; HIL_SUITE=$suite sh '$repo/Tests/HIL/guest.sh' '$bin' '$out' $api; rc=\$? $footprint; exit \$rc" | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
echo "hil-arm64: guest exit $status; artifacts in $out" >&2
summary=$(grep -a '^hil: [0-9]* passed, [0-9]* failed' "$out/console.log" | tail -1)
library=$(sed -n 's/^keytest: .*, \(libgpiod [^;]*\);.*/\1/p' "$out/all.out" 2>/dev/null | head -1 || true)
summary=${summary/hil:/hil-arm64:}
echo "${summary:-hil-arm64: 0 passed, 1 failed} (aarch64, $release root, ${library:-libgpiod unknown})"
[ -n "$summary" ] || status=1
exit $status
