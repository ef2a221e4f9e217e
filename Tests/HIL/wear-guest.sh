#!/bin/sh
# Runs inside the HIL guest as root (Tests/HIL/powercut.sh --wear boots it): what the door
# writes to its state device (issue 47, SD wear), counted by the kernel's dm-log-writes.
# The door as shipped (heartbeat every 300 s, replica sync every 60 s, the journal's 4 MiB),
# forwarding to a site server and publishing to a Mosquitto broker (Home Assistant), stands
# idle for IDLE_S seconds, then takes an attempt every 36 s (100 an hour) BUSY_N times.
# Usage: wear-guest.sh BIN_DIR OUT_DIR IDLE_S BUSY_N
set -u
BIN=$1; OUT=$2; IDLE_S=$3; BUSY_N=$4
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KP=$BIN/kioskpad; EMU=$BIN/keypad-emu
W=/tmp/wear; mkdir -p $W
say() { echo "powercut: $*"; }
die() { say "FAIL $*"; exit 1; }
command -v mosquitto > /dev/null || die "mosquitto is not installed on the host (apt-get install mosquitto)"
. $REPO/Tests/HIL/state-device.sh
MQTT_PORT=18830
mosquitto -p $MQTT_PORT > $W/mosquitto.log 2>&1 &   # mosquitto 2 without a config: loopback only
HEARTBEAT_S=300 SYNC_S=60 JOURNAL_MAX_BYTES=4194304 door_config $W/door.yaml $STATE \
    http://127.0.0.1:$PORT/verify http://127.0.0.1:$PORT/v1/credentials
taskset -c 0 $KP run --config $W/door.yaml --display plain > $W/door.out 2>&1 &
DOOR=$!
wait_count $W/door.out 'credential replica synced' 0 || die "the door did not start and sync: $(tail -5 $W/door.out)"
sleep 5
mark idle-start
sleep $IDLE_S
mark idle-end
mark busy-start
read started _ < /proc/uptime
n=0
while [ $n -lt $BUSY_N ]; do
    n=$((n + 1))
    if [ $((n % 2)) = 1 ]; then type_pin 2468; else type_pin 1357; fi
    # The next attempt 36 s after this one began (100 an hour).
    read now _ < /proc/uptime
    sleep $(awk -v s=$started -v n=$n -v t=$now 'BEGIN { w = s + 36 * n - t; print (w > 0 ? w : 0) }')
done
mark busy-end
kill -TERM $DOOR; wait $DOOR
say "wear workload: idle ${IDLE_S} s, then $n attempts at 36 s, $(decisions $W/door.out) decided"
umount $SD; dmsetup remove kplog
python3 $REPO/Tests/HIL/powercut-replay.py --wear-only --log $LOG --summary $OUT/wear.txt
