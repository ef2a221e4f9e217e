# Sourced by Tests/HIL/guest.sh (inside the HIL guest, after the gpio-sim chips, the keypad
# emulator helpers and i2c-stub are set up): a deployment end to end. A Debian 12 root made
# by debootstrap boots systemd as PID 1 of its own PID and mount namespace (a container);
# deploy/install.sh installs the release binary into it, and the hardened kioskpad.service
# runs the door on the simulated chips: GPIO keypad, HD44780 on i2c-stub, relay, journal,
# metrics, journald.
# Needs: E2E_ROOT (the Debian root), RELEASE (the release binary), REPO, and guest.sh's
# helpers and variables (CHIP, DCHIP, DSIM, BUS, type_pin, emulate, persist_on, check, ...).

R=$E2E_ROOT
mkdir -p $R/opt/kioskpad-src $R/opt/kioskpad-bin
mount -t tmpfs tmpfs $R/run
mount -t tmpfs tmpfs $R/tmp
mount --rbind /dev $R/dev
mount --rbind /sys $R/sys
mount -t cgroup2 none $R/sys/fs/cgroup
mount --bind $REPO $R/opt/kioskpad-src
mount --bind "$(dirname $RELEASE)" $R/opt/kioskpad-bin
: > $R/etc/machine-id
# As every other door in this suite (taskset -c 0): the service on CPU 0, the emulator on CPU 1.
# keypad-emu polls at SCHED_FIFO on CPU 1; a door thread left there waits behind it, and one
# 120 ms tap of the PIN went unseen that way (a stop's CI: 3 keys counted of 4).
mkdir -p $R/etc/systemd/system/kioskpad.service.d
printf '[Service]\nCPUAffinity=0\n' > $R/etc/systemd/system/kioskpad.service.d/hil-cpu.conf
chroot $R systemctl mask e2scrub_reap.service getty@tty1.service serial-getty@ttyS0.service console-getty.service >/dev/null 2>&1
# systemd wants / to be a mount point of its own (it pivots into namespaces for
# ProtectSystem= and friends): bind the root onto itself, pivot into it, start systemd.
unshare --pid --fork --mount --propagation private sh -c "mount --rbind $R $R && cd $R && mount -t proc proc proc && mkdir -p .oldroot && pivot_root . .oldroot && exec /usr/bin/env -i container=kioskpad-e2e PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c 'umount -l /.oldroot; exec /lib/systemd/systemd --log-target=console --show-status=false'" > $W/systemd.log 2>&1 &
UNSHARE=$!
SYS=''
i=0; while [ -z "$SYS" ] && [ $i -lt 50 ]; do SYS=$(pgrep -P $UNSHARE); sleep 0.2; i=$((i + 1)); done
inside() { nsenter -t $SYS -m -p -r -w "$@"; }
# keypad_ready N: wait (up to 40 s) until the journal has N "keypad ready" lines and the one
# from the service's current process is among them: a service started twice (a package
# taking over, then starting its own unit) must not be taken as ready by its first start.
keypad_ready() {
    local i=0 pid
    while [ $i -lt 200 ]; do
        if [ "$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')" -ge $1 ]; then
            pid=$(inside systemctl show -p MainPID --value kioskpad 2>/dev/null)
            if [ -n "$pid" ] && [ "$pid" != 0 ] && inside journalctl _PID="$pid" --no-pager 2>/dev/null | grep -q 'keypad ready'; then return 0; fi
        fi
        sleep 0.2; i=$((i + 1))
    done
    echo "note: the service's keypad was not ready within 40 s (journal: $(inside journalctl -u kioskpad --no-pager 2>/dev/null | tail -2 | tr '\n' ' '))"
}
i=0; state=''
while [ $i -lt 120 ]; do
    state=$(inside systemctl is-system-running 2>/dev/null)
    case $state in running|degraded) break ;; esac
    sleep 1; i=$((i + 1))
done
check "systemd (Debian 12) boots as the container's init" running "$state"

# 1. install with no users yet: installed, not started, not enabled
inside /opt/kioskpad-src/deploy/install.sh --binary /opt/kioskpad-bin/kioskpad < /dev/null > $W/e2e-install1.out 2>&1; rc=$?
check "install.sh (no users yet) exits 0" 0 $rc
if grep -q 'installed, but not (re)started' $W/e2e-install1.out && grep -q 'lists no users' $W/e2e-install1.out; then pass "install.sh says the service was not started and why"; else fail "install.sh: $(tail -5 $W/e2e-install1.out)"; fi
check "the service is not enabled, so it cannot restart-loop" "disabled inactive" "$(inside systemctl is-enabled kioskpad 2>&1) $(inside systemctl is-active kioskpad 2>&1)"

# 2. a user and this site's wiring, then install again: enabled and running (READY=1)
printf '2468\n' | inside runuser -u kioskpad -- /usr/local/bin/kioskpad pin hash --user alice --iterations 1000 >> $R/etc/kioskpad/users
config $R/etc/kioskpad/kioskpad.yaml keypad-sim 20 "  kind: local
  users_file: /etc/kioskpad/users"
sed -i 's/^  hold_ms: 0$/  hold_ms: 0\n  stuck_s: 2/; s/^  driver: plain$/  driver: hd44780/' $R/etc/kioskpad/kioskpad.yaml
sed -i "s/^  rows: 2$/  rows: 2\n  i2c_bus: $BUS\n  i2c_address: 0x27/" $R/etc/kioskpad/kioskpad.yaml
cat >> $R/etc/kioskpad/kioskpad.yaml <<YAML
state_dir: /var/lib/kioskpad
metrics:
  listen: 127.0.0.1:9464
door:
  relay: {chip: door-sim, line: RELAY}
  unlock_s: 2
YAML
inside /opt/kioskpad-src/deploy/install.sh --binary /opt/kioskpad-bin/kioskpad < /dev/null > $W/e2e-install2.out 2>&1; rc=$?
check "install.sh (upgrade, with a user) exits 0" 0 $rc
check "kioskpad.service is enabled and active" "enabled active" "$(inside systemctl is-enabled kioskpad) $(inside systemctl is-active kioskpad)"
check "the service runs on CPU 0 only (this suite's drop-in; keypad-emu has CPU 1)" 0 "$(inside taskset -cp "$(inside systemctl show -p MainPID --value kioskpad)" 2>&1 | sed 's/.*: //')"
check "udev rule: the GPIO chip belongs to group gpio, mode 660" "gpio 660" "$(inside stat -c '%G %a' /dev/$CHIP)"
exposure=$(inside systemd-analyze security kioskpad.service 2>&1 | sed -n 's/.*Overall exposure level for kioskpad.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then pass "running unit's security exposure $exposure <= 2.0"; else fail "security exposure '$exposure'"; fi
echo "e2e_exposure=$exposure" >> $OUT/e2e.txt

# 3. a PIN typed on the keypad pulses the relay; the hardened unit reaches GPIO, I2C, state, metrics
keypad_ready 1
watch_relay $W/e2e-relay.log
type_pin_until_on $W/e2e-relay.log 2468; sleep 3.5; kill $WATCH
python3 - > $W/e2e-metrics.out 2>&1 <<'PY'
import urllib.request
print(urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read().decode())
PY
metric() { awk -v name="$1" '$1 == name { printf "%g", $2; exit }' $W/e2e-metrics.out; }
if grep -q ' 1$' $W/e2e-relay.log && [ "$(cat $DSIM/sim_gpio0/value)" = 0 ]; then pass "PIN on the emulated keypad: relay pulsed, then off"; else fail "relay: $(tr '\n' ' ' < $W/e2e-relay.log)(the door counted $(metric kioskpad_keys_total) keys of 4)"; fi
check "metrics over loopback: one unlock, keypad up, no display error" "1 1 0" "$(metric kioskpad_door_unlocks_total) $(metric kioskpad_keypad_up) $(metric kioskpad_display_errors_total)"
if inside grep -q '"decision":"granted"' /var/lib/kioskpad/journal.jsonl && [ "$(inside stat -c %U /var/lib/kioskpad/journal.jsonl)" = kioskpad ]; then pass "the audit journal in StateDirectory, owned by kioskpad, has the grant"; else fail "journal: $(inside ls -l /var/lib/kioskpad)"; fi

# 4. a stuck key: a warning that journalctl -p warning shows
printf 'press 2 2\nwait 3500\nrelease 2 2\nwait 200\n' > $W/e2e-stuck.script
emulate $W/e2e-stuck.script
sleep 0.5
inside journalctl -u kioskpad -p warning --no-pager > $W/e2e-warnings.out 2>&1
if grep -q 'keypad fault' $W/e2e-warnings.out; then pass "journalctl -p warning shows the stuck key: $(grep -m1 'keypad fault' $W/e2e-warnings.out | cut -c1-100)"; else fail "journalctl -p warning: $(cat $W/e2e-warnings.out)"; fi

# 5. SIGKILL during an unlock, on a kernel that keeps released outputs (the model from 9h):
# ExecStopPost switches the relay off; Restart= brings the terminal back.
persist_on
sed -i 's/^  unlock_s: 2$/  unlock_s: 8/' $R/etc/kioskpad/kioskpad.yaml
inside systemctl restart kioskpad
keypad_ready 2
# Typed again (after deleting) if a key was missed, so what is checked is the kill, not the typing.
relay_now() { cat $DSIM/sim_gpio0/value; }
retype_until relay_now 2468
on=$(cat $DSIM/sim_gpio0/value)
inside systemctl kill -s KILL kioskpad
sleep 2
check "systemctl kill -s KILL during an unlock: relay was on, then off (ExecStopPost)" "1 0" "$on $(cat $DSIM/sim_gpio0/value)"
persist_off
i=0; while [ "$(inside systemctl is-active kioskpad)" != active ] && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
check "Restart= brings the terminal back after the kill" active "$(inside systemctl is-active kioskpad)"
# 6. systemctl reload (ExecReload: SIGHUP) re-reads the users file and texts in place
keypad_ready 3
inside systemctl reload kioskpad; rrc=$?
i=0; while ! inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -q 'reloaded the users file' && [ $i -lt 30 ]; do sleep 0.2; i=$((i + 1)); done
check "systemctl reload kioskpad: exit 0, the unit still active" "0 active" "$rrc $(inside systemctl is-active kioskpad)"
if inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -q 'reloaded the users file'; then pass "systemctl reload: the users file and texts were reloaded"; else fail "systemctl reload: no reload in the journal"; fi
inside journalctl -u kioskpad --no-pager > $W/e2e-journal.out 2>&1
if grep -q "door off: door.relay (line RELAY on 'door-sim') is off and released" $W/e2e-journal.out; then pass "ExecStartPre/ExecStopPost ran door off"; else fail "no door off in the journal"; fi
if sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g' $W/e2e-journal.out $R/var/lib/kioskpad/journal.jsonl | grep -q 2468; then fail "the PIN appears in the journal"; else pass "no PIN in journald or the audit journal"; fi
# 7. the network is down: the door syncs its credential replica from `verifier serve`, the
# verifier stops, and a PIN on the keypad still pulses the relay, decided from the replica
inside mkdir -p /var/lib/kp-site
inside sh -c '/usr/local/bin/kioskpad verifier secret > /etc/kioskpad/site.secret && chgrp kioskpad /etc/kioskpad/site.secret && chmod 640 /etc/kioskpad/site.secret'
cat > $R/etc/kioskpad/site.yaml <<YAML
server:
  listen: 127.0.0.1:8787
  state_dir: /var/lib/kp-site
  secret_file: /etc/kioskpad/site.secret
YAML
printf '2468\n' | inside /usr/local/bin/kioskpad verifier user add alice --iterations 1000 --config /etc/kioskpad/site.yaml > $W/e2e-offline.out 2>&1
key=$(inside /usr/local/bin/kioskpad verifier public-key --config /etc/kioskpad/site.yaml)
inside systemd-run --unit kp-site /usr/local/bin/kioskpad verifier serve --config /etc/kioskpad/site.yaml >> $W/e2e-offline.out 2>&1
sed -i "s|^  kind: local$|  kind: http\n  url: http://127.0.0.1:8787/verify\n  timeout_s: 0.5\n  secret_file: /etc/kioskpad/site.secret\n  offline: {mode: fallback, public_key: \"$key\"}|; \\|^  users_file: /etc/kioskpad/users$|d" $R/etc/kioskpad/kioskpad.yaml
sed -i 's/^  unlock_s: 8$/  unlock_s: 2/' $R/etc/kioskpad/kioskpad.yaml
ready=$(inside journalctl -u kioskpad --no-pager 2>/dev/null | grep -c 'keypad ready')
inside systemctl restart kioskpad
i=0; while ! inside test -s /var/lib/kioskpad/replica.json && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
check "fallback: the service synced its replica into StateDirectory (owner, mode)" "kioskpad 600" "$(inside stat -c '%U %a' /var/lib/kioskpad/replica.json 2>&1)"
inside systemctl stop kp-site
keypad_ready $((ready + 1))
watch_relay $W/e2e-offline-relay.log
type_pin_until_on $W/e2e-offline-relay.log 2468; sleep 3.5; kill $WATCH
if grep -q ' 1$' $W/e2e-offline-relay.log && [ "$(cat $DSIM/sim_gpio0/value)" = 0 ]; then pass "verifier stopped: PIN on the emulated keypad decided from the replica, relay pulsed, then off"; else fail "offline relay: $(tr '\n' ' ' < $W/e2e-offline-relay.log) $(inside journalctl -u kioskpad --no-pager | tail -5)"; fi
if inside grep -q '"offline":true' /var/lib/kioskpad/journal.jsonl; then pass "the offline grant is journaled with offline: true"; else fail "no offline record: $(inside tail -3 /var/lib/kioskpad/journal.jsonl)"; fi
cp $W/systemd.log $W/e2e-*.out $OUT/ 2>/dev/null
inside systemctl stop kioskpad
