# Sourced inside the HIL guest after keypad-chip.sh (EMU the keypad-emu binary, SIM and W set):
# types on the emulated 4x4 keypad (keys "123A456B789C*0#D", rows 0-3, columns 4-7).
#   emulate SCRIPT          runs an emulator script (press/release/wait lines) on guest CPU 1
#   tap LABEL [BOUNCE_MS]   prints the script lines of one key press and release
#   type_pin DIGITS         taps each digit in turn
#   wait_for FILE TEXT      waits until TEXT is in FILE (6 s at most)
#   type_pin_until FILE TEXT DIGITS   types DIGITS until FILE has one more TEXT line (6 s
#                           each try, 3 tries; between tries '*' deletes what was typed), for
#                           checks about something else than the keypad: under emulation a
#                           key is now and then missed (the key checks count every press)
#   type_pin_until_on LOG DIGITS      the same, for a door under systemd (its output is in the
#                           journal): types until the relay watch LOG (watch_relay) has one
#                           more ' 1' line, the relay switched on
emulate() { taskset -c 1 chrt -f 10 $EMU $SIM 0,1,2,3 4,5,6,7 $1 2>>$W/emu.log; }
key_rc() { # key_rc LABEL -> "R C"
    keys=123A456B789C*0#D; i=0
    while [ $i -lt 16 ]; do
        [ "$(echo "$keys" | cut -c$((i + 1)))" = "$1" ] && { echo "$((i / 4)) $((i % 4))"; return; }
        i=$((i + 1))
    done
}
tap() { # tap LABEL [BOUNCE_MS] -> script lines
    rc=$(key_rc "$1"); echo "press $rc ${2:-0}"; echo "wait 120"; echo "release $rc ${2:-0}"; echo "wait 120"
}
type_pin() { : > $W/type.script; for k in $(echo "$1" | sed 's/./& /g'); do tap $k >> $W/type.script; done; emulate $W/type.script; }
wait_for() { i=0; while ! grep -q "$2" $1 && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done; }
# retype_until COUNT DIGITS: types DIGITS until the command COUNT prints a larger number.
retype_until() {
    seen=$($1); tries=0
    while [ $tries -lt 3 ]; do
        tries=$((tries + 1))
        type_pin "$2"
        i=0; while [ $($1) -le $seen ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
        [ $($1) -gt $seen ] && return 0
        echo "type_pin_until: no new result ($1 ${UNTIL_TEXT:-relay on}) after typing, try $tries" >> $W/emu.log
        : > $W/delete.script; for n in 1 2 3 4; do tap '*' >> $W/delete.script; done; emulate $W/delete.script
    done
    return 1
}
type_pin_until() { UNTIL_FILE=$1 UNTIL_TEXT=$2; retype_until count_text "$3"; }
count_text() { grep -c "$UNTIL_TEXT" $UNTIL_FILE; }
type_pin_until_on() { UNTIL_FILE=$1 UNTIL_TEXT=; retype_until count_pulses "$2"; }
count_pulses() { grep -c ' 1$' $UNTIL_FILE; }
