#!/bin/sh
# Starts the door on a replayed state (powercut-replay.py mounts it; W/check.yaml points at
# it, with the verifier offline), types the right PIN on the emulated keypad (again if a key
# was missed), waits for the decision, waits (up to 20 s) until journal.cursor says the door
# forwarded every record it had journaled by then, and stops the door with SIGTERM. Usage: powercut-door.sh BIN_DIR W OUTFILE
# (EMU and SIM in the environment, as powercut-guest.sh exports them). Exit 0 when the door
# started, decided something and stopped with exit 0.
BIN=$1; W=$2; OUTFILE=$3
. "$(dirname "$0")/keypad-typing.sh"
taskset -c 0 $BIN/kioskpad run --config $W/check.yaml --display plain > $OUTFILE 2>&1 &
door=$!
i=0; while ! grep -q 'keypad ready' $OUTFILE && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q 'keypad ready' $OUTFILE || { kill -9 $door; echo "no 'keypad ready' in 30 s"; exit 1; }
# Typed again when a key is missed under emulation (keypad-typing.sh); one attempt decided.
type_pin_until $OUTFILE 'attempt decided' 2468 || echo "no attempt decided after 3 tries" >> $OUTFILE
i=0; while ! grep -q -e 'Access granted' -e 'Access denied' -e 'Verifier unavailable' $OUTFILE && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
# Without the wait, a slow guest's first start could still be forwarding when SIGTERM came;
# what the 2 s drain then leaves waits on disk for the next start (docs/door-daemon.md), and
# the replay cannot tell that from a loss. The records written at stop still go by the drain.
STATE=$W/check-mnt/kioskpad
last_seq() { tail -n 1 $STATE/journal.jsonl 2>/dev/null | sed -n 's/^{"seq":\([0-9]*\).*/\1/p'; }
cursor_seq() { cut -d' ' -f1 $STATE/journal.cursor 2>/dev/null; }
i=0; while [ "$(cursor_seq)" != "$(last_seq)" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $door; wait $door; rc=$?
[ $rc = 0 ] || { echo "the door stopped with exit $rc"; exit 1; }
