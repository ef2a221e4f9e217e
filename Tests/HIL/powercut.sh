#!/usr/bin/env bash
# Power cuts at the block level (issue 47): boots the HIL guest (Tests/Guest/run.sh)
# and runs Tests/HIL/powercut-guest.sh there: the door's state directory on ext4 over the
# kernel's dm-log-writes while `kioskpad run` takes attempts on the emulated keypad, forwards
# events, syncs its replica and is reloaded; then crash states rebuilt from the record and
# checked (Tests/HIL/powercut-replay.py). Needs Tests/Guest/setup.sh to have run.
#
#   Tests/HIL/powercut.sh                    16 states, the door started on every 2nd (CI)
#   Tests/HIL/powercut.sh --states 0 --door-every 10    every flush point (and every 4th
#                                            interval between two), the door on every 10th
#   --seed N        which unflushed writes the states between flush points keep (default 47)
#   Tests/HIL/powercut.sh --wear 600 17      SD wear instead (Tests/HIL/wear-guest.sh): the
#                                            door as shipped, idle 600 s, then 17 attempts
#                                            36 s apart (100 an hour); bytes written, per day
# The summary ends the output ("powercut: N states checked ..., M failed", or the wear
# figures) and is kept in the artifacts folder it names.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
states=16; door_every=2; seed=47; wear=
while [ $# -gt 0 ]; do
    case $1 in
        --states) states=$2; shift 2 ;;
        --door-every) door_every=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --wear) wear="$2 $3"; shift 3 ;;
        *) echo "powercut: unknown option '$1' (valid: --states N, --door-every N, --seed N, --wear IDLE_S ATTEMPTS)" >&2; exit 2 ;;
    esac
done
cd "$repo"
# kioskpad-verifier: `kioskpad verifier` runs it from beside kioskpad (the site server).
for product in kioskpad kioskpad-verifier keypad-emu; do swift build --product $product >&2; done
bin=$(swift build --show-bin-path)
out=$(mktemp -d /tmp/kioskpad-powercut.XXXXXX)
set +e
if [ -n "$wear" ]; then
    guest="sh '$repo/Tests/HIL/wear-guest.sh' '$bin' '$out' $wear"
else
    guest="sh '$repo/Tests/HIL/powercut-guest.sh' '$bin' '$out' $states $seed $door_every"
fi
# The guest keeps the 32 MB device, its record and the replayed images in memory.
GUEST_MEM=${GUEST_MEM:-2G} GUEST_RWDIR=$out GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} "$repo/Tests/Guest/run.sh" "$guest" | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
echo "powercut: guest exit $status; artifacts in $out" >&2
if [ -n "$wear" ]; then
    grep -a '^powercut: \(idle\|busy\):' "$out/console.log" || { echo "powercut: no wear figures"; exit 1; }
    exit $status
fi
summary=$(grep -a '^powercut: [0-9]* states checked' "$out/console.log" | tail -1)
echo "${summary:-powercut: 0 states checked, 1 failed}"
[ -n "$summary" ] || status=1
exit $status
