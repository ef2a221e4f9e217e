# Sourced inside the HIL guest (by guest.sh and latency-guest.sh), with W set to a work
# directory: makes a 4x4 keypad chip on gpio-sim (lines 0-3 rows ROW0-ROW3, lines 4-7 columns
# COL0-COL3, label keypad-sim) and sets C (its configfs dir), CHIP, SIM (its sysfs dir) and
# BASE, and exports TRACE_BASE/TRACE_STATE for the emulator (keypad-emu). keypad_yaml prints
# a config's keypad and display sections for it.
# ---- a 4x4 keypad chip: lines 0-3 rows, 4-7 columns ------------------------------------
C=/sys/kernel/config/gpio-sim/kp
mkdir $C $C/bank0
echo 8 > $C/bank0/num_lines; echo keypad-sim > $C/bank0/label
for i in 0 1 2 3; do mkdir $C/bank0/line$i; echo ROW$i > $C/bank0/line$i/name; done
for i in 4 5 6 7; do mkdir $C/bank0/line$i; echo COL$((i - 4)) > $C/bank0/line$i/name; done
echo 1 > $C/live
CHIP=$(cat $C/bank0/chip_name); SIM=/sys/devices/platform/$(cat $C/dev_name)/$CHIP
for i in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/$CHIP ] && break; sleep 0.2; done
echo "chip $CHIP at $SIM"

# Open-drain rows are emulated by gpiolib as "released = input"; gpio-sim does not show
# that in sim_gpioN/value, so the emulator follows the gpio_direction tracepoint instead.
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
echo 1 > /sys/kernel/tracing/events/gpio/gpio_direction/enable
BASE=''
for d in /sys/class/gpio/gpiochip*; do [ "$(cat $d/label 2>/dev/null)" = keypad-sim ] && BASE=$(cat $d/base); done
if [ -z "$BASE" ]; then
    mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
    BASE=$(sed -n 's/^gpiochip[0-9]*: GPIOs \([0-9]*\)-.*keypad-sim.*/\1/p' /sys/kernel/debug/gpio)
fi
echo "global GPIO base $BASE"
export TRACE_BASE=$BASE TRACE_STATE=$W/rows.state

# keypad_yaml CHIP [DEBOUNCE_MS] [SETTLE_US]: the keypad section of a config for this chip
# (the 4x4 keys, or $KEYS; debounce 10 ms, settle 3 ms by default) and the plain 16x2 display.
keypad_yaml() {
    cat <<YAML
keypad:
  driver: gpio
  chip: $1
  rows: [ROW0, ROW1, ROW2, ROW3]
  columns: [4, 5, 6, 7]
  keys: "${KEYS:-123A456B789C*0#D}"
  settle_us: ${3:-3000}
  debounce_press_ms: ${2:-10}
  debounce_release_ms: ${2:-10}
  hold_ms: 0
display:
  driver: plain
  columns: 16
  rows: 2
YAML
}
