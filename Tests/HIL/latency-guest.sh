#!/bin/sh
# Runs inside the HIL guest (see latency.sh): types random keys on the emulated keypad and
# scores `kioskpad keytest` (press -> key event) and `kioskpad run` (press -> frame on the plain
# display) for each build, settle time and key spacing. Usage:
#   latency-guest.sh OUT_DIR REPEAT BUILD_NAME=BIN_DIR...
set -u
OUT=$1; REPEAT=$2; shift 2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
W=/tmp/latency; mkdir -p $W
. $REPO/Tests/HIL/keypad-chip.sh
KEYS=123A456B789C*0#D
mkdir -p $W/state

config() { # config FILE SETTLE_US PROGRAM
    cat > $1 <<YAML
terminal_id: latency
$(keypad_yaml keypad-sim 10 $2)
entry:
  mode: code
  min_length: 8
  max_length: 8
  timeout_s: 600
state_dir: $W/state
metrics:
  listen: "127.0.0.1:9464"
verifier:
  kind: local
  users_file: $W/users
YAML
}

# script FILE SPACING_MS SEED PROGRAM: 50 random taps, 40 ms down, 3 ms of chatter at each end.
# keytest: any of the 16 keys; run: digits and the back key '*', never filling the 8 slots.
script() {
    awk -v spacing=$2 -v seed=$3 -v program=$4 -v keys=$KEYS 'BEGIN {
        srand(seed); length_shown = 0
        split("13 0 1 2 4 5 6 8 9 10", digit_key, " ")   # key index of the digits 0-9
        for (n = 0; n < 50; n++) {
            if (program == "keytest") { i = int(rand() * 16) }
            else {
                back = length_shown == 7 || (length_shown > 0 && rand() < 0.3)
                if (back) { i = 12; length_shown-- } else { i = digit_key[int(rand() * 10) + 1]; length_shown++ }
            }
            printf "press %d %d 3\nwait 40\nrelease %d %d 3\nwait %d\n", int(i / 4), i % 4, int(i / 4), i % 4, spacing - 40
        }
        print "wait 300"
    }' > $1
}

snapshot() { # snapshot PID: "TID NAME SWITCHES" for each thread now (voluntary + involuntary)
    for t in /proc/$1/task/*; do
        echo "${t##*/} $(tr ' ' _ < $t/comm) $(awk '/^(non)?voluntary_ctxt_switches/ {n += $2} END {print n}' $t/status 2>/dev/null)"
    done
}

idle_switches() { # idle_switches PID SECONDS: "TOTAL name:count,..." over that time; a thread that
    # starts counts from 0, one that ends counts once (its exit); per-thread so that an ending
    # thread cannot hide another's wake-ups
    snapshot $1 > $W/idle.before; sleep $2; snapshot $1 > $W/idle.after
    awk 'NR == FNR {before[$1] = $3; name[$1] = $2; next}
         {d = $3 - ($1 in before ? before[$1] : 0); seen[$1] = 1; if (d > 0) {total += d; list = list sep $2 ":" d; sep = ","}}
         END {for (t in before) if (!(t in seen)) {total += 1; list = list sep name[t] ":exited"; sep = ","}
              print total + 0, (list == "" ? "-" : list)}' $W/idle.before $W/idle.after
}

measure() { # measure BUILD BIN SETTLE_US PROGRAM SPACING RUN
    label="$1 $4 settle_us=$3 spacing=${5}ms run=$6"
    cfg=$W/cfg.yaml; log=$W/emu.log; out=$W/out.txt; err=$W/err.txt
    config $cfg $3 $4
    script $W/keys.script $5 $((1000 + $6)) $4
    : > $out; : > $err
    ( taskset -c 0 $2/kioskpad $4 --config $cfg $( [ $4 = run ] && echo --display plain ) 2> $err | taskset -c 0 $2/keypad-emu --stamp > $out ) &
    pipeline=$!
    i=0; while ! grep -q -e 'keypad ready' -e '^[0-9.]* keytest:' $err $out 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    pid=$(pgrep -x kioskpad)
    rss_ready=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    idle=''
    if [ $5 = 300 ] && [ $6 = 1 ]; then   # context switches of the whole process in 10 s, no key down
        idle=" idle_10s_switches $(idle_switches $pid 10)"
    fi
    EMU_LOG=$log taskset -c 1 chrt -f 10 $2/keypad-emu $SIM 0,1,2,3 4,5,6,7 $W/keys.script 2>> $W/emu.err
    sleep 0.5
    rss_end=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    pkill -INT -x kioskpad; wait $pipeline
    result="$(python3 $REPO/Tests/HIL/latency-report.py $4 $log $out); rss_kb ready $rss_ready after $rss_end$idle"
    echo "latency: $label: $result" | tee -a $OUT/latency.txt
    cp $out "$OUT/$(echo $label | tr ' =' '__').out"
}

# measure_evdev BUILD BIN RUN: `kioskpad run` with a virtual USB numeric keypad (uinput,
# Tests/HIL/uinput-keypad.py) playing the same kind of script at 80 ms spacing; latency is
# from each key's uinput write (when the kernel stamps the event) to the frame showing it.
measure_evdev() {
    label="$1 run evdev spacing=80ms run=$3"
    cfg=$W/evdev.yaml; log=$W/uinput.log; out=$W/out.txt; err=$W/err.txt
    config $cfg 50 run
    sed -i '/^keypad:/,/^display:/{/^keypad:/!{/^display:/!d}}' $cfg
    sed -i 's|^keypad:|keypad:\n  driver: evdev\n  device: "name:KioskPad HIL keypad"|' $cfg
    script $W/keys.script 80 $((2000 + $3)) run
    rm -f $W/kbd.fifo; mkfifo $W/kbd.fifo
    taskset -c 1 python3 $REPO/Tests/HIL/uinput-keypad.py < $W/kbd.fifo > $W/kbd.out 2>&1 &
    kbd=$!
    exec 7> $W/kbd.fifo
    echo create >&7
    i=0; while ! grep -q created $W/kbd.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    : > $out; : > $err
    ( taskset -c 0 $2/kioskpad run --config $cfg --display plain 2> $err | taskset -c 0 $2/keypad-emu --stamp > $out ) &
    pipeline=$!
    i=0; while ! grep -q 'keypad ready' $err 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    echo "play $W/keys.script $log" >&7
    i=0; while ! grep -q played $W/kbd.out && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    pkill -INT -x kioskpad; wait $pipeline
    echo quit >&7; exec 7>&-; wait $kbd
    result="$(python3 $REPO/Tests/HIL/latency-report.py run $log $out)"
    echo "latency: $label: $result" | tee -a $OUT/latency.txt
    cp $out "$OUT/$(echo $label | tr ' =' '__').out"
}
if [ -n "${EVDEV_ONLY:-}" ]; then
    modprobe uinput; modprobe evdev
    for build in "$@"; do
        name=${build%%=*}; bin=${build#*=}
        printf '24682468\n' | $bin/kioskpad pin hash --user latency --iterations 1000 > $W/users
        r=1; while [ $r -le $REPEAT ]; do measure_evdev $name $bin $r; r=$((r + 1)); done
    done
    echo "latency: done"
    exit 0
fi
for build in "$@"; do
    name=${build%%=*}; bin=${build#*=}
    printf '24682468\n' | $bin/kioskpad pin hash --user latency --iterations 1000 > $W/users
    for settle in 50 1000; do
        for program in keytest run; do
            for spacing in 300 80; do
                runs=1
                [ $spacing = 80 ] && runs=$REPEAT
                r=1; while [ $r -le $runs ]; do measure $name $bin $settle $program $spacing $r; r=$((r + 1)); done
            done
        done
    done
done
echo 0 > $C/live
for i in 0 1 2 3 4 5 6 7; do rmdir $C/bank0/line$i; done; rmdir $C/bank0 $C
echo "latency: done"
