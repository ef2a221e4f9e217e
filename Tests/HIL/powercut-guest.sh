#!/bin/sh
# Runs inside the HIL guest as root (Tests/HIL/powercut.sh boots it): the door's state
# directory on an ext4 file system on a block device that the kernel's dm-log-writes records,
# while `kioskpad run` takes attempts on the emulated GPIO keypad, forwards its journal to a
# site server (`kioskpad verifier serve`, SQLite, on loopback), syncs its credential replica
# and is reloaded; then Tests/HIL/powercut-replay.py rebuilds the device at recorded flush
# points (and between them, with unflushed writes dropped or reordered) and checks each one.
# Usage: powercut-guest.sh BIN_DIR OUT_DIR STATES SEED DOOR_EVERY
#   STATES       how many crash states to check (0: every flush point)
#   DOOR_EVERY   start the door on every Nth state (1: every one)
set -u
BIN=$1; OUT=$2; STATES=$3; SEED=$4; DOOR_EVERY=$5
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KP=$BIN/kioskpad; EMU=$BIN/keypad-emu
W=/tmp/powercut; mkdir -p $W
say() { echo "powercut: $*"; }
die() { say "FAIL $*"; echo "powercut: 0 states checked, 1 failed"; exit 1; }

. $REPO/Tests/HIL/state-device.sh
door_config $W/door.yaml $STATE http://127.0.0.1:$PORT/verify http://127.0.0.1:$PORT/v1/credentials
taskset -c 0 $KP run --config $W/door.yaml --display plain > $W/door.out 2>&1 &
DOOR=$!
wait_count $W/door.out 'keypad ready' 0 || die "the door did not start: $(tail -5 $W/door.out)"
wait_count $W/door.out 'credential replica synced.*changed=true' 0 || die "no first replica: $(grep -i replica $W/door.out | tail -3)"
mark replica-1
replicas=1
attempts=0
# 12 attempts, right and wrong PINs in turn; every 4th, a user added on the server (a new
# replica version the door must sync); after the 6th, a reload (SIGHUP).
for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
    if [ $((n % 2)) = 1 ]; then pin=2468; else pin=1357; fi
    # Typed again when a key is missed under emulation (type_pin_until: '*' deletes a partial
    # entry first), as this suite checks the state on disk, not the keypad; the keypad suites
    # count every press.
    type_pin_until $W/door.out 'attempt decided' $pin || die "attempt $n was not decided after 3 tries: $(tail -3 $W/door.out)"
    attempts=$n
    mark shown-$n
    if [ $((n % 4)) = 0 ]; then
        synced=$(grep -c 'credential replica synced.*changed=true' $W/door.out)
        printf '%04d' $((1000 + n)) | $KP verifier user add user$n --config $W/site.yaml > /dev/null 2>&1 || die "verifier user add user$n"
        wait_count $W/door.out 'credential replica synced.*changed=true' $synced || die "replica after user$n not synced"
        replicas=$((replicas + 1))
        mark replica-$replicas
    fi
    if [ $n = 6 ]; then
        reloads=$(grep -c 'reloaded' $W/door.out)
        kill -HUP $DOOR
        wait_count $W/door.out 'reloaded' $reloads || die "reload: $(tail -3 $W/door.out)"
        mark reloaded
    fi
    sleep 1
done
kill -TERM $DOOR; wait $DOOR; rc=$?
[ $rc = 0 ] || die "the door stopped with exit $rc: $(tail -5 $W/door.out)"
mark stopped
retyped=$(grep -c 'type_pin_until: no new' $W/emu.log 2>/dev/null || true)
say "workload: $attempts attempts shown (${retyped:-0} typed again after a missed key), $replicas replica versions, 1 reload; door exit 0"
mkdir -p $W/final && cp -a $STATE/. $W/final/
umount $SD || die "umount"
dmsetup remove kplog || die "dmsetup remove"
losetup -d $DATA

export EMU SIM W
# ---- replay and check -------------------------------------------------------------------
door_config $W/check.yaml $W/check-mnt/kioskpad http://127.0.0.1:9/verify http://127.0.0.1:9/v1/credentials
python3 $REPO/Tests/HIL/powercut-replay.py --log $LOG --base $W/base.img --work $W --final $W/final \
    --states $STATES --seed $SEED --door-every $DOOR_EVERY --attempts $attempts \
    --site-db $W/site/verifier.sqlite3 --check-door "sh $REPO/Tests/HIL/powercut-door.sh $BIN $W" \
    --summary $OUT/powercut.txt
rc=$?
kill $SITE 2>/dev/null
exit $rc
