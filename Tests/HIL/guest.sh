#!/bin/sh
# Runs inside the HIL guest as root: a gpio-sim chip, the compiled keypad emulator, and
# kioskpad's real libgpiod path. Usage: guest.sh BIN_DIR OUT_DIR [EXPECTED_LIBGPIOD_API [DEBIAN_ROOT RELEASE_BINARY [DEB_DIR]]]
set -u
BIN=$1; OUT=$2; API=${3:-}; E2E_ROOT=${4:-}; RELEASE=${5:-}; DEB_DIR=${6:-}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KP=$BIN/kioskpad; EMU=$BIN/keypad-emu
W=/tmp/hil; mkdir -p $W
passed=0; failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { if [ "$2" = "$3" ]; then pass "$1 (= $3)"; else fail "$1: expected '$2', got '$3'"; fi; }
# hold_line CHIP OFFSET=VALUE: drives a line as `gpioset` until killed, with libgpiod 1.x's tools
# (Debian 12) or 2.x's (Debian 13, the arm64 guest). Run it with & and kill $! to release.
hold_line() {
    # The first line names the version ("gpioset (libgpiod) v1.6.3"); later lines name the
    # licence, LGPLv2.1, which a looser match took for version 2.
    if gpioset --version 2>&1 | head -1 | grep -q 'libgpiod) v2\.'; then exec gpioset -c "$1" "$2"; else exec gpioset --mode=signal "$1" "$2"; fi
}
# HIL_SUITE=core runs only the checks an emulated arm64 system can afford (Tests/arm64/hil.sh):
# every key, a PIN through `run`, the relay on a grant and never on a denial, and the relay
# off after a kill -9 (on mainline's and on Raspberry Pi's kind of kernel, with `door off`).
everything() { [ "${HIL_SUITE:-all}" != core ]; }
# Where the guest's time goes: each section's start in seconds since boot (a figure, not a gate).
section() { echo "hil: [$(cut -d' ' -f1 /proc/uptime) s] section $*"; }

. $REPO/Tests/HIL/keypad-chip.sh

USERS=$W/users
printf '2468\n' | $KP pin hash --user hil --iterations 1000 > $USERS
config() { # config FILE CHIP [DEBOUNCE_MS] [VERIFIER_YAML]
    verifier_yaml=${4:-"  kind: local
  users_file: $USERS"}
    cat > $1 <<YAML
terminal_id: hil-door
$(keypad_yaml $2 ${3:-10})
verifier:
$verifier_yaml
YAML
}
config $W/label.yaml keypad-sim
config $W/name.yaml $CHIP
# Every HIL keypad config debounces for the product's default 10 ms. (Until the scan loop
# dated presses by their edge, settled by observation and rechecked slow columns, QEMU's
# stalls of the emulator made 20 ms necessary here.)
config $W/bounce.yaml keypad-sim

# keytest in the background on CPU 0, the emulator on CPU 1.
start_keytest() { # start_keytest CONFIG OUTFILE
    taskset -c 0 $KP keytest --config $1 > $2 2>&1 &
    KT=$!
    i=0; while ! grep -q '^keytest:' $2 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
stop_keytest() { kill -INT $KT 2>/dev/null; wait $KT 2>/dev/null; }
. $REPO/Tests/HIL/keypad-typing.sh
presses() { sed -n "s/^press   row [0-9] column [0-9] key '\(.\)'$/\1/p" $1 | tr -d '\n'; }
releases() { sed -n "s/^release row [0-9] column [0-9] key '\(.\)'$/\1/p" $1 | tr -d '\n'; }

# ---- 1. every key of the 4x4 keypad, chip found by label ------------------------------
section "1 keypad"
: > $W/all.script
for k in 1 2 3 A 4 5 6 B 7 8 9 C '*' 0 '#' D; do tap "$k" >> $W/all.script; done
start_keytest $W/label.yaml $W/all.out
emulate $W/all.script; sleep 0.3; stop_keytest
check "all 16 keys pressed, chip by label" '123A456B789C*0#D' "$(presses $W/all.out)"
check "all 16 keys released" '123A456B789C*0#D' "$(releases $W/all.out)"
library=$(sed -n 's/^keytest: .*, \(libgpiod [^;]*\);.*/\1/p' $W/all.out)
if [ -z "$API" ]; then
    pass "keytest names its library: $library"
elif echo "$library" | grep -q "(v$API API)"; then
    pass "the binary uses the libgpiod v$API API: $library"
else
    fail "expected the libgpiod v$API API, keytest says '$library'"
fi
calls=$(sed -n 's/.*value_calls_per_scan=\([0-9]*\).*/\1/p' $W/all.out)
if [ -n "$calls" ] && [ "$calls" -le 8 ]; then pass "one full scan issues $calls GPIO value calls (<= 2R = 8)"; else fail "value calls per scan: '$calls' (want <= 8)"; fi

if everything; then  # sections 2-7b
# ---- 2. two keys in one row, two keys in one column (chip by name) ----------------------
cat > $W/pairs.script <<S
press 0 0
wait 80
press 0 2
wait 120
release 0 0
wait 80
release 0 2
wait 150
press 1 1
wait 80
press 3 1
wait 120
release 1 1
wait 80
release 3 1
wait 150
S
start_keytest $W/name.yaml $W/pairs.out
emulate $W/pairs.script; sleep 0.3; stop_keytest
check "two keys in one row, two in one column, chip by name" '1350' "$(presses $W/pairs.out)"
check "their releases" '1350' "$(releases $W/pairs.out)"

# ---- 3. ghost rectangle: 1, 2, 4 down -> 5 would be a phantom ---------------------------
cat > $W/ghost.script <<S
press 0 0
wait 100
press 0 1
wait 100
press 1 0
wait 200
release 1 0
wait 100
release 0 1
wait 100
release 0 0
wait 150
S
start_keytest $W/label.yaml $W/ghost.out
emulate $W/ghost.script; sleep 0.3; stop_keytest
check "ghost rectangle: only the two unambiguous keys" '12' "$(presses $W/ghost.out)"
if grep -q "warning: ghosting" $W/ghost.out; then pass "ghosting reported"; else fail "no ghosting warning"; fi

# ---- 4. 200 presses with 0-5 ms bounce: none lost, none doubled ------------------------
: > $W/bounce.script; expect=''
n=0; seed=7
while [ $n -lt 200 ]; do
    seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
    k=$(echo "123A456B789C*0#D" | cut -c$(( seed / 65536 % 16 + 1 )))
    tap "$k" $(( seed / 16 % 6 )) >> $W/bounce.script
    expect="$expect$k"; n=$((n + 1))
done
start_keytest $W/bounce.yaml $W/bounce.out
emulate $W/bounce.script; sleep 0.3; stop_keytest
got=$(presses $W/bounce.out)
check "200 bounced presses decoded in order" "$expect" "$got"
check "200 bounced releases" 200 "$(releases $W/bounce.out | wc -c)"

# ---- 4b. a slow column: no phantom from the row driven before --------------------------
# The emulator keeps a column low 2.5 ms after no driven row reaches it any more (a long
# cable); the scanner settles 1 ms. Each key below would also read in the row scanned right
# after its own (* as 1, 4 and 7) unless the scanner rechecks. The stats line must show
# rechecks, or the slow line was not exercised.
sed 's/settle_us: 3000/settle_us: 1000/' $W/label.yaml > $W/slow.yaml
: > $W/slow.script
for k in '*' 0 '#' D 5 9 1; do tap "$k" >> $W/slow.script; done
start_keytest $W/slow.yaml $W/slow.out
COLUMN_LAG_MS=2.5 emulate $W/slow.script; sleep 0.3; stop_keytest
check "slow column: only the keys pressed, no phantom in their columns" '*0#D591' "$(presses $W/slow.out)"
rechecks=$(sed -n 's/^stats: .* rechecks=\([0-9]*\).*/\1/p' $W/slow.out)
if [ "${rechecks:-0}" -gt 0 ]; then pass "slow column: $rechecks rows rechecked"; else fail "slow column: no recheck (rechecks='$rechecks'): the lag was not seen"; fi

# ---- 5. idle: the scanning thread sleeps in poll() ------------------------------------
start_keytest $W/label.yaml $W/idle.out
sleep 2
task=''
for t in /proc/$KT/task/*; do [ "$(cat $t/comm)" = kp-scan ] && task=$t; done
if [ -n "$task" ]; then
    before=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' $task/status)
    sleep 5
    after=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' $task/status)
    wakeups=$((after - before))
    if [ $wakeups -le 2 ]; then pass "idle 5 s: scan thread had $wakeups voluntary context switches (<= 2)"; else fail "idle 5 s: $wakeups voluntary context switches"; fi
    echo "idle_wakeups=$wakeups" > $OUT/idle.txt
else
    fail "no kp-scan thread found"
fi
stop_keytest

# ---- 6. a busy line is a clear error naming the key and the holder --------------------
( hold_line $CHIP 2=1 ) & HOLD=$!
sleep 0.5
$KP keytest --config $W/label.yaml > $W/busy.out 2>&1; rc=$?
kill $HOLD; wait $HOLD 2>/dev/null
check "busy line exits 1" 1 $rc
if grep -q "keypad.rows\[2\]: line 'ROW2' on 'keypad-sim' is busy, held by 'gpioset'" $W/busy.out; then pass "busy line error names keypad.rows[2] and gpioset"; else fail "busy error: $(cat $W/busy.out)"; fi

# ---- 7. a chip that does not exist lists the chips present ----------------------------
config $W/nochip.yaml no-such-chip
$KP keytest --config $W/nochip.yaml > $W/nochip.out 2>&1; rc=$?
check "missing chip exits 1" 1 $rc
if grep -q "keypad.chip: no GPIO chip 'no-such-chip'.*$CHIP \[keypad-sim\] (8 lines)" $W/nochip.out; then pass "missing chip lists $CHIP [keypad-sim]"; else fail "missing chip: $(cat $W/nochip.out)"; fi

# ---- 7b. run: a chip that is missing at start is waited for; a line it lacks is an error --
config $W/late.yaml late-kp
taskset -c 0 $KP run --config $W/late.yaml --display plain > $W/late.out 2> $W/late.err &
RUN=$!
sleep 2
L=/sys/kernel/config/gpio-sim/late
mkdir $L $L/bank0; echo 8 > $L/bank0/num_lines; echo late-kp > $L/bank0/label
for i in 0 1 2 3; do mkdir $L/bank0/line$i; echo ROW$i > $L/bank0/line$i/name; done
echo 1 > $L/live
i=0; while ! grep -q 'keypad ready' $W/late.err && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
alive=no; kill -0 $RUN 2>/dev/null && alive=yes
kill -TERM $RUN; wait $RUN; rc=$?
if grep -q "keypad unavailable at start; retrying" $W/late.err && grep -q "keypad.chip: no GPIO chip 'late-kp'" $W/late.err; then pass "run with the keypad chip missing: logs why and keeps running"; else fail "late chip: $(cat $W/late.err)"; fi
check "the chip appears: the keypad comes up without a restart; SIGTERM exits 0" "yes 0" "$(grep -q 'keypad ready' $W/late.err && echo $alive) $rc"
echo 0 > $L/live; for i in 0 1 2 3; do rmdir $L/bank0/line$i; done; rmdir $L/bank0 $L
sed 's/rows: \[ROW0, ROW1, ROW2, ROW3\]/rows: [ROW0, ROW1, NOPE, ROW3]/' $W/label.yaml > $W/badline.yaml
$KP run --config $W/badline.yaml --display plain > $W/badline.out 2>&1; rc=$?
check "run with a line the chip does not have exits 1" 1 $rc
if grep -q "keypad.rows\[2\]: no line named 'NOPE' on chip 'keypad-sim'" $W/badline.out; then pass "and names keypad.rows[2]"; else fail "bad line: $(cat $W/badline.out)"; fi

fi
# ---- 8. a full PIN entry through `kioskpad run` with the local verifier ----------------
section "8 run"
: > $W/pin.script
for k in 2 4 6 8; do tap $k 2 >> $W/pin.script; done
taskset -c 0 $KP run --config $W/label.yaml --display plain > $W/run.out 2> $W/run.err &
RUN=$!
# The scan thread says "keypad ready" just before its first scan; a tap before that could be lost.
i=0; while ! grep -q 'keypad ready' $W/run.err 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
emulate $W/pin.script
i=0; while ! grep -q 'Access granted' $W/run.out && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $RUN; wait $RUN; rc=$?
if grep -q 'Access granted' $W/run.out; then pass "PIN typed on the GPIO keypad: Access granted"; else fail "run output: $(cat $W/run.out $W/run.err)"; fi
check "run stops on SIGTERM with exit 0" 0 $rc
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/run.out $W/run.err $W/*.out | grep -q 2468; then fail "the PIN appears in output"; else pass "the typed PIN appears in no frame, log or output"; fi

# ---- 9. the door relay: on for the unlock time on a grant, never otherwise -------------
section "9 relay"
D=/sys/kernel/config/gpio-sim/door
mkdir $D $D/bank0; echo 6 > $D/bank0/num_lines; echo door-sim > $D/bank0/label
mkdir $D/bank0/line0; echo RELAY > $D/bank0/line0/name
for l in 2:CONTACT 3:EXIT 4:TAMPER 5:FIRE; do mkdir $D/bank0/line${l%%:*}; echo ${l#*:} > $D/bank0/line${l%%:*}/name; done
echo 1 > $D/live
DCHIP=$(cat $D/bank0/chip_name); DSIM=/sys/devices/platform/$(cat $D/dev_name)/$DCHIP
for i in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/$DCHIP ] && break; sleep 0.2; done
relay_config() { # relay_config FILE [VERIFIER_YAML]
    config $1 keypad-sim 20 "${2:-}"
    cat >> $1 <<YAML
state_dir: $W/state
metrics:
  listen: "off"
door:
  relay: {chip: door-sim, line: RELAY}
  unlock_s: 2
  max_unlock_s: 10
lockout:
  max_failures: 2
  lockout_s: 60
YAML
}
relay_config $W/relay.yaml
# The relay watcher logs every change of the line as "UPTIME VALUE" (shell builtins only).
watch_relay() { # watch_relay LOG
    ( last=x; while :; do read v < $DSIM/sim_gpio0/value; if [ "$v" != "$last" ]; then read t _ < /proc/uptime; echo "$t $v" >> $1; last=$v; fi; done ) &
    WATCH=$!
}
ever_on() { grep -q ' 1$' $1; }
run_door() { # run_door CONFIG OUT -> RUN pid
    taskset -c 0 $KP run --config $1 --display plain > $2 2>&1 &
    RUN=$!
    i=0; while ! grep -q 'keypad ready' $2 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# 9a. a grant: on, then off after about unlock_s
watch_relay $W/relay-grant.log
run_door $W/relay.yaml $W/relay-grant.out
type_pin 2468; wait_for $W/relay-grant.out 'Access granted'; sleep 3
kill -TERM $RUN; wait $RUN; kill $WATCH
on=$(awk '$2 == 1 {print $1; exit}' $W/relay-grant.log); off=$(awk -v on="$on" '$2 == 0 && $1 > on {print $1; exit}' $W/relay-grant.log)
held=$(awk -v a="$on" -v b="$off" 'BEGIN { if (a == "" || b == "") print "none"; else printf "%.1f", b - a }')
case $held in none) fail "granted: relay was not pulsed ($(cat $W/relay-grant.log | tr '\n' ' '))";; *) if awk -v h=$held 'BEGIN { exit !(h >= 1.5 && h <= 3.5) }'; then pass "granted: relay on for ${held}s (unlock_s 2), then off"; else fail "granted: relay on for ${held}s"; fi;; esac
echo "relay_on_seconds=$held" >> $OUT/relay.txt

# 9b. denied twice (lockout), then the right PIN during the lockout: never on
watch_relay $W/relay-deny.log
run_door $W/relay.yaml $W/relay-deny.out
type_pin 1111; wait_for $W/relay-deny.out 'Access denied'
type_pin 2222; wait_for $W/relay-deny.out 'Locked'
type_pin 2468; sleep 1
kill -TERM $RUN; wait $RUN; kill $WATCH
if grep -q 'Locked' $W/relay-deny.out && ! ever_on $W/relay-deny.log; then pass "denied and locked out: relay never on"; else fail "denied/lockout: $(tr '\n' ' ' < $W/relay-deny.log)"; fi

if everything; then  # 9c-9d
# 9c. verifier error: never on, shown as unavailable
relay_config $W/relay-error.yaml "  kind: http
  url: http://127.0.0.1:9/verify
  timeout_s: 1"
watch_relay $W/relay-error.log
run_door $W/relay-error.yaml $W/relay-error.out
type_pin_until $W/relay-error.out 'Verifier' 2468; sleep 0.5  # retyped if the emulator lost a key
kill -TERM $RUN; wait $RUN; kill $WATCH
if grep -q 'unavailable' $W/relay-error.out && ! ever_on $W/relay-error.log; then pass "verifier error: relay never on"; else fail "verifier error: $(tail -5 $W/relay-error.out)"; fi

# 9d. SIGTERM while verifying (a verifier that never answers): off, and stays off
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', 8799)); s.listen(); c, _ = s.accept(); time.sleep(60)" &
SLOW=$!
relay_config $W/relay-slow.yaml "  kind: http
  url: http://127.0.0.1:8799/verify
  timeout_s: 20"
watch_relay $W/relay-term.log
run_door $W/relay-slow.yaml $W/relay-term.out
type_pin 2468; wait_for $W/relay-term.out 'Verifying'
kill -TERM $RUN; wait $RUN; rc=$?; sleep 1; kill $WATCH; kill $SLOW 2>/dev/null
if [ $rc = 0 ] && ! ever_on $W/relay-term.log && [ "$(cat $DSIM/sim_gpio0/value)" = 0 ]; then pass "SIGTERM during verification: exit 0, relay never on"; else fail "SIGTERM during verification: rc=$rc $(tr '\n' ' ' < $W/relay-term.log)"; fi

fi
# 9e. a crash (SIGKILL) while the door is open: the kernel releases the line, relay off
relay_config $W/relay-long.yaml; sed -i 's/unlock_s: 2/unlock_s: 8/' $W/relay-long.yaml
watch_relay $W/relay-kill.log
run_door $W/relay-long.yaml $W/relay-kill.out
type_pin 2468; wait_for $W/relay-kill.out 'Access granted'; sleep 0.5
before=$(cat $DSIM/sim_gpio0/value)
kill -KILL $RUN; wait $RUN 2>/dev/null; sleep 0.5; kill $WATCH
after=$(cat $DSIM/sim_gpio0/value)
check "crash while open: relay was on, off once the process died" "1 0" "$before $after"

if everything; then  # 9f
# 9f. the relay line busy at start: a clear error, nothing energised
( hold_line $DCHIP 0=0 ) & HOLD=$!
sleep 0.5
$KP run --config $W/relay.yaml --display plain > $W/relay-busy.out 2>&1; rc=$?
kill $HOLD; wait $HOLD 2>/dev/null
check "relay line busy exits 1" 1 $rc
if grep -q "door.relay.line: line 'RELAY' on 'door-sim' is busy, held by 'gpioset'" $W/relay-busy.out; then pass "busy relay line names door.relay.line and gpioset"; else fail "busy relay: $(cat $W/relay-busy.out)"; fi

fi
# ---- 9h-9j. `kioskpad door off`, and a kernel that keeps released outputs driven --------
# Raspberry Pi kernels keep a released output at its last level (raspberrypi/linux #6117);
# gpio-sim, like mainline, returns a released line to its pull. The model below copies every
# level the kernel traces for the relay line into that line's pull (a pull does not move a
# line that is held as an output), so once released the line keeps its last driven level,
# as on a Pi without dtparam=strict_gpiod.
DBASE=''
for d in /sys/class/gpio/gpiochip*; do [ "$(cat $d/label 2>/dev/null)" = door-sim ] && DBASE=$(cat $d/base); done
[ -n "$DBASE" ] || DBASE=$(sed -n 's/^gpiochip[0-9]*: GPIOs \([0-9]*\)-.*door-sim.*/\1/p' /sys/kernel/debug/gpio)
PT=/sys/kernel/tracing/instances/persist
persist_on() {
    mkdir -p $PT
    # Only the relay's line: the keypad's scan writes would bury it, and a slow guest (the
    # emulated arm64 system) then applied the relay's level too late.
    echo "gpio == $DBASE" > $PT/events/gpio/gpio_value/filter
    echo 1 > $PT/events/gpio/gpio_value/enable
    ( cat $PT/trace_pipe | while read -r l; do
        case "$l" in
            *"gpio_value: $DBASE set 1"*) echo pull-up > $DSIM/sim_gpio0/pull ;;
            *"gpio_value: $DBASE set 0"*) echo pull-down > $DSIM/sim_gpio0/pull ;;
        esac
      done ) &
    PERSIST=$!
    sleep 0.3
}
persist_off() {
    echo 0 > $PT/events/gpio/gpio_value/enable
    echo 0 > $PT/events/gpio/gpio_value/filter
    pkill -f "$PT/trace_pipe"; kill $PERSIST 2>/dev/null; wait $PERSIST 2>/dev/null
    echo pull-down > $DSIM/sim_gpio0/pull
}
unit=$REPO/deploy/kioskpad.service
installed_command() { # installed_command KEY CONFIG: the unit's command line, pointed at this build
    sed -n "s/^$1=//p" $unit | sed "s|/usr/local/bin/kioskpad|$KP|; s|/etc/kioskpad/kioskpad.yaml|$2|"
}
check "the unit runs door off before every start and after every stop" \
    "kioskpad door off --config /etc/kioskpad/kioskpad.yaml|kioskpad door off --config /etc/kioskpad/kioskpad.yaml" \
    "$(sed -n 's|^ExecStartPre=/usr/local/bin/||p' $unit)|$(sed -n 's|^ExecStopPost=/usr/local/bin/||p' $unit)"

# 9h. the model keeps a released line on; `door off` leaves it off
persist_on
( hold_line $DCHIP 0=1 ) & HOLD=$!
sleep 0.5; kill $HOLD; wait $HOLD 2>/dev/null; sleep 0.5
check "persisting-kernel model: a released line that was on stays on" 1 "$(cat $DSIM/sim_gpio0/value)"
$KP door off --config $W/relay.yaml > $W/door-off.out 2>&1; rc=$?
sleep 0.5
check "door off exits 0" 0 $rc
check "door off on a persisting kernel: the released relay stays off" 0 "$(cat $DSIM/sim_gpio0/value)"
if grep -q "door off: door.relay (line RELAY on 'door-sim') is off and released" $W/door-off.out; then pass "door off says what it switched off"; else fail "door off: $(cat $W/door-off.out)"; fi

# 9i. SIGKILL during an unlock on a persisting kernel, then the unit's ExecStopPost command
run_door $W/relay-long.yaml $W/relay-persist.out
type_pin 2468; wait_for $W/relay-persist.out 'Access granted'; sleep 0.5
kill -KILL $RUN; wait $RUN 2>/dev/null; sleep 0.5
check "persisting kernel: after SIGKILL during an unlock the relay is still on" 1 "$(cat $DSIM/sim_gpio0/value)"
sh -c "$(installed_command ExecStopPost $W/relay-long.yaml)" > $W/stop-post.out 2>&1; rc=$?
sleep 0.5
check "then ExecStopPost (door off): exit 0, relay off" "0 0" "$rc $(cat $DSIM/sim_gpio0/value)"
# 9i (ANSI). SIGTERM during an unlock with the default ANSI display, on a persisting kernel: the
# lifecycle switches the relay off before the process exits (no display handler races it).
taskset -c 0 $KP run --config $W/relay-long.yaml --display ansi > $W/relay-ansi.out 2>&1 &
RUN=$!
i=0; while ! grep -q 'keypad ready' $W/relay-ansi.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
type_pin 2468; wait_for $W/relay-ansi.out 'Access granted'; sleep 0.5
before=$(cat $DSIM/sim_gpio0/value)
kill -TERM $RUN; wait $RUN; rc=$?; sleep 0.5
check "ANSI display, SIGTERM during an unlock, persisting kernel: exit 0, relay on, then off" "0 1 0" "$rc $before $(cat $DSIM/sim_gpio0/value)"
if grep -q 'terminal stopped' $W/relay-ansi.out; then pass "the stop went through the graceful shutdown"; else fail "no graceful stop: $(tail -3 $W/relay-ansi.out)"; fi
persist_off

# 9j. door off while the daemon holds the relay: a clear error, the daemon is not disturbed
run_door $W/relay.yaml $W/relay-held.out
$KP door off --config $W/relay.yaml > $W/door-busy.out 2>&1; rc=$?
kill -TERM $RUN; wait $RUN; rrc=$?
check "door off while the relay is held exits 1" 1 $rc
if grep -q "door.relay.line: line 'RELAY' on 'door-sim' is busy, held by 'kioskpad'" $W/door-busy.out; then pass "door off names door.relay.line and its holder"; else fail "door off busy: $(cat $W/door-busy.out)"; fi
check "the daemon still stops cleanly" 0 $rrc

# 9g. the journal recorded it all, without a PIN
if everything; then  # the error record comes from 9c
if grep -q '"type":"door_unlocked"' $W/state/journal.jsonl && grep -q '"decision":"error"' $W/state/journal.jsonl && grep -q '"type":"lockout"' $W/state/journal.jsonl; then pass "journal has unlock, error and lockout records"; else fail "journal: $(tail -3 $W/state/journal.jsonl)"; fi
fi
# Random UUIDs (record and attempt ids) may contain any 4 digits: blank them out first.
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/state/journal.jsonl $W/relay-*.out | grep -q -e 2468 -e 1111 -e 2222; then
    fail "a PIN appears in the journal or output"
else
    pass "no typed PIN in the journal or any relay run output"
fi
cp $W/state/journal.jsonl $OUT/ 2>/dev/null

if everything; then  # sections 9k-11
# ---- 9k. door contact, exit button, tamper and a duress PIN (issue 12) -------------------
section "9k door inputs"
# Inputs are pulled up by kioskpad (active_low); the test closes a loop with pull-down.
# Defaults: the contact and tamper loops are normally closed (open loop = door open / tampered).
printf '2469\n' | $KP pin hash --user hil --iterations 1000 | sed 's/$/:duress/' > $W/users-duress
cat $USERS $W/users-duress > $W/users-door
relay_config $W/door.yaml "  kind: local
  users_file: $W/users-door"
sed -i "s|^state_dir: .*|state_dir: $W/state-door|; s|^  max_unlock_s: 10|  max_unlock_s: 10\n  contact: {chip: door-sim, line: CONTACT}\n  exit_button: {chip: door-sim, line: EXIT}\n  held_open_s: 2|" $W/door.yaml
cat >> $W/door.yaml <<YAML
tamper: {chip: door-sim, line: TAMPER}
YAML
pin_level() { echo $2 > $DSIM/sim_gpio$1/pull; }  # pin_level OFFSET pull-up|pull-down
journal_types() { sed -n 's/.*"type":"\([a-z_]*\)".*/\1/p' $W/state-door/journal.jsonl | grep -v -e '^start$' -e '^stop$' | tr '\n' ' '; }
rm -rf $W/state-door
watch_relay $W/door-relay.log
run_door $W/door.yaml $W/door.out
pin_level 2 pull-down; pin_level 4 pull-down; sleep 0.5     # door closed, case closed
: > $W/door-mark; sleep 0.2
# forced: the door opens with no grant
pin_level 2 pull-up; sleep 0.5; pin_level 2 pull-down; sleep 0.5
# a grant, then the door opens (the relay drops at once) and stays open past held_open_s
type_pin 2468; wait_for $W/door.out 'Access granted'; sleep 0.3
relay_before_open=$(cat $DSIM/sim_gpio0/value)
pin_level 2 pull-up; sleep 0.5
relay_after_open=$(cat $DSIM/sim_gpio0/value)
sleep 2.5; pin_level 2 pull-down; sleep 0.5
# the exit button: a 300 ms press
pin_level 3 pull-down; sleep 0.3; pin_level 3 pull-up; sleep 0.5
exit_relay=$(cat $DSIM/sim_gpio0/value)
sleep 2.5
# tamper: the case loop opens, then closes
pin_level 4 pull-up; sleep 0.5
grep -q 'Tamper alarm' $W/door.out && tamper_shown=yes || tamper_shown=no
pin_level 4 pull-down; sleep 0.5
# duress: granted on screen and at the door like any PIN
grants=$(grep -c 'Access granted' $W/door.out)
type_pin 2469
i=0; while [ $(grep -c 'Access granted' $W/door.out) -le $grants ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
duress_relay=$(cat $DSIM/sim_gpio0/value)
kill -TERM $RUN; wait $RUN; rc=$?; kill $WATCH
check "door inputs: daemon exit code" 0 $rc
types=$(journal_types)
echo "door journal: $types" > $OUT/door-journal.txt
case "$types" in
    *"door_opened forced_open door_closed"*) pass "forced open: door_opened, forced_open, door_closed";;
    *) fail "forced open: journal types: $types";;
esac
check "grant then open: relay on before, dropped at once after (re-lock on open)" "1 0" "$relay_before_open $relay_after_open"
n_held=$(echo "$types" | tr ' ' '\n' | grep -c '^held_open$')
n_forced=$(echo "$types" | tr ' ' '\n' | grep -c '^forced_open$')
check "held open past held_open_s: one held_open" 1 $n_held
check "only the opening without a grant was forced" 1 $n_forced
case "$types" in *"exit_request door_unlocked"*) pass "exit button: exit_request and an unlock";; *) fail "exit: $types";; esac
check "exit button: relay on after the press" 1 $exit_relay
case "$types" in *"exit_request"*"tamper tamper_cleared"*) pass "tamper: tamper then tamper_cleared";; *) fail "tamper: $types";; esac
check "tamper: the display showed the tamper text" yes $tamper_shown
check "duress PIN: relay on" 1 $duress_relay
case "$types" in *"duress attempt door_unlocked"*) pass "duress: the duress record comes before the grant's";; *) fail "duress: $types";; esac
# door.out holds the frames (stdout) and the log (stderr); the log may name it, a frame never.
if grep -v ' kioskpad\.run: ' $W/door.out | grep -qi duress; then fail "a frame mentions duress"; else pass "no frame shows duress (the operator's log does)"; fi
if grep -c '"type":"attempt"' $W/state-door/journal.jsonl | grep -qx 2 && ! grep -q '"type":"attempt".*exit' $W/state-door/journal.jsonl; then pass "the exit button is not an attempt (2 attempts: the two PINs)"; else fail "attempts: $(grep -c '"type":"attempt"' $W/state-door/journal.jsonl)"; fi
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/state-door/journal.jsonl $W/door.out | grep -q -e 2468 -e 2469; then fail "a PIN appears in the door journal or output"; else pass "no typed PIN in the door journal or output"; fi
cp $W/state-door/journal.jsonl $OUT/door-journal.jsonl 2>/dev/null

# ---- 9k1. a fire-alarm release (issue 48): the relay held while the alarm line is in ------
# alarm, journaled, and the door back to normal when the line drops. Here the alarm panel's
# contact closes to ground in alarm (released_when: active): the line's pull-up holds it
# inactive until then, so the door starts normal (a normally closed contact, the default,
# would read as an alarm until it is wired).
relay_config $W/fire.yaml
sed -i "s|^state_dir: .*|state_dir: $W/state-fire|; s|^  max_unlock_s: 10|  max_unlock_s: 10\n  fire_release: {chip: door-sim, line: FIRE, released_when: active}|" $W/fire.yaml
rm -rf $W/state-fire
watch_relay $W/fire-relay.log
run_door $W/fire.yaml $W/fire.out
sleep 0.5; fire_before=$(cat $DSIM/sim_gpio0/value)
pin_level 5 pull-down; sleep 0.6
fire_on=$(cat $DSIM/sim_gpio0/value)
grep -q 'Door released' $W/fire.out && fire_shown=yes || fire_shown=no
sleep 3  # past unlock_s (2): a release is not an unlock that times out
fire_held=$(cat $DSIM/sim_gpio0/value)
type_pin_until $W/fire.out 'Access granted' 2468; sleep 2.5  # a grant's timer ends: still held
fire_after_grant=$(cat $DSIM/sim_gpio0/value)
pin_level 5 pull-up; sleep 0.6
fire_off=$(cat $DSIM/sim_gpio0/value)
kill -TERM $RUN; wait $RUN; rc=$?; kill $WATCH
check "fire release: daemon exit code" 0 $rc
check "fire release: relay off, on in alarm, still on after 3 s and after a grant's time, off when the alarm ends" "0 1 1 1 0" \
    "$fire_before $fire_on $fire_held $fire_after_grant $fire_off"
check "fire release: the display showed the release text" yes $fire_shown
modes=$(sed -n 's/.*"type":"door_mode".*"mode":"\([a-z]*\)".*"source":"\([a-z_]*\)".*/\1:\2/p' $W/state-fire/journal.jsonl | tr '\n' ' ')
check "fire release: journaled as release by the fire alarm, then normal" "release:fire_alarm normal:normal " "$modes"
cp $W/state-fire/journal.jsonl $OUT/fire-journal.jsonl 2>/dev/null

# ---- 9k2. Home Assistant over MQTT (issue 31): the door contact moves the door sensor and ---
# sends forced_open and held_open; a remote unlock with the right code pulses the relay, a
# wrong or a retained one does not.
# mosquitto and mosquitto_sub come from the host (scripts/test.sh installs them).
if command -v mosquitto >/dev/null && command -v mosquitto_sub >/dev/null; then
    MQP=18830; T=kioskpad/hil-door
    ip link set lo up   # the guest boots with loopback down
    mosquitto -p $MQP > $W/mosquitto.log 2>&1 &   # mosquitto 2 without a config: loopback only
    MQ=$!
    i=0; while ! mosquitto_pub -p $MQP -t probe -n 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    sed "s|^state_dir: .*|state_dir: $W/state-mqtt|" $W/door.yaml > $W/mqtt.yaml
    printf 'mqtt:\n  url: mqtt://127.0.0.1:%s\n  remote_unlock: true\n' $MQP >> $W/mqtt.yaml
    mosquitto_sub -p $MQP -v -t "$T/#" > $W/mqtt-sub.log 2>&1 &
    SUB=$!
    # A command retained before the terminal starts must open nothing.
    mosquitto_pub -p $MQP -r -t $T/lock/set -m '{"action":"OPEN","code":"2468"}'
    rm -rf $W/state-mqtt
    watch_relay $W/mqtt-relay.log
    run_door $W/mqtt.yaml $W/mqtt.out
    pin_level 2 pull-down; pin_level 4 pull-down   # door and case closed (after the request sets its bias)
    wait_for $W/mqtt.out 'mqtt connected'; sleep 1
    ever_on $W/mqtt-relay.log && retained=on || retained=off
    mosquitto_pub -p $MQP -r -n -t $T/lock/set
    # The door opens with no grant (forced) and closes.
    pin_level 2 pull-up; sleep 0.5; pin_level 2 pull-down; sleep 0.5
    # A wrong remote code, then the right one.
    mosquitto_pub -p $MQP -t $T/lock/set -m '{"action":"OPEN","code":"1357"}'
    wait_for $W/mqtt.out 'Access denied'; sleep 0.5
    ever_on $W/mqtt-relay.log && wrong=on || wrong=off
    mosquitto_pub -p $MQP -t $T/lock/set -m '{"action":"OPEN","code":"2468"}'
    wait_for $W/mqtt.out 'Access granted'; sleep 0.3
    right=$(cat $DSIM/sim_gpio0/value)
    sleep 2.5
    after=$(cat $DSIM/sim_gpio0/value)
    # A typed grant, then the door held open past held_open_s (2 s), then closed.
    type_pin_until $W/mqtt.out 'Access granted' 2468
    pin_level 2 pull-up; sleep 3; pin_level 2 pull-down; sleep 0.5
    kill -TERM $RUN; wait $RUN; rc=$?; kill $WATCH; sleep 0.5
    kill $SUB $MQ; wait $SUB $MQ 2>/dev/null
    cp $W/mqtt-sub.log $OUT/mqtt-sub.log
    check "mqtt: daemon exit code" 0 $rc
    check "mqtt: a command retained before the start opens nothing" off $retained
    if grep -q '"type":"remote_unlock_refused".*"reason":"retained"' $W/state-mqtt/journal.jsonl; then pass "mqtt: the retained command is journaled as refused"; else fail "mqtt: no retained refusal in $(cat $W/state-mqtt/journal.jsonl)"; fi
    if grep -q "^$T/door ON" $W/mqtt-sub.log && grep -q "^$T/door OFF" $W/mqtt-sub.log && grep -q "^$T/event {\"event_type\":\"forced_open\"}" $W/mqtt-sub.log; then pass "mqtt: the HIL door contact moves the door sensor (ON, OFF) and sends forced_open"; else fail "mqtt door: $(grep -e "/door " -e /event $W/mqtt-sub.log | tr '\n' ' ')"; fi
    check "mqtt: a wrong remote code: relay never on" off $wrong
    check "mqtt: the right remote code pulses the relay (on, then off after unlock_s)" "1 0" "$right $after"
    if grep -q "^$T/event {\"event_type\":\"remote_unlock\",\"user\":\"hil\"}" $W/mqtt-sub.log && grep -q "^$T/lock UNLOCKED" $W/mqtt-sub.log; then pass "mqtt: remote_unlock event with the user, lock UNLOCKED"; else fail "mqtt events: $(grep -e /event -e '/lock ' $W/mqtt-sub.log | tr '\n' ' ')"; fi
    if grep -q "^$T/event {\"event_type\":\"granted\",\"user\":\"hil\"}" $W/mqtt-sub.log && grep -q "^$T/event {\"event_type\":\"held_open\"}" $W/mqtt-sub.log; then pass "mqtt: a typed grant, then the door held open past held_open_s: granted and held_open events"; else fail "mqtt held: $(grep /event $W/mqtt-sub.log | tr '\n' ' ')"; fi
    check "mqtt: a clean stop leaves offline" offline "$(sed -n "s|^$T/status ||p" $W/mqtt-sub.log | tail -1)"
    check "mqtt: both remote attempts journaled with remote: true" 2 "$(grep -c '"remote":true' $W/state-mqtt/journal.jsonl)"
    if grep -v "^$T/lock/set " $W/mqtt-sub.log | cat - $W/state-mqtt/journal.jsonl $W/mqtt.out | sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' | grep -q -e 2468 -e 1357; then fail "mqtt: a code appears in what the terminal published, logged or journaled"; else pass "mqtt: no code in what the terminal published, logged or journaled"; fi
else
    fail "mqtt: mosquitto and mosquitto_sub are not installed on the host (scripts/test.sh installs them)"
fi

# ---- 9l. SIGHUP reloads the users file and texts; a broken file is refused ---------------
cp $USERS $W/users-reload
relay_config $W/reload.yaml "  kind: local
  users_file: $W/users-reload"
sed -i "s|^state_dir: .*|state_dir: $W/state-reload|" $W/reload.yaml
count_of() { grep -c "$2" $1; }
wait_more() { # wait_more FILE TEXT COUNT: until TEXT is on more than COUNT lines (6 s at most)
    i=0; while [ $(grep -c "$2" $1) -le $3 ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
}
run_door $W/reload.yaml $W/reload.out
type_pin 1357; wait_for $W/reload.out 'Access denied'; sleep 3.2
printf '1357\n' | $KP pin hash --user newcomer --iterations 1000 >> $W/users-reload
sed -i 's/^  rows: 2$/  rows: 2\n  texts: {enter_pin: "PIN please"}/' $W/reload.yaml
kill -HUP $RUN; wait_for $W/reload.out 'reloaded the users file'
n=$(count_of $W/reload.out 'Access granted'); type_pin 1357; wait_more $W/reload.out 'Access granted' $n
after_reload=$(count_of $W/reload.out 'Access granted'); sleep 3.2
echo 'newcomer:not-a-hash' >> $W/users-reload
kill -HUP $RUN; wait_for $W/reload.out 'reload refused'
n=$(count_of $W/reload.out 'Access granted'); type_pin 1357; wait_more $W/reload.out 'Access granted' $n
after_refused=$(count_of $W/reload.out 'Access granted')
kill -TERM $RUN; wait $RUN; rc=$?
check "reload: daemon still runs and stops with exit 0" 0 $rc
if [ $after_reload -ge 1 ]; then pass "SIGHUP: a user added to the file enters without a restart"; else fail "reload: $(tail -5 $W/reload.out)"; fi
if grep -q 'PIN please' $W/reload.out; then pass "SIGHUP: the new enter_pin text is shown"; else fail "reload texts: $(tail -3 $W/reload.out)"; fi
if grep -q "reload refused.*users.*line" $W/reload.out && [ $after_refused -gt $after_reload ]; then pass "SIGHUP with a broken users file: refused, logged, the old users still enter"; else fail "refused reload: $after_reload $after_refused $(grep -m1 'reload refused' $W/reload.out)"; fi

# keypad_config FILE TERMINAL_ID STATE_DIR KEYPAD_YAML: a terminal with that keypad (and any
# entry settings), the plain 16x2 display, the local users file, no metrics.
keypad_config() {
    cat > $1 <<YAML
terminal_id: $2
$4
display:
  driver: plain
  columns: 16
  rows: 2
verifier:
  kind: local
  users_file: $USERS
state_dir: $3
metrics:
  listen: "off"
YAML
}

# ---- 9m. evdev: a virtual USB numeric keypad (uinput) as the keypad (issue 13) ---------
section "9m evdev"
if modprobe uinput 2>/dev/null && modprobe evdev 2>/dev/null && [ -c /dev/uinput ]; then
    rm -f $W/kbd.fifo; mkfifo $W/kbd.fifo
    python3 $REPO/Tests/HIL/uinput-keypad.py < $W/kbd.fifo > $W/kbd.log 2>&1 &
    KBD=$!
    exec 7> $W/kbd.fifo
    echo create >&7; wait_for $W/kbd.log 'created /dev/input/event'
    KDEV=$(sed -n 's/^created //p' $W/kbd.log | tail -1)
    keypad_config $W/evdev.yaml hil-evdev $W/state-evdev "entry:
  timeout_s: 60
keypad:
  driver: evdev
  device: \"name:KioskPad HIL keypad\""
    run_door $W/evdev.yaml $W/evdev.out
    # While kioskpad holds the grab, another reader of the device gets nothing.
    timeout 3 cat $KDEV > $W/evdev-other.bin 2>/dev/null &
    OTHER=$!; sleep 0.3
    echo "type 2468" >&7; wait_for $W/evdev.out 'Access granted'
    wait $OTHER
    granted_main=$(grep -c 'Access granted' $W/evdev.out)
    sleep 3.2
    echo "type k1 k1 k1 k1" >&7; wait_for $W/evdev.out 'Access denied'
    sleep 3.2
    # Unplugged mid-entry and plugged back in: the terminal recovers without a restart.
    echo "type 24" >&7; echo destroy >&7; wait_for $W/kbd.log destroyed
    wait_for $W/evdev.out 'keypad failed'
    echo create >&7
    i=0; while ! grep -q 'keypad recovered' $W/evdev.out && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    # No wait for the entry timeout (60 s): the failure itself cleared the "24" typed before it.
    n=$(grep -c 'Access granted' $W/evdev.out)
    echo "type k2 k4 k6 k8" >&7
    i=0; while [ $(grep -c 'Access granted' $W/evdev.out) -le $n ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
    after_replug=$(grep -c 'Access granted' $W/evdev.out)
    kill -TERM $RUN; wait $RUN; rc=$?
    echo quit >&7; exec 7>&-; wait $KBD
    check "evdev: run stops with exit 0" 0 $rc
    if [ "$granted_main" -ge 1 ]; then pass "evdev: PIN on the main-row digits: Access granted"; else fail "evdev grant: $(tail -5 $W/evdev.out)"; fi
    if grep -q 'Access denied' $W/evdev.out; then pass "evdev: wrong PIN on the numeric keypad: Access denied"; else fail "evdev deny: $(tail -5 $W/evdev.out)"; fi
    check "evdev: the grabbed device's keys reached no other reader (bytes read)" 0 "$(stat -c %s $W/evdev-other.bin)"
    if grep -q 'keypad failed' $W/evdev.out && grep -q 'keypad recovered' $W/evdev.out && [ $after_replug -gt $n ]; then pass "evdev: unplugged mid-entry and back: recovered, the half entry cleared, PIN granted without a restart"; else fail "evdev replug: $n $after_replug $(grep -e failed -e recovered $W/evdev.out | head -3)"; fi
    if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/evdev.out | grep -q -e 2468 -e 1111; then fail "a PIN appears in the evdev output"; else pass "no typed PIN in the evdev output"; fi
    cp $W/kbd.log $OUT/ 2>/dev/null
else
    fail "could not load uinput and evdev"
fi

# ---- 9n. Wiegand: a reader emulated on D0/D1 of a gpio-sim chip (issue 13) -------------
section "9n wiegand"
# Tests/HIL/wiegand-emu.py pulses D0/D1 1 ms low every 5 ms, 250 ms between frames (real
# readers: 50-100 us every 1-2 ms; see the emulator); frame_gap_ms (150, for the keypad and the cards) covers QEMU's stalls.
G=/sys/kernel/config/gpio-sim/wiegand
mkdir $G $G/bank0; echo 2 > $G/bank0/num_lines; echo wiegand-sim > $G/bank0/label
for l in 0:WD0 1:WD1; do mkdir $G/bank0/line${l%%:*}; echo ${l#*:} > $G/bank0/line${l%%:*}/name; done
echo 1 > $G/live
GCHIP=$(cat $G/bank0/chip_name); GSIM=/sys/devices/platform/$(cat $G/dev_name)/$GCHIP
for i in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/$GCHIP ] && break; sleep 0.2; done
keypad_config $W/wiegand.yaml hil-wiegand $W/state-wiegand "keypad:
  driver: wiegand
  chip: wiegand-sim
  d0: WD0
  d1: WD1
  frame_gap_ms: 150"
# The emulator's pulses are 5 ms apart; a guest stall longer than frame_gap_ms splits a frame
# (CI once saw an 8-bit key frame dropped as bit_count). Real-time priority keeps the guest's
# own processes from stalling it; 150 ms of gap still ends a frame well before the next
# (250 ms apart).
wiegand() { chrt -f 20 python3 $REPO/Tests/HIL/wiegand-emu.py $GSIM 0 1 >> $W/wiegand-emu.log 2>&1; }
# keytest: every kind of frame, good and bad. Run once more if what it saw differs: a QEMU
# stall of more than frame_gap_ms mid-frame splits a frame (a CI run once saw the 34-bit
# parity frame dropped as bit_count); a second difference fails.
wiegand_keytest() {
    taskset -c 0 $KP keytest --config $W/wiegand.yaml > $W/wiegand-keytest.out 2>&1 &
    KT=$!
    wait_for $W/wiegand-keytest.out '^keytest:'
    printf '%s\n' "key 1" "key8 5" "key 10" "key 11" "w26 1234" "w34 2468" \
        "bits 1000000010000000000000001" "bits 10000000100000000000000011" "bits 01010101" \
        "bits 0000000000000000000000000000000000" "key 0" | wiegand
    sleep 0.5; kill -INT $KT; wait $KT
    keys=$(sed -n "s/^press   key '\(.\)'$/\1/p" $W/wiegand-keytest.out | tr -d '\n')
    frames=$(sed -n 's/^frame   \([0-9]*\) bits: a whole PIN of \([0-9]*\) digits.*/\1:\2/p' $W/wiegand-keytest.out | tr '\n' ' ' | sed 's/ $//')
    dropped=$(sed -n 's/^warning: wiegand frame dropped: //p' $W/wiegand-keytest.out | tr '\n' ' ' | sed 's/ $//')
}
wiegand_keytest
if [ "$keys|$frames|$dropped" != "15*#0|26:4 34:4|bit_count parity check_nibble parity" ]; then
    echo "wiegand keytest saw '$keys|$frames|$dropped'; once more (a guest stall splits a frame)"
    cp $W/wiegand-keytest.out $OUT/wiegand-keytest-first.out 2>/dev/null
    wiegand_keytest
fi
cp $W/wiegand-keytest.out $OUT/ 2>/dev/null
check "wiegand keytest: 4- and 8-bit keys in order" "15*#0" "$keys"
check "wiegand keytest: whole-PIN frames (26 and 34 bits), length only" "26:4 34:4" "$frames"
check "wiegand keytest: bad frames dropped with their reason" "bit_count parity check_nibble parity" "$dropped"
# run: PINs typed key by key (4-bit and 8-bit) and sent whole (26-bit), bad frames in between
rm -rf $W/state-wiegand
run_door $W/wiegand.yaml $W/wiegand.out
printf '%s\n' "key 2" "key 4" "key 6" "key 8" | wiegand; wait_for $W/wiegand.out 'Access granted'; sleep 3.2
printf '%s\n' "key8 1" "key8 3" "key8 5" "key8 7" | wiegand; wait_for $W/wiegand.out 'Access denied'; sleep 3.2
printf '%s\n' "bits 10000000100000000000000011" "bits 101" "w34 99999999" | wiegand
n=$(grep -c 'Access granted' $W/wiegand.out)
# A stray key, then a whole PIN. Sent once more, the same two frames, when no grant follows:
# a guest stall of more than frame_gap_ms inside the 26-bit frame splits it (a CI run once saw
# this step fail with nothing else wrong); a door that mishandles the sequence fails both times,
# and a first frame that was decided rather than split shows as a fourth attempt below.
whole_pin_frames() {
    printf '%s\n' "key 1" "w26 2468" | wiegand
    i=0; while [ $(grep -c 'Access granted' $W/wiegand.out) -le $n ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
}
whole_pin_frames
if [ $(grep -c 'Access granted' $W/wiegand.out) -le $n ]; then
    echo "wiegand: no grant after the whole-PIN frame; once more (a guest stall splits a frame)"
    tail -8 $W/wiegand.out | sed 's/^/  door: /'; tail -4 $W/wiegand-emu.log | sed 's/^/  emulator: /'
    whole_pin_frames
fi
whole_pin=$(grep -c 'Access granted' $W/wiegand.out)
kill -TERM $RUN; wait $RUN; rc=$?
check "wiegand run: stops with exit 0" 0 $rc
if grep -q 'Access granted' $W/wiegand.out && [ $n -ge 1 ]; then pass "wiegand: PIN typed with 4-bit keys: Access granted"; else fail "wiegand grant: $(tail -5 $W/wiegand.out)"; fi
if grep -q 'Access denied' $W/wiegand.out; then pass "wiegand: wrong PIN typed with 8-bit keys: Access denied"; else fail "wiegand deny: $(tail -5 $W/wiegand.out)"; fi
if [ $whole_pin -gt $n ]; then pass "wiegand: a 26-bit whole-PIN frame after a stray key: Access granted"; else fail "wiegand whole PIN: $n $whole_pin $(tail -5 $W/wiegand.out)"; fi
dropped=$(sed -n 's/.*"type":"wiegand_dropped".*"reason":"\([a-z_]*\)".*/\1/p' $W/state-wiegand/journal.jsonl | head -1)
check "wiegand: the first dropped frame is journaled (rate-limited) with its reason" parity "$dropped"
check "wiegand: 3 attempts journaled, bad frames never one" 3 "$(grep -c '"type":"attempt"' $W/state-wiegand/journal.jsonl)"
if grep -q 'wiegand frame dropped.*reason=parity' $W/wiegand.out; then pass "wiegand: a dropped frame is logged with its reason"; else fail "wiegand drop log: $(grep -i wiegand $W/wiegand.out | head -3)"; fi
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/wiegand.out $W/wiegand-keytest.out $W/state-wiegand/journal.jsonl | grep -q -e 2468 -e 1357 -e 1234; then fail "a PIN appears in the wiegand output or journal"; else pass "no typed PIN in the wiegand output, keytest or journal"; fi
cp $W/wiegand.out $W/wiegand-emu.log $OUT/ 2>/dev/null

# A card presented at a door whose metrics listen on 127.0.0.1:19464, decided once: the frame
# is sent again only when the door counted a frame it dropped and journaled no new attempt (a
# guest stall longer than frame_gap_ms splits a frame in two; a CI run lost a card so and
# learn-card waited out its two minutes). A door that decides wrongly is not given a second try.
CARD_METRICS=127.0.0.1:19464
CARDS_SENT_AGAIN=0
dropped_frames() { curl -s http://$CARD_METRICS/metrics | awk '/^kioskpad_wiegand_frames_dropped_total/ { s += $NF } END { print s + 0 }'; }
journaled_attempts() { cat $1 2>/dev/null | grep -c '"type":"attempt"' || true; }
present_card() { # present_card JOURNAL VALUE
    before=$(journaled_attempts $1)
    for try in 1 2 3; do
        dropped=$(dropped_frames)
        echo "w26 $2" | wiegand
        i=0; while [ $(journaled_attempts $1) -le $before ] && [ $(dropped_frames) -le $dropped ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        # A split frame's second half may come after the first is counted.
        [ $(journaled_attempts $1) -gt $before ] && return 0
        [ $(dropped_frames) -gt $dropped ] || return 1
        sleep 0.5; [ $(journaled_attempts $1) -gt $before ] && return 0
        CARDS_SENT_AGAIN=$((CARDS_SENT_AGAIN + 1))
        echo "wiegand: the door dropped a card's frame and decided nothing; the card again"
    done
    return 1
}

# 9n, cards: keypad.long_frames card; a :card users-file line for facility 1, number 1
{ cat $USERS; printf '00065537' | $KP pin hash --user hil --iterations 1000 | sed 's/$/:card/'; } > $W/users-card
CARD_READER="keypad:
  driver: wiegand
  chip: wiegand-sim
  d0: WD0
  d1: WD1
  frame_gap_ms: 150
  long_frames: card"
keypad_config $W/card.yaml hil-card $W/state-card "$CARD_READER"
sed -i "s|users_file: $USERS|users_file: $W/users-card|; s|listen: \"off\"|listen: \"$CARD_METRICS\"|" $W/card.yaml
# The keytest once more when it saw no card (a guest stall splits a frame).
card_keytest() {
    taskset -c 0 $KP keytest --config $W/card.yaml > $W/card-keytest.out 2>&1 &
    KT=$!
    wait_for $W/card-keytest.out '^keytest:'
    echo "w26 65537" | wiegand
    sleep 0.3; kill -INT $KT; wait $KT
}
card_keytest
if ! grep -q '^card' $W/card-keytest.out; then
    echo "wiegand card keytest saw no card; once more (a guest stall splits a frame)"
    cp $W/card-keytest.out $OUT/card-keytest-first.out 2>/dev/null; CARDS_SENT_AGAIN=$((CARDS_SENT_AGAIN + 1))
    card_keytest
fi
check "wiegand card keytest: facility, number and the value to enrol" "card    26 bits: facility 1, number 1, value 00065537" "$(grep '^card' $W/card-keytest.out)"
run_door $W/card.yaml $W/card.out
present_card $W/state-card/journal.jsonl 65537; sleep 3.2
present_card $W/state-card/journal.jsonl 2468
kill -TERM $RUN; wait $RUN; rc=$?
check "wiegand cards: run stops with exit 0" 0 $rc
check "wiegand cards: the enrolled card granted, a PIN's number as a card denied" "card granted card denied" \
    "$(sed -n 's/.*"type":"attempt".*"kind":"\([a-z]*\)","decision":"\([a-z]*\)".*/\1 \2/p' $W/state-card/journal.jsonl | tr '\n' ' ' | sed 's/ $//')"
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/card.out | grep -q -e 65537 -e 2468; then fail "a card number or PIN appears in the run's output"; else pass "no card number or PIN in the run's output"; fi
cp $W/card.out $W/card-keytest.out $OUT/ 2>/dev/null

# 9n, cards learned at the reader (issue 62): `verifier serve` on the guest's loopback (the
# site, SQLite), the door asking it over signed HTTP; `verifier user learn-card` arms the door
# and waits, the emulator presents a card nobody holds, and the card becomes bob's.
S=$W/site; rm -rf $S $W/state-learn; mkdir -p $S
KPV=${HIL_SITE_BIN:-$BIN}/kioskpad-verifier
$KPV secret > $S/secret
printf 'server:\n  listen: 127.0.0.1:18470\n  state_dir: %s/state\n  secret_file: %s/secret\n' $S $S > $S/verifier.yaml
site() { $KPV "$@" --config $S/verifier.yaml; }
printf '1470\n' | site user add bob --iterations 1000 > $S/add.out 2>&1
printf '3691\n' | site user add dana --iterations 1000 >> $S/add.out 2>&1
$KPV serve --config $S/verifier.yaml --log-level warning > $S/serve.out 2>&1 &
SERVE=$!
# Longer waits (40 s) than wait_for's 6 s: the site hashes each unknown card (75,000 iterations) in the guest.
wait_long() { i=0; while ! grep -q "$2" $1 2>/dev/null && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done; }
wait_long $S/serve.out 'verifier listening on'
keypad_config $W/learn.yaml hil-learn $W/state-learn "$CARD_READER"
sed -i "s|listen: \"off\"|listen: \"$CARD_METRICS\"|" $W/learn.yaml
# timeout_s 30 (the most the door takes), not the default 3: the site in this emulated (TCG)
# guest hashes each card it learns or keeps as unknown (75,000 iterations) inside the door's
# /verify. With 10, CI saw 4.6 to 10.2 s per card and an unknown card's attempt end in error
# (the site kept no unknown card then). The checks are about what was decided; the latencies
# are printed below.
sed -i "/^verifier:/,/users_file:/c\\verifier:\\n  kind: http\\n  url: http://127.0.0.1:18470/verify\\n  secret_file: $S/secret\\n  timeout_s: 30" $W/learn.yaml
# Beside the Wiegand reader, a USB card reader that types (uinput): card_reader:.
rm -f $W/card-reader.fifo; mkfifo $W/card-reader.fifo
python3 $REPO/Tests/HIL/uinput-keypad.py < $W/card-reader.fifo > $W/card-reader.log 2>&1 &
CR=$!
exec 8> $W/card-reader.fifo
echo "create card" >&8; wait_for $W/card-reader.log 'created /dev/input/event'
printf 'card_reader:\n  device: "name:KioskPad HIL card reader"\n' >> $W/learn.yaml
run_door $W/learn.yaml $W/learn.out
site user learn-card bob --door hil-learn > $S/learn.out 2>&1 &
LEARN=$!
wait_long $S/learn.out 'hil-learn armed until'
# Facility 12, number 3456: value 00789888, a card nobody holds.
present_card $W/state-learn/journal.jsonl 789888; wait_long $W/learn.out 'Card learned'
wait $LEARN; rc=$?
check "card learning: learn-card waited and saw the card learned (exit 0)" "0 card learned at hil-learn for bob" "$rc $(tail -1 $S/learn.out)"
if grep -q 'Card learned' $W/learn.out; then pass "card learning: the door showed Card learned"; else fail "card learning display: $(tail -5 $W/learn.out)"; fi
sleep 3.2
present_card $W/state-learn/journal.jsonl 789888; wait_long $W/learn.out 'Access granted'; sleep 3.2
# A card nobody holds, read while nothing is armed: denied, kept as an unknown card, claimed.
present_card $W/state-learn/journal.jsonl 65537; wait_long $W/learn.out 'Access denied'; sleep 3.2
site user unknown-cards > $S/unknown.out 2>&1
unknown=$(awk -F'\t' '$2 == "hil-learn" { print $1; exit }' $S/unknown.out)
check "unknown cards: the card read at hil-learn is listed with its digits, never its number" "hil-learn 8 digits no" \
    "$(awk -F'\t' '$2 == "hil-learn" { print $2, $4; exit }' $S/unknown.out) $(grep -q 65537 $S/unknown.out && echo yes || echo no)"
site user claim-card dana --card "${unknown:-0}" > $S/claim.out 2>&1
check "unknown cards: claimed for dana" "unknown card $unknown is now dana's" "$(cat $S/claim.out)"
present_card $W/state-learn/journal.jsonl 65537
sleep 3.2
# Armed for dana, bob's card is refused: the arming ends and nothing changes hands.
site user learn-card dana --door hil-learn > $S/learn-dana.out 2>&1 &
LEARN=$!
wait_long $S/learn-dana.out 'hil-learn armed until'
present_card $W/state-learn/journal.jsonl 789888
wait $LEARN; rc=$?
sleep 3.2
# The USB card reader: armed for dana, a card typed by it is learned, then opens.
site user learn-card dana --door hil-learn > $S/learn-usb.out 2>&1 &
LEARN=$!
wait_long $S/learn-usb.out 'hil-learn armed until'
echo "card 0004215739" >&8
wait $LEARN; rc_usb=$?
sleep 3.2
n=$(grep -c 'Access granted' $W/learn.out)
echo "card 0004215739" >&8
i=0; while [ $(grep -c 'Access granted' $W/learn.out) -le $n ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
usb_granted=$(grep -c 'Access granted' $W/learn.out)
kill -TERM $RUN; wait $RUN; rc_door=$?
echo quit >&8; exec 8>&-; wait $CR
kill -TERM $SERVE; wait $SERVE
check "card learning: someone's card refused while armed for another (exit 2, the owner named)" "2 kioskpad: hil-learn: refused: that card is bob's already" \
    "$rc $(tail -1 $S/learn-dana.out)"
check "card learning: the door stops with exit 0" 0 $rc_door
check "card learning, USB reader: learn-card saw the typed card learned (exit 0)" "0 card learned at hil-learn for dana" "$rc_usb $(tail -1 $S/learn-usb.out)"
if [ $usb_granted -gt $n ]; then pass "card learning, USB reader: the learned card opens"; else fail "USB card grant: $n $usb_granted $(tail -5 $W/learn.out)"; fi
if grep -q 'card reader ready' $W/learn.out; then pass "card_reader: the USB reader opened beside the Wiegand keypad"; else fail "card reader: $(grep -i card $W/learn.out | head -3)"; fi
# One reading of the journal: the attempts (kind:decision:reason), then their latencies (ms).
learned=$(python3 -c 'import json, sys
records = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "attempt"]
print(" ".join(r["kind"] + ":" + r["decision"] + ":" + r.get("reason", "") for r in records))
print(" ".join(str(r.get("latency_ms")) for r in records))' $W/state-learn/journal.jsonl)
attempts=$(echo "$learned" | sed -n 1p); latencies=$(echo "$learned" | sed -n 2p)
check "card learning: the door's attempts (learned, granted, unknown, claimed and granted, someone's refused, USB learned, granted)" \
    "card:denied:card_enrolled card:granted: card:denied: card:granted: card:denied: card:denied:card_enrolled card:granted:" "$attempts"
echo "card learning: the attempts' latencies (ms): $latencies"
case "$attempts" in *error*) grep -i -e error -e unavailable -e timed $W/learn.out | tail -5 | sed 's/^/  door: /' ;; esac
if grep -q -e 789888 -e 65537 -e 4215739 $W/learn.out $W/state-learn/journal.jsonl $S/serve.out; then fail "a card number appears in the door's output, journal or the site's log"; else pass "no card number in the door's output, journal or the site's log"; fi
cp $W/learn.out $S/learn.out $S/learn-dana.out $S/learn-usb.out $S/serve.out $W/card-reader.log $OUT/ 2>/dev/null

# ---- 9o. a door adopted by its site, on the GPIO keypad (issue 63) ----------------------
section "9o adoption"
# The door's config names only its site and its hardware: `run` shows a pairing code (never
# logged), `verifier terminal adopt` seals its secret to it, the door starts again as that door
# and a PIN typed on the keypad is granted by the site; then a text from the site's settings
# replaces one on the display without a restart, and the door reports the version it runs.
S=$W/site-pair; rm -rf $S $W/state-paired; mkdir -p $S
$KPV secret > $S/secret
printf 'server:\n  listen: 127.0.0.1:18471\n  state_dir: %s/state\n  secret_file: %s/secret\n  check_in_seconds: 1\n' $S $S > $S/verifier.yaml
psite() { $KPV "$@" --config $S/verifier.yaml; }
printf '2468\n' | psite user add hil --iterations 1000 > $S/add.out 2>&1
$KPV serve --config $S/verifier.yaml --log-level warning > $S/serve.out 2>&1 &
PSERVE=$!
wait_long $S/serve.out 'verifier listening on'
{ echo "site: http://127.0.0.1:18471"; echo "state_dir: $W/state-paired"; keypad_yaml keypad-sim 10; echo 'metrics: {listen: "off"}'; } > $W/paired.yaml
taskset -c 0 $KP run --config $W/paired.yaml > $W/paired.out 2> $W/paired.err &
RUN=$!
wait_long $W/paired.out 'Pair this door:'
code=$($KP pair status --state-dir $W/state-paired | sed -n 's/^waiting: pairing code //p')
echo "$code" | psite terminal adopt --name hil-paired > $S/adopt.out 2>&1
wait_long $W/paired.err 'adopted by the site'
wait_long $W/paired.err 'keypad ready'
type_pin_until $W/paired.out 'Access granted' 2468; granted=$?
psite settings set "display.texts.granted=Welcome in" > $S/settings.out 2>&1
i=0; while ! psite settings show 2>/dev/null | grep -q 'hil-paired: runs version 1' && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
sleep 3.2
type_pin_until $W/paired.out 'Welcome in' 2468; welcome=$?
kill -TERM $RUN; wait $RUN; rc=$?
kill -TERM $PSERVE; wait $PSERVE
check "adopted door: the pairing code shown and adopted by the site" "hil-paired: sealed for the door at 127.0.0.1" "$(cut -c1-44 $S/adopt.out)"
if [ -n "$code" ] && ! grep -q "${code#????-}" $W/paired.err; then pass "adopted door: the code is on the display, never in the log"; else fail "pairing code: '$code' $(tail -3 $W/paired.err)"; fi
check "adopted door: a PIN on the GPIO keypad granted by the site, then the site's text shown" "0 0" "$granted $welcome"
check "adopted door: its attempts decided by the site as hil-paired" "hil-paired granted hil-paired granted" \
    "$(python3 -c 'import json, sys
print(" ".join(r.get("terminal_id", "?") + " " + r["decision"] for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "attempt"))' $W/state-paired/journal.jsonl)"
check "adopted door: it reports the site's settings version it runs" "hil-paired: runs version 1" "$(psite settings show 2>/dev/null | grep '^hil-paired:')"
check "adopted door: stops with exit 0" 0 $rc
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/paired.out $W/paired.err $W/state-paired/journal.jsonl | grep -q -e 2468 -e whsec_; then fail "a PIN or secret appears in the adopted door's output or journal"; else pass "no PIN or secret in the adopted door's output or journal"; fi
cp $W/paired.out $W/paired.err $S/serve.out $OUT/ 2>/dev/null

# ---- 9p. remote unlock from the site's API to the relay on gpio-sim (issue 80) -----------
section "9p remote unlock"
# `kioskpad run` with its site's replica (verifier.offline, the push channel on by default)
# and the relay on door-sim: POST /api/v1/doors/hil-remote/unlock turns the relay line on for
# the 2 s asked, through the door's push channel; a lockdown set through the API refuses the
# next unlock (409) and the line stays off; the door journals the command it took. The
# time from the API's request to the line going high is printed (a figure, not a gate).
S=$W/site-remote; rm -rf $S $W/state-remote; mkdir -p $S
$KPV secret > $S/secret
printf 'server:\n  listen: 127.0.0.1:18472\n  state_dir: %s/state\n  secret_file: %s/secret\n  console:\n    enabled: true\n    listen: 127.0.0.1:18473\n' \
    $S $S > $S/verifier.yaml
rsite() { $KPV "$@" --config $S/verifier.yaml; }
printf '2468\n' | rsite user add hil --iterations 1000 > $S/add.out 2>&1
rsite terminal add hil-remote > $S/door.secret 2> $S/terminal.err
token=$(rsite token create hil-desk --scope doors 2> $S/token.err)
key=$(rsite public-key)
$KPV serve --config $S/verifier.yaml --log-level warning > $S/serve.out 2>&1 &
RSERVE=$!
wait_long $S/serve.out 'console listening on'
relay_config $W/remote.yaml "  kind: http
  url: http://127.0.0.1:18472/verify
  secret_file: $S/door.secret
  timeout_s: 30
  offline:
    mode: fallback
    public_key: \"$key\""
sed -i "s/^terminal_id: hil-door/terminal_id: hil-remote/; s|^state_dir: .*|state_dir: $W/state-remote|" $W/remote.yaml
api() { # api METHOD PATH BODY -> the status; the answer in $S/api.json
    curl -s -o $S/api.json -w '%{http_code}' -X "$1" -H "authorization: Bearer $token" -H 'content-type: application/json' -d "$3" \
        "http://127.0.0.1:18473/api/v1/$2"
}
watch_relay $W/remote-relay.log
run_door $W/remote.yaml $W/remote.out
wait_long $W/remote.out 'credential replica synced'
sleep 1  # the push channel's first request is held at the site
t0=$(cut -d' ' -f1 /proc/uptime)
unlocked=$(api POST doors/hil-remote/unlock '{"seconds": 2, "reason": "HIL courier"}')
i=0; while ! ever_on $W/remote-relay.log && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
on_at=$(awk '$2 == 1 { print $1; exit }' $W/remote-relay.log)
sleep 3.5
after=$(cat $DSIM/sim_gpio0/value)
locked=$(api PUT modes/doors/hil-remote '{"mode": "lockdown"}')
refused=$(api POST doors/hil-remote/unlock '{"reason": "HIL courier, in lockdown"}')
sleep 2
kill -TERM $RUN; wait $RUN; rc=$?
kill $WATCH; kill -TERM $RSERVE; wait $RSERVE
[ -n "$on_at" ] && echo "hil: remote unlock: API request to the relay line high in $(awk -v a=$t0 -v b=$on_at 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms (guest time)"
check "remote unlock: the API answered 202, the relay went on, and off after the 2 s asked" "202 yes 0" \
    "$unlocked $([ -n "$on_at" ] && echo yes || echo no) $after"
check "remote unlock in lockdown: the mode set, the unlock refused 409, the relay on only once" "200 409 1" "$locked $refused $(grep -c ' 1$' $W/remote-relay.log)"
check "remote unlock: the door journaled the command it took" "unlocked:2" \
    "$(python3 -c 'import json, sys
print(" ".join(r["result"] + ":" + str(r.get("seconds")) for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "remote_command"))' $W/state-remote/journal.jsonl)"
check "remote unlock: the door stops with exit 0" 0 $rc
if grep -q -e 2468 -e "${token:-no-token}" -e whsec_ $W/remote.out $W/state-remote/journal.jsonl; then fail "a PIN, token or secret in the remote door's output or journal"; else pass "no PIN, token or secret in the remote door's output or journal"; fi
cp $W/remote.out $W/remote-relay.log $S/serve.out $OUT/ 2>/dev/null

# ---- 10. the LCD through the real i2c-dev path (i2c-stub answering at 0x27) --------------
section "10 LCD"
if modprobe i2c-dev && modprobe i2c-stub chip_addr=0x27; then
    BUS=''
    for a in /sys/class/i2c-adapter/i2c-*; do grep -q 'SMBus stub' $a/name 2>/dev/null && BUS=${a##*/i2c-}; done
    for i in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/i2c-$BUS ] && break; sleep 0.2; done
    lcd_config() { # lcd_config FILE ADDRESS
        printf 'display:\n  driver: hd44780\n  i2c_bus: %s\n  i2c_address: %s\nverifier:\n  kind: demo\n' "$BUS" "$2" > $1
    }
    lcd_config $W/lcd.yaml 0x27
    $KP display test --config $W/lcd.yaml --pause-ms 0 > $W/lcd.out 2>&1; rc=$?
    check "display test over /dev/i2c-$BUS (i2c-stub at 0x27) exits 0" 0 $rc
    if grep -q 'display test done: [0-9]* bytes written' $W/lcd.out; then pass "display test wrote every frame: $(tail -1 $W/lcd.out)"; else fail "display test: $(cat $W/lcd.out)"; fi
    lcd_config $W/lcd-missing.yaml 0x3f
    $KP display test --config $W/lcd-missing.yaml --pause-ms 0 > $W/lcd-missing.out 2>&1; rc=$?
    check "no device at 0x3f exits 1" 1 $rc
    if grep -q 'display.i2c_address: no device answered at 0x3f' $W/lcd-missing.out; then pass "missing LCD names display.i2c_address"; else fail "missing LCD: $(cat $W/lcd-missing.out)"; fi
    lcd_config $W/lcd-nobus.yaml 0x27; sed -i 's/i2c_bus: .*/i2c_bus: 250/' $W/lcd-nobus.yaml
    $KP display test --config $W/lcd-nobus.yaml --pause-ms 0 > $W/lcd-nobus.out 2>&1
    if grep -q 'display.i2c_bus: /dev/i2c-250 does not exist' $W/lcd-nobus.out; then pass "missing bus names display.i2c_bus"; else fail "missing bus: $(cat $W/lcd-nobus.out)"; fi
else
    fail "could not load i2c-dev and i2c-stub"
fi

# ---- 11. journald priorities from the real daemon: a stuck key is a warning (<4>) --------
config $W/stuck.yaml keypad-sim 20
sed -i 's/^  hold_ms: 0$/  hold_ms: 0\n  stuck_s: 1/' $W/stuck.yaml
: > $W/stuck.err
stream=$(stat -c '%d:%i' $W/stuck.err)   # what systemd puts in JOURNAL_STREAM for stderr
JOURNAL_STREAM=$stream taskset -c 0 $KP run --config $W/stuck.yaml --display plain > $W/stuck.out 2>> $W/stuck.err &
RUN=$!
i=0; while ! grep -q 'keypad ready' $W/stuck.err 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
printf 'press 1 1\nwait 2500\nrelease 1 1\nwait 200\n' > $W/stuck.script
emulate $W/stuck.script
kill -TERM $RUN; wait $RUN
if grep -q '^<4>kioskpad.run: keypad fault' $W/stuck.err; then pass "stuck key under journald: '$(grep -m1 '^<4>' $W/stuck.err | cut -c1-60)...'"; else fail "no <4> keypad fault line: $(head -5 $W/stuck.err)"; fi
if grep -q '^<5>kioskpad.run: terminal ready' $W/stuck.err; then pass "notice lines carry <5>"; else fail "no <5> terminal ready line"; fi
if grep -q '^<[0-7]>' $W/run.err; then fail "a terminal (no JOURNAL_STREAM) got priority prefixes"; else pass "without JOURNAL_STREAM lines are plain"; fi

# ---- 11b. a read-only root, the state on a writable data partition (issue 47) ------------
section "11b read-only root"
. $REPO/Tests/HIL/readonly-root.sh

fi
# ---- 12. the installed service under systemd (when the suite was given a Debian root) -----
section "12 systemd"
[ -n "$E2E_ROOT" ] && . $REPO/Tests/HIL/systemd-e2e.sh
# ---- 13. the Debian package in the same root (when the suite was given one) ------------------
section "13 package"
[ -n "$E2E_ROOT" ] && [ -n "$DEB_DIR" ] && . $REPO/Tests/HIL/package-e2e.sh

cp $W/*.out $W/*.err $W/emu.log $OUT/ 2>/dev/null
echo 0 > $D/live; rmdir $D/bank0/line0 $D/bank0/line2 $D/bank0/line3 $D/bank0/line4 $D/bank0 $D
echo 0 > $C/live
for i in 0 1 2 3 4 5 6 7; do rmdir $C/bank0/line$i; done; rmdir $C/bank0 $C
section "end"
echo "hil: Wiegand cards presented again after the door dropped a split frame: ${CARDS_SENT_AGAIN:-0}"
echo "hil: PINs typed again after the emulated keypad lost a key (type_pin_until): $(grep -c 'type_pin_until: no new' $W/emu.log 2>/dev/null || true)"
echo "hil: $passed passed, $failed failed"
[ $failed -eq 0 ]
