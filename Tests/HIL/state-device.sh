# Sourced inside the HIL guest by powercut-guest.sh and wear-guest.sh (issue 47), with KP,
# EMU, W, REPO, say and die set: the keypad chip, a site server (`kioskpad verifier serve`,
# SQLite on the guest's own disk, not the recorded device) with the user hil (PIN 2468), and
# the door's state device: ext4 on a loop device under the kernel's dm-log-writes, which
# records every write and flush (the record in $LOG, the file system as mkfs left it in
# $W/base.img), mounted at $SD (state_dir $STATE). Defines mark NAME (a mark in the record)
# and door_config FILE STATE_DIR VERIFIER_URL CREDENTIALS_URL (HEARTBEAT_S, SYNC_S and
# MQTT_PORT from the environment), decisions FILE (attempts a door's log decided) and
# wait_count FILE TEXT COUNT (15 s at most, until more than COUNT lines match TEXT).
. $REPO/Tests/HIL/keypad-chip.sh
. $REPO/Tests/HIL/keypad-typing.sh

# ---- the site server: SQLite on the guest's own disk (not the recorded device) ----------
ip link set lo up   # the guest boots with loopback down
PORT=8787
(umask 077; $KP verifier secret > $W/site.secret)
cat > $W/site.yaml <<YAML
server:
  listen: 127.0.0.1:$PORT
  state_dir: $W/site
  secret_file: $W/site.secret
YAML
printf '2468' | $KP verifier user add hil --config $W/site.yaml > $W/site-user.out 2>&1 || die "verifier user add: $(cat $W/site-user.out)"
KEY=$($KP verifier public-key --config $W/site.yaml)
$KP verifier serve --config $W/site.yaml > $W/site.out 2>&1 &
SITE=$!
i=0; while ! grep -q 'listening' $W/site.out && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
grep -q 'listening' $W/site.out || die "the site server did not start: $(cat $W/site.out)"

# ---- the recorded device: ext4 on a loop device, dm-log-writes over it -------------------
modprobe loop && modprobe dm-log-writes && modprobe ext4 || die "modprobe loop, dm-log-writes, ext4"
export DM_DISABLE_UDEV=1
truncate -s 32M $W/data.img; truncate -s 768M $W/log.img
DATA=$(losetup -f --show $W/data.img) && LOG=$(losetup -f --show $W/log.img) || die "losetup"
# The file system as a card's data partition would have it: 4 KiB blocks, every inode table
# and the jbd2 journal written now, so nothing initialises itself in the background later.
mkfs.ext4 -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 $DATA || die "mkfs.ext4"
sync; cp $W/data.img $W/base.img
dmsetup create kplog --table "0 $(blockdev --getsz $DATA) log-writes $DATA $LOG" || die "dmsetup create log-writes"
# A mark in the record: NAME@UPTIME (dm-log-writes takes one word).
mark() { read t _ < /proc/uptime; dmsetup message kplog 0 mark "$1@$t"; }
SD=$W/sd
mkdir -p $SD && mount -o noatime /dev/mapper/kplog $SD || die "mount"
STATE=$SD/kioskpad
mark mounted

# ---- the door: GPIO keypad, the site server, events forwarded, replica synced -----------
door_config() { # door_config FILE STATE_DIR VERIFIER_URL CREDENTIALS_URL
    cat > $1 <<YAML
terminal_id: powercut-door
$(keypad_yaml keypad-sim)
verifier:
  kind: http
  url: $3
  timeout_s: 2
  secret_file: $W/site.secret
  offline:
    mode: fallback
    public_key: "$KEY"
    url: $4
    sync_s: ${SYNC_S:-5}
events:
  url: http://127.0.0.1:$PORT/v1/events
  secret_file: $W/site.secret
  heartbeat_s: ${HEARTBEAT_S:-10}
state_dir: $2
journal:
  max_bytes: ${JOURNAL_MAX_BYTES:-65536}
clock:
  trust: rtc
lockout:
  max_failures: 100
metrics:
  listen: "off"
YAML
    if [ -n "${MQTT_PORT:-}" ]; then printf 'mqtt:\n  url: mqtt://127.0.0.1:%s\n' "$MQTT_PORT" >> $1; fi
}
decisions() { grep -c 'attempt decided' $1; }
wait_count() { i=0; while [ "$(grep -c "$2" $1)" -le $3 ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done; [ "$(grep -c "$2" $1)" -gt $3 ]; }
