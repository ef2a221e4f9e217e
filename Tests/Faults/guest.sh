#!/usr/bin/env bash
# Runs inside the hardware-in-loop guest as root (Tests/Faults/run.sh): builds a small site out
# of network namespaces on one bridge, puts faults on its links and checks what the doors,
# the site and Home Assistant's broker saw. Usage: guest.sh BIN_DIR OUT_DIR
#
#   siteA 10.88.0.1, siteB 10.88.0.2   `kioskpad-verifier serve`, one PostgreSQL between them
#   db    10.88.0.10                   PostgreSQL, the primary
#   db2   10.88.0.11                   its streaming-replication standby (synchronous), which
#                                      the last case promotes once the primary is killed
#   mq    10.88.0.20                   mosquitto (no persistence: retained state after its
#                                      restart is only what the doors publish again)
#   door1..door3 10.88.0.101-103       `kioskpad run`: a uinput keypad each, the relays on one
#                                      gpio-sim chip; door1 and door2 name both instances
#                                      (verifier.urls), door3 names site.test, which its
#                                      /etc/hosts points at siteA and later at siteB
# Faults are tc netem on both ends of a namespace's veth (loss, delay and jitter; loss 100%
# leaves TCP connections half-open) and stopped processes; FAULTS_LONG=1 stretches them.
set -u
BIN=$1; OUT=$2
REPO=$(cd "$(dirname "$0")/../.." && pwd)
KP=$BIN/kioskpad; SITE=$BIN/kioskpad-verifier
PG_BIN=${PG_BIN:?}
LONG=${FAULTS_LONG:-0}
CASES=()
# The relay check's bound: the goal is 50 ms; .ci/run passes a looser one for the emulator.
RELAY_MS=${FAULTS_RELAY_MS:-50}
W=/tmp/faults; rm -rf $W; mkdir -p $W; chmod 755 $W
passed=0; failed=0; NOT_CHECKED=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { if [ "$2" = "$3" ]; then pass "$1: $3"; else fail "$1: expected '$2', got '$3'"; fi; }
now() { cut -d' ' -f1 /proc/uptime; }
say() { echo "[$(now)] $*"; }
stretch() { [ "$LONG" = 1 ] && echo $(($1 * ${2:-5})) || echo $1; }

# gpio-sim is loaded by the guest's init; the rest comes from this kernel's modules.
for module in veth bridge sch_netem uinput evdev; do modprobe $module || { echo "FAIL modprobe $module"; exit 1; }; done

# ---- the network ------------------------------------------------------------------------
ip link add kpbr type bridge && ip addr add 10.88.0.254/24 dev kpbr && ip link set kpbr up
node() { # node NAME ADDRESS
    ip netns add $1
    ip link add v-$1 type veth peer name eth0 netns $1
    ip link set v-$1 master kpbr up
    ip -n $1 addr add $2/24 dev eth0
    ip -n $1 link set eth0 up
    ip -n $1 link set lo up
}
node siteA 10.88.0.1; node siteB 10.88.0.2; node db 10.88.0.10; node db2 10.88.0.11; node mq 10.88.0.20
for n in 1 2 3; do node door$n 10.88.0.10$n; done
# impair NAME NETEM...: the same netem on both directions of NAME's link; heal NAME takes it off.
impair() { local name=$1; shift; ip netns exec $name tc qdisc replace dev eth0 root netem "$@"; tc qdisc replace dev v-$name root netem "$@"; }
heal() { ip netns exec $1 tc qdisc del dev eth0 root 2> /dev/null; tc qdisc del dev v-$1 root 2> /dev/null; true; }
mkdir -p /etc/netns/door3
printf '127.0.0.1 localhost\n10.88.0.1 site.test\n' > /etc/netns/door3/hosts

# ---- PostgreSQL in db ----------------------------------------------------------------------
# The server's own directory (data, socket and log), owned by postgres.
PGRUN=$W/pgrun; PG=$PGRUN/data; mkdir -p $PGRUN; chown postgres $PGRUN
runuser -u postgres -- $PG_BIN/initdb -D $PG --auth-local=trust --auth-host=scram-sha-256 > $W/initdb.log 2>&1 || { cat $W/initdb.log; exit 1; }
cat >> $PG/postgresql.conf << CONF
listen_addresses = '10.88.0.10'
unix_socket_directories = '$PGRUN'
CONF
echo "host all all 10.88.0.0/24 scram-sha-256" >> $PG/pg_hba.conf
ip netns exec db runuser -u postgres -- $PG_BIN/pg_ctl -D $PG -l $PGRUN/log -w start > $W/pg_ctl.log 2>&1 || { cat $W/pg_ctl.log $PGRUN/log; exit 1; }
psql_su() { runuser -u postgres -- psql -h $PGRUN -Atq "$@"; }
psql_su -c "CREATE ROLE kioskpad LOGIN PASSWORD 'faults-db-password'" && psql_su -c "CREATE DATABASE kioskpad OWNER kioskpad"
# The standby, as docs/site-server.md's runbook makes one: a replication role, pg_basebackup -R,
# and synchronous commit to it, so that nothing a door was answered for is lost with the primary.
psql_su -c "CREATE ROLE replicator REPLICATION LOGIN PASSWORD 'faults-replication'"
echo "host replication replicator 10.88.0.0/24 scram-sha-256" >> $PG/pg_hba.conf
psql_su -c "ALTER SYSTEM SET synchronous_standby_names = 'kioskpad_standby'" && psql_su -c "SELECT pg_reload_conf()" > /dev/null
PGRUN2=$W/pgrun2; PG2=$PGRUN2/data; mkdir -p $PGRUN2; chown postgres $PGRUN2
ip netns exec db2 runuser -u postgres -- $PG_BIN/pg_basebackup -D $PG2 -R -X stream -c fast \
    -d "host=10.88.0.10 user=replicator password=faults-replication application_name=kioskpad_standby" > $W/basebackup.log 2>&1 || { cat $W/basebackup.log; exit 1; }
printf "listen_addresses = '10.88.0.11'\nunix_socket_directories = '$PGRUN2'\n" >> $PG2/postgresql.conf
ip netns exec db2 runuser -u postgres -- $PG_BIN/pg_ctl -D $PG2 -l $PGRUN2/log -w start > $W/pg_ctl2.log 2>&1 || { cat $W/pg_ctl2.log $PGRUN2/log; exit 1; }
i=0; until [ "$(psql_su -c "SELECT sync_state FROM pg_stat_replication")" = sync ] || [ $i -gt 100 ]; do sleep 0.2; i=$((i + 1)); done
say "PostgreSQL: primary and a synchronous standby ($(psql_su -c "SELECT sync_state FROM pg_stat_replication"))"
sql() { PGPASSWORD=faults-db-password psql "host=10.88.0.10,10.88.0.11 user=kioskpad dbname=kioskpad target_session_attrs=read-write connect_timeout=5" -Atq -c "$1"; }

# ---- the site: two instances on one database -------------------------------------------------
S=$W/site; mkdir -p $S
$SITE secret > $S/secret; chmod 600 $S/secret
head -c 48 /dev/urandom | base64 -w0 > $S/lookup.key; chmod 600 $S/lookup.key
printf 'faults-db-password' > $S/db.password; chmod 600 $S/db.password
site_config() { # site_config FILE ADDRESS
    cat > $1 << YAML
server:
  listen: $2:8787
  secret_file: $S/secret
  lookup_key_file: $S/lookup.key
  unlock_seconds: 3
  store: postgres
  postgres:
    url: postgres://kioskpad@10.88.0.10:5432,10.88.0.11:5432/kioskpad
    password_file: $S/db.password
    tls: disable
    allow_plaintext: true
    timeout_ms: 5000
YAML
}
site_config $S/a.yaml 10.88.0.1; site_config $S/b.yaml 10.88.0.2
$SITE migrate --config $S/a.yaml > $W/migrate.log 2>&1 || { cat $W/migrate.log; exit 1; }
printf '2468\n' | $SITE user add ana --iterations 1000 --config $S/a.yaml > /dev/null || exit 1
KEY=$($SITE public-key --config $S/a.yaml)
start_site() { # start_site a|b (again after a stop: the log is appended to)
    local ns=site$(echo $1 | tr ab AB) before
    before=$(grep -c 'listening on' $W/site-$1.log 2> /dev/null)
    ip netns exec $ns $SITE serve --config $S/$1.yaml --log-level warning >> $W/site-$1.log 2>&1 &
    eval "SITE_$1=$!"
    local i=0; while [ "$(grep -c 'listening on' $W/site-$1.log)" -le "${before:-0}" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
# stop_site a|b: SIGTERM, as systemd stops it. The site has 10 s to stop before it exits by its
# own stop deadline (it logs what was still running); one that outlives 30 s is a failure,
# its sockets are saved to $OUT/site-X-stuck.txt, and it is killed so the suite goes on.
FORCED_STOPS=0
stop_site() {
    local pid ns=site$(echo $1 | tr ab AB) i=0
    eval "pid=\$SITE_$1"
    kill $pid 2> /dev/null
    while kill -0 $pid 2> /dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $pid 2> /dev/null; then
        ip netns exec $ns ss -tanoi > $OUT/site-$1-stuck.txt 2>&1
        fail "$CASE: site $1 still running 30 s after SIGTERM (its sockets: site-$1-stuck.txt)"
        kill -9 $pid
    fi
    wait $pid 2> /dev/null
    if grep -q 'did not stop within' $W/site-$1.log; then
        FORCED_STOPS=$((FORCED_STOPS + 1))
        say "site $1 stopped by its own stop deadline: $(grep 'did not stop within' $W/site-$1.log | tail -1)"
        ip netns exec $ns ss -tanoi > $OUT/site-$1-forced.txt 2>&1
    fi
}
start_site a; start_site b

# ---- mosquitto in mq, and what Home Assistant would see ----------------------------------------
printf 'listener 1883 10.88.0.20\nallow_anonymous true\npersistence false\n' > $W/mosquitto.conf
start_broker() { ip netns exec mq mosquitto -c $W/mosquitto.conf >> $W/mosquitto.log 2>&1 & BROKER=$!; sleep 1; }
start_broker
# retained TOPIC...: the retained messages now, "TOPIC PAYLOAD" per line (3 s to collect them).
retained() { timeout 5 mosquitto_sub -h 10.88.0.20 -t 'kioskpad/+/status' -t 'kioskpad/+/lock' --retained-only -W 3 -v 2> /dev/null; true; }
# Every status message as it comes, for the last will's timing.
observe() { mosquitto_sub -h 10.88.0.20 -t 'kioskpad/+/status' -v -F '%U %t %p' >> $W/ha-status.log 2> /dev/null & OBSERVER=$!; }
observe

# ---- the doors --------------------------------------------------------------------------------
D=/sys/kernel/config/gpio-sim/faults
mkdir $D $D/bank0; echo 3 > $D/bank0/num_lines; echo fault-doors > $D/bank0/label
for n in 1 2 3; do mkdir $D/bank0/line$((n - 1)); echo RELAY$n > $D/bank0/line$((n - 1))/name; done
echo 1 > $D/live
DCHIP=$(cat $D/bank0/chip_name); DSIM=/sys/devices/platform/$(cat $D/dev_name)/$DCHIP
for i in $(seq 1 20); do [ -c /dev/$DCHIP ] && break; sleep 0.2; done
# The relays' watcher: "MONOTONIC_S DOOR VALUE" at every change, polled every 3 ms, at a
# real-time priority so that its readings are not late when the guest's CPUs are busy.
chrt -f 50 python3 - "$DSIM" > $W/relay.log << 'PY' &
import sys, time
paths = [f"{sys.argv[1]}/sim_gpio{n}/value" for n in range(3)]
last = [None] * 3
polled = time.monotonic()
while True:
    # "MONOTONIC_S stall MS": the watcher itself was not run for that long (the guest's CPUs
    # were taken from it), so a change seen just after may have happened that much earlier.
    now = time.monotonic()
    if now - polled > 0.02:
        print(f"{now:.4f} stall {(now - polled) * 1000:.0f}", flush=True)
    polled = now
    for n, path in enumerate(paths):
        with open(path) as f:
            value = f.read().strip()
        if value != last[n]:
            print(f"{time.monotonic():.4f} {n + 1} {value}", flush=True)
            last[n] = value
    time.sleep(0.003)
PY
WATCHER=$!
door_config() { # door_config N VERIFY_URLS EVENT_URLS
    cat > $W/door$1.yaml << YAML
terminal_id: door-$1
state_dir: $W/door$1
entry: {min_length: 4, max_length: 4, timeout_s: 30}
keypad: {driver: evdev, device: "name:KioskPad HIL fault$1"}
display: {driver: plain, columns: 16, rows: 2}
door:
  relay: {chip: fault-doors, line: RELAY$1}
  unlock_s: 3
  max_unlock_s: 10
lockout: {max_failures: 3, lockout_s: 20}
verifier:
  kind: http
  urls: [$2]
  allow_insecure_http: true
  timeout_s: 2
  secret_file: $S/secret
  offline: {mode: fallback, public_key: "$KEY", sync_s: 10}
events:
  urls: [$3]
  allow_insecure_http: true
  secret_file: $S/secret
  heartbeat_s: 30
mqtt: {url: "mqtt://10.88.0.20:1883", allow_insecure: true, keepalive_s: 5}
metrics: {listen: "off"}
YAML
}
BOTH_VERIFY="http://10.88.0.1:8787/verify, http://10.88.0.2:8787/verify"
BOTH_EVENTS="http://10.88.0.1:8787/v1/events, http://10.88.0.2:8787/v1/events"
door_config 1 "$BOTH_VERIFY" "$BOTH_EVENTS"
door_config 2 "$BOTH_VERIFY" "$BOTH_EVENTS"
door_config 3 "http://site.test:8787/verify" "http://site.test:8787/v1/events"
declare -A KBD
for n in 1 2 3; do
    rm -f $W/kbd$n.fifo; mkfifo $W/kbd$n.fifo
    python3 $REPO/Tests/HIL/uinput-keypad.py < $W/kbd$n.fifo > $W/kbd$n.log 2>&1 &
    exec {fd}> $W/kbd$n.fifo; KBD[$n]=$fd
    echo "create fault$n" >&${KBD[$n]}
done
sleep 2
for n in 1 2 3; do
    ip netns exec door$n $KP run --config $W/door$n.yaml --display plain > $W/door$n.out 2>&1 &
done
for n in 1 2 3; do
    i=0; while ! grep -q 'keypad ready' $W/door$n.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    grep -q 'keypad ready' $W/door$n.out || { fail "door $n did not start: $(tail -3 $W/door$n.out)"; }
done
# Each door's first replica: offline decisions need one.
for n in 1 2 3; do i=0; while [ ! -s $W/door$n/replica.json ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; done
say "site, broker and three doors up"

# ---- attempts and what they did --------------------------------------------------------------
attempts() { local count; count=$(grep -c '"type":"attempt"' $W/door$1/journal.jsonl 2> /dev/null); echo ${count:-0}; }
relay_ons() { awk -v d=$1 '$2 == d && $3 == 1' $W/relay.log | wc -l; }
CASE=''
STALLED=0
declare -A TYPED DECIDED LATE RELAY_ERR HA_ERR LOST ONLINE OFFLINE
begin() { CASE=$1; CASES+=("$1"); TYPED[$CASE]=0; DECIDED[$CASE]=0; LATE[$CASE]=0; RELAY_ERR[$CASE]=0; HA_ERR[$CASE]=0; LOST[$CASE]=-; ONLINE[$CASE]=0; OFFLINE[$CASE]=0; say "case: $CASE"; }
# type_at N PIN EXPECT: types PIN at door N; waits for its attempt record; EXPECT granted or
# denied. Gates on the decision the record has; counts it decided in time when its latency is
# within the deadline (2 s plus 1 s for the hash and the record), a figure for the table, not a
# gate: a time measured in the emulated guest beside nine other processes (one broker restart
# once took a door 3.5 s). For a grant, measures the relay's time against unlock 3 s.
type_at() {
    local n=$1 pin=$2 expect=$3 before ons record latency decision
    before=$(attempts $n); ons=$(relay_ons $n)
    TYPED[$CASE]=$((TYPED[$CASE] + 1))
    echo "type $pin" >&${KBD[$n]}
    local i=0; while [ $(attempts $n) -le $before ] && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    record=$(grep '"type":"attempt"' $W/door$n/journal.jsonl | tail -1)
    if [ $(attempts $n) -le $before ]; then fail "$CASE: door $n: no attempt record for a PIN"; return; fi
    decision=$(echo "$record" | sed -n 's/.*"decision":"\([a-z_]*\)".*/\1/p')
    latency=$(echo "$record" | sed -n 's/.*"latency_ms":\([0-9]*\).*/\1/p')
    case $record in *'"offline":true'*) OFFLINE[$CASE]=$((OFFLINE[$CASE] + 1)) ;; *) [ "$decision" = unavailable ] || ONLINE[$CASE]=$((ONLINE[$CASE] + 1)) ;; esac
    echo "$CASE door$n $decision ${latency}ms" >> $OUT/attempts.txt
    if [ "$decision" = "$expect" ]; then
        [ "${latency:-99999}" -le 3000 ] && DECIDED[$CASE]=$((DECIDED[$CASE] + 1))
        pass "$CASE: door $n: $decision in ${latency:-?} ms$(case $record in *'"offline":true'*) echo ' (offline)' ;; esac)"
    else
        fail "$CASE: door $n: expected $expect, got '$decision' in ${latency:-?} ms"
    fi
    [ "${latency:-0}" -gt "${LATE[$CASE]}" ] && LATE[$CASE]=$latency
    if [ "$expect" = granted ]; then
        i=0; while [ $(awk -v d=$n -v k=$ons '$2 == d { if ($3 == 1) on++; if ($3 == 0 && on > k) { print; exit } }' $W/relay.log | wc -l) -eq 0 ] && [ $i -lt 80 ]; do sleep 0.1; i=$((i + 1)); done
        local held t_on t_off stall
        read -r t_on t_off held <<< "$(awk -v d=$n -v k=$ons '$2 == d { if ($3 == 1) { on++; if (on == k + 1) t = $1 } if ($3 == 0 && on == k + 1 && t) { printf "%s %s %d", t, $1, ($1 - t) * 1000; exit } }' $W/relay.log)"
        if [ -z "$held" ]; then fail "$CASE: door $n: the relay did not pulse on a grant"; return; fi
        local error=$((held > 3000 ? held - 3000 : 3000 - held))
        echo "$CASE door$n relay ${held}ms" >> $OUT/relay.txt
        [ $error -gt "${RELAY_ERR[$CASE]}" ] && RELAY_ERR[$CASE]=$error
        if [ $error -gt $RELAY_MS ]; then
            # A stall of the watcher itself that ended just as it saw the relay off (the guest
            # did not run it): the off edge may have come that much earlier than it was seen.
            stall=$(awk -v e=$t_off '$2 == "stall" && $1 >= e - 0.02 && $1 <= e && $3 > m { m = $3 } END { print m + 0 }' $W/relay.log)
            if [ $((error - RELAY_MS)) -le "$stall" ]; then
                STALLED=$((STALLED + 1))
                echo "$CASE door$n relay ${held}ms, the watcher itself stalled ${stall} ms in that pulse" >> $OUT/relay-stalls.txt
                pass "$CASE: door $n: relay held ${held} ms for 3 s while the guest stalled the (real-time) watcher ${stall} ms: not the door's error"
            else
                # The door logs a pulse it ended late by its own clock (after the write).
                local own
                own=$(grep -o 'door relay went off late.*late_ms=[0-9]*' $W/door$n.out | tail -1 | grep -o 'late_ms=[0-9]*')
                fail "$CASE: door $n: relay held ${held} ms for unlock 3 s, over the ${RELAY_MS} ms bound (the watcher stalled at most ${stall} ms; the door's last late pulse: ${own:-none logged})"
            fi
        fi
    else
        sleep 0.5
        [ "$(relay_ons $n)" = "$ons" ] || fail "$CASE: door $n: the relay went on for a $decision"
    fi
    sleep 3.3  # the relay's pulse and the display's result pass before the next PIN
}
# ha_check WHAT: every door's retained availability online and lock LOCKED, within 20 s.
ha_check() {
    local i=0 seen
    while [ $i -lt 10 ]; do
        seen=$(retained)
        local missing=0
        for n in 1 2 3; do
            echo "$seen" | grep -qx "kioskpad/door-$n/status online" || missing=$((missing + 1))
            echo "$seen" | grep -qx "kioskpad/door-$n/lock LOCKED" || missing=$((missing + 1))
        done
        [ $missing = 0 ] && { pass "$CASE: Home Assistant's retained state after $1: every door online and LOCKED"; return; }
        i=$((i + 1)); sleep 1
    done
    HA_ERR[$CASE]=$missing
    fail "$CASE: Home Assistant's retained state after $1: $(echo $seen | tr '\n' ' ')"
}
# delivered: every door's attempt records stored at the site once each and in the door's order,
# within 90 s; sets LOST[$CASE] (records missing plus records doubled) and DELIVERY (s).
delivered() {
    local started=$(now) n i bad=0
    for n in 1 2 3; do
        grep '"type":"attempt"' $W/door$n/journal.jsonl | sed -n 's/.*"attempt_id":"\([^"]*\)".*/\1/p' > $W/door$n.ids
        # 90 s of wall time for the three doors together, however long each query takes in the
        # emulated guest (counted in tries, one run here outlasted the guest's time limit).
        while :; do
            sql "SELECT record->>'attempt_id' FROM kioskpad_events WHERE terminal_id = 'door-$n' AND type = 'attempt' ORDER BY at, seq" > $W/site$n.ids 2> $W/site$n.err
            cmp -s $W/door$n.ids $W/site$n.ids && break
            awk -v a=$started -v b=$(now) 'BEGIN { exit !(b - a > 90) }' && break
            sleep 0.5
        done
        if ! cmp -s $W/door$n.ids $W/site$n.ids; then
            local missing doubled
            missing=$(sort -u $W/door$n.ids | comm -23 - <(sort -u $W/site$n.ids) | wc -l)
            doubled=$(($(wc -l < $W/site$n.ids) - $(sort -u $W/site$n.ids | wc -l)))
            bad=$((bad + missing + doubled))
            fail "$CASE: door $n: the site has $(wc -l < $W/site$n.ids) attempt records, the door $(wc -l < $W/door$n.ids) ($missing missing, $doubled doubled, or out of order) after 90 s$(test -s $W/site$n.err && echo "; the last query said: $(tail -1 $W/site$n.err)")"
        fi
    done
    LOST[$CASE]=$bad
    [ $bad = 0 ] && pass "$CASE: every door's attempt records at the site, once each, in order"
    DELIVERY=$(awk -v a=$started -v b=$(now) 'BEGIN { printf "%.1f", b - a }')
}

# ---- the cases ----------------------------------------------------------------------------------
begin baseline
for n in 1 2 3; do type_at $n 2468 granted; done
ha_check "start"
delivered
echo "baseline_delivery_s=$DELIVERY" >> $OUT/faults.txt

begin "instance A half-open"
impair siteA loss 100%
# The first attempt at doors 1 and 2 spends half its deadline on siteA; the next goes to siteB
# first (the health memory). door3 knows only site.test (siteA now): it decides from its replica.
for n in 1 2; do type_at $n 2468 granted; type_at $n 2468 granted; done
type_at 3 2468 granted
heal siteA
delivered
echo "half_open_delivery_s=$DELIVERY" >> $OUT/faults.txt

# holds_by N VERSION START LIMIT_S: seconds from START until door N holds replica VERSION or
# later (its replica-highest), printed; nothing when LIMIT_S passed first.
holds_by() {
    local n=$1 version=$2 start=$3 limit=$4 held
    while :; do
        held=$(cat $W/door$n/replica-highest 2> /dev/null)
        [ "${held:-0}" -ge "$version" ] && { awk -v a=$start -v b=$(now) 'BEGIN { printf "%.2f", b - a }'; return; }
        awk -v a=$start -v b=$(now) -v l=$limit 'BEGIN { exit !(b - a > l) }' && return
        sleep 0.05
    done
}
# caught_up WHAT START LIMIT_S DOOR...: each door holds the site's replica version now within
# LIMIT_S of START (the table's "Caught up" column, and the seconds in faults.txt).
declare -A CAUGHT
caught_up() {
    local what=$1 start=$2 limit=$3 version n took; shift 3
    version=$(sql "SELECT version FROM kioskpad_replica WHERE id = 1")
    for n in "$@"; do
        took=$(holds_by $n $version $start $limit)
        if [ -n "$took" ]; then
            pass "$CASE: door $n holds replica $version ${took} s after $what"
            echo "changes_door${n}_$(echo "$what" | tr -c 'a-z0-9\n' _)s=$took" >> $OUT/faults.txt
            CAUGHT[$CASE]="${CAUGHT[$CASE]:+${CAUGHT[$CASE]}, }${took} s"
        else
            fail "$CASE: door $n does not hold replica $version ${limit} s after $what (it holds $(cat $W/door$n/replica-highest 2> /dev/null))"
        fi
    done
}

# Changes at the site reach the doors' replicas through the push channel's faults, each checked
# by an offline decision from the replica the door then holds (its link cut: the door decides
# alone). The channel's goal is a second; the limits here are the poll's (sync_s 10, plus a
# fifth, plus a fetch in the emulated guest), so that what is gated is that the change arrived.
# Behind a half-open instance it is slower: a fetch waits on that address before it asks the
# next (its whole 30 s in the first run here: 20.2 s, and over 20 s; now its share, 15 s). The
# bound there is 60 s: a poll just after the change (12 s) plus a whole 30 s, with room.
begin "changes through a half-open channel, a partition, a killed instance"
# A half-open channel: instance A drops everything, the channels held there hang; cy is added
# through B and reaches doors 1 and 2 (door 3 knows only A: it catches up once A is healed).
impair siteA loss 100%
changed=$(now)
printf '1357\n' | $SITE user add cy --iterations 1000 --config $S/b.yaml > /dev/null
caught_up "cy was added through B, A half-open" $changed 60 1 2
heal siteA; healed=$(now)
caught_up "A was healed" $healed 30 3
impair door1 loss 100%
type_at 1 1357 granted
heal door1
# A partition healed after a change: door 2 cut off while cy is disabled; healed, it catches up,
# and cut off again it refuses cy from its replica alone.
impair door2 loss 100%
$SITE user disable cy --config $S/b.yaml > /dev/null
sleep $(stretch 3 4)
heal door2; healed=$(now)
caught_up "door 2's partition healed" $healed 30 2
impair door2 loss 100%
type_at 2 1357 denied
heal door2
# An instance killed while it holds channels: kill -9 A, cy enabled through B; doors 1 and 2
# follow on B; A started again, door 3 catches up, and cut off it lets cy in from its replica.
kill -9 $SITE_a 2> /dev/null; wait $SITE_a 2> /dev/null
killed=$(now)
$SITE user enable cy --config $S/b.yaml > /dev/null
caught_up "A was killed and cy enabled" $killed 20 1 2
start_site a; started=$(now)
caught_up "A was started again" $started 30 3
impair door3 loss 100%
type_at 3 1357 granted
heal door3
delivered

begin "30% loss, 0-500 ms jitter"
for n in 1 2; do impair door$n loss 30% delay 250ms 250ms; done
for round in $(seq 1 $(stretch 2 3)); do
    for n in 1 2; do type_at $n 2468 granted; type_at $n 1111 denied; done
done
for n in 1 2; do heal door$n; done
ha_check "the lossy phase"
delivered
echo "lossy_delivery_s=$DELIVERY" >> $OUT/faults.txt

OUTAGE=$(stretch 60 5)
begin "site unreachable ${OUTAGE} s"
impair siteA loss 100%; impair siteB loss 100%
outage_start=$(now)
for n in 1 2 3; do type_at $n 2468 granted; done
# Lockout as configured, offline: three wrong PINs lock door 2; its right PIN is then not decided.
type_at 2 1111 denied; type_at 2 2222 denied; type_at 2 3333 denied
if grep -q '"type":"lockout"' $W/door2/journal.jsonl; then pass "$CASE: three offline denials locked door 2 out"; else fail "$CASE: door 2 not locked out after three denials"; fi
left=$(awk -v s=$outage_start -v n=$(now) -v o=$OUTAGE 'BEGIN { l = o - (n - s); print (l > 0 ? int(l) : 0) }')
sleep $left
heal siteA; heal siteB
ha_check "the outage"
delivered
echo "outage_s=$OUTAGE" >> $OUT/faults.txt
echo "outage_delivery_s=$DELIVERY" >> $OUT/faults.txt

begin "door 1 cut off"
mark=$(wc -l < $W/ha-status.log)
impair door1 loss 100%
cut_at=$(date +%s.%N)
type_at 1 2468 granted
i=0; while ! tail -n +$((mark + 1)) $W/ha-status.log | grep -q 'kioskpad/door-1/status offline' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
will=$(tail -n +$((mark + 1)) $W/ha-status.log | awk '$2 == "kioskpad/door-1/status" && $3 == "offline" { print $1; exit }')
if [ -n "$will" ]; then
    pass "$CASE: the broker gave door-1's last will (offline) $(awk -v a=$cut_at -v b=$will 'BEGIN { printf "%.1f", b - a }') s after the cut (keepalive 5 s)"
    echo "last_will_s=$(awk -v a=$cut_at -v b=$will 'BEGIN { printf "%.1f", b - a }')" >> $OUT/faults.txt
else
    HA_ERR[$CASE]=1; fail "$CASE: no offline for door-1 within 30 s of the cut"
fi
sleep $(stretch 5 6)
heal door1
ha_check "door 1 came back"
delivered

begin "broker restarted"
kill $BROKER; wait $BROKER 2> /dev/null
for n in 1 2 3; do type_at $n 2468 granted; done
start_broker
kill $OBSERVER 2> /dev/null; observe
ha_check "the broker's restart (no persistence)"
delivered

begin "site address changed"
printf '127.0.0.1 localhost\n10.88.0.2 site.test\n' > /etc/netns/door3/hosts  # in place: the door's bind mount sees it
stop_site a
for n in 1 2 3; do type_at $n 2468 granted; done
# Online through the new address within three more attempts: one can still go offline when
# instance B, alone now in the emulated guest, answers past the door's 2 s deadline (seen once
# in CI-like runs here); three offline in a row means the door did not follow the address.
online=''
for try in 1 2 3; do
    type_at 3 2468 granted
    last=$(grep '"type":"attempt"' $W/door3/journal.jsonl | tail -1)
    case $last in *'"offline":true'*) ;; *) online=$try; break ;; esac
done
if [ -n "$online" ]; then pass "$CASE: door 3 decided online through the new address (attempt $online after the move)"
else fail "$CASE: door 3 still decides offline after site.test moved to siteB (3 attempts)"; fi
delivered
start_site a

PROMOTE_AFTER=$(stretch 10 6)
begin "primary lost, standby promoted after ${PROMOTE_AFTER} s"
# Before: a code used once, a code not used, and two online denials in door 2's site lockout.
CODE1=$($SITE code issue --user ana --ttl 60m --config $S/b.yaml | grep -x '[0-9]*' | head -1)
CODE2=$($SITE code issue --user ana --ttl 60m --config $S/b.yaml | grep -x '[0-9]*' | head -1)
# The code door waits 15 s for an answer, not the PIN doors' 2: a code is never decided
# offline, and the case checks what the site decided about it, not how fast. Under emulation
# a code took longer than 4 s (the deadline before) ten times in a row in one run here, with
# the site up, so the code was never used and the case failed on time alone.
cat > $W/door-c.yaml << YAML
terminal_id: door-c
entry: {mode: code, min_length: ${#CODE1}, max_length: ${#CODE1}}
verifier:
  kind: http
  urls: [$BOTH_VERIFY]
  allow_insecure_http: true
  timeout_s: 15
  secret_file: $S/secret
YAML
code_at() { ip netns exec door1 $KP simulate --config $W/door-c.yaml --display plain <<< "$1" 2>> $W/door-c.err | grep -oE 'Access granted|Access denied|Verifier unavailable' | tail -1; }
# A code is never decided offline: "Verifier unavailable" uses nothing up, so it is asked again.
# It prints the answer, and "(after N unavailable)" when it had to ask again.
code_decided() {
    local answer i=0
    while [ $i -lt 10 ]; do answer=$(code_at $1); [ "$answer" != "Verifier unavailable" ] && [ -n "$answer" ] && break; i=$((i + 1)); sleep 1; done
    if [ $i -gt 0 ]; then echo "$answer (after $i unavailable)"; else echo "$answer"; fi
}
# Before the failover the code must be used up. Under emulation the first try may be decided by
# an instance whose answer comes too late: the code is then used, and asked again it is refused.
before=$(code_decided $CODE1)
case $before in
    "Access granted"*) pass "$CASE: a one-time code used before the failover: $before" ;;
    "Access denied (after "*) pass "$CASE: a one-time code used before the failover, its answer too late for the door: $before" ;;
    *) fail "$CASE: a one-time code before the failover: $before" ;;
esac
type_at 2 1111 denied; type_at 2 2222 denied
# The site counts only the denials it decided: when both were decided offline (the site past
# door 2's 2 s deadline, as under a slow guest) there is no count to carry over, and the check
# below says so instead of failing on a time.
door2_online_denials=$(grep '"type":"attempt"' $W/door2/journal.jsonl | tail -2 | grep -vc '"offline":true')
streak_before=$($SITE lockout list --config $S/b.yaml | grep '^door-2 ')
primary_pid=$(head -1 $PG/postmaster.pid)
kill -9 $primary_pid
killed=$(now)
say "PostgreSQL primary killed (kill -9 $primary_pid)"
# Doors 1 and 3 keep being used; PROMOTE_AFTER seconds after the kill the standby is promoted,
# as the runbook says (steps 2 and 3), in the background.
( sleep $PROMOTE_AFTER
  ip netns exec db2 runuser -u postgres -- $PG_BIN/pg_ctl -D $PG2 -w promote > /dev/null
  runuser -u postgres -- psql -h $PGRUN2 -Atq -c "ALTER SYSTEM SET synchronous_standby_names = ''" -c "SELECT pg_reload_conf()" > /dev/null
  now > $W/promoted ) &
first_online=''
while [ -z "$first_online" ]; do
    for n in 1 3; do
        typed=$(now)
        type_at $n 2468 granted
        last=$(grep '"type":"attempt"' $W/door$n/journal.jsonl | tail -1)
        latency=$(echo "$last" | sed -n 's/.*"latency_ms":\([0-9]*\).*/\1/p')
        case $last in
            *'"offline":true'*) ;;
            *) [ -s $W/promoted ] && [ -z "$first_online" ] && first_online=$(awk -v t=$typed -v l=${latency:-0} 'BEGIN { printf "%.1f", t + l / 1000 }') ;;
        esac
    done
    awk -v k=$killed -v n=$(now) 'BEGIN { exit !(n - k > 300) }' && { fail "$CASE: no online decision 300 s after the primary was lost"; break; }
done
promoted=$(cat $W/promoted 2> /dev/null)
if [ -n "$first_online" ]; then
    gap=$(awk -v k=$killed -v o=$first_online 'BEGIN { printf "%.1f", o - k }')
    after=$(awk -v p=$promoted -v o=$first_online 'BEGIN { printf "%.1f", o - p }')
    pass "$CASE: the first online decision came ${gap} s after the primary was lost, at most ${after} s after the promotion (doors decided offline meanwhile)"
    echo "failover_promote_after_s=$PROMOTE_AFTER" >> $OUT/faults.txt
    echo "failover_online_again_s=$gap" >> $OUT/faults.txt
    echo "failover_first_online_after_promote_s=$after" >> $OUT/faults.txt
fi
unavailable=$(grep -h '"type":"attempt"' $W/door?/journal.jsonl | grep -c '"decision":"unavailable"')
[ "$unavailable" = 0 ] && pass "$CASE: no attempt at a PIN door was left 'Verifier unavailable'" || fail "$CASE: $unavailable attempts 'Verifier unavailable'"
check "$CASE: the code used before the failover, after it" "Access denied" "$(code_decided $CODE1 | sed 's/ (after .*//')"
# The unused code: granted. If the door's tries went unanswered in time and the next was refused,
# the site must show the code used once since (its grant came too late for the door, as above);
# a refusal with the code still unused at the site fails.
used_codes() { sql "SELECT count(*) FROM kioskpad_codes WHERE user_name = 'ana' AND used_at IS NOT NULL"; }
used_before=$(used_codes)
after=$(code_decided $CODE2)
used_after=$(used_codes)
case $after in
    "Access granted"*) pass "$CASE: an unused code, after the failover: $after" ;;
    "Access denied (after "*)
        if [ "$used_after" = $((used_before + 1)) ]; then
            pass "$CASE: an unused code, after the failover, used by the site with its answer too late for the door: $after"
        else
            fail "$CASE: an unused code, after the failover: $after, and the site used $((used_after - used_before)) codes meanwhile (1 expected)"
        fi ;;
    *) fail "$CASE: an unused code, after the failover: expected 'Access granted', got '$after' (codes used at the site: $used_before before, $used_after after)" ;;
esac
check "$CASE: that code, again" "Access denied" "$(code_decided $CODE2 | sed 's/ (after .*//')"
streak_after=$($SITE lockout list --config $S/b.yaml | grep '^door-2 ')
if [ "$door2_online_denials" = 0 ]; then
    echo "NOT CHECKED $CASE: door 2's site lockout count: both denials before the failover were decided offline, so the site counted none (before: '$streak_before', after: '$streak_after')"
    NOT_CHECKED=$((NOT_CHECKED + 1))
elif [ -n "$streak_before" ] && [ "$(echo "$streak_before" | sed 's/locked until [^,]*, //')" = "$(echo "$streak_after" | sed 's/locked until [^,]*, //')" ]; then
    pass "$CASE: door 2's site lockout count kept ($streak_after)"
else
    fail "$CASE: door 2's site lockout count before '$streak_before', after '$streak_after'"
fi
delivered

# ---- the table -------------------------------------------------------------------------------
{
    echo "| Case | Attempts | Decided in time | Online / offline | Slowest (ms) | Records lost or doubled | Relay error (ms, max) | HA state errors | Replicas caught up after |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for c in "${CASES[@]}"; do
        echo "| $c | ${TYPED[$c]} | ${DECIDED[$c]} | ${ONLINE[$c]} / ${OFFLINE[$c]} | ${LATE[$c]} | ${LOST[$c]} | ${RELAY_ERR[$c]} | ${HA_ERR[$c]} | ${CAUGHT[$c]:--} |"
    done
} | tee $OUT/table.md
echo "faults: relay pulses longer than 3 s + 50 ms while the guest stalled the watcher as long: $STALLED"
echo "faults: pulses the doors themselves ended over 20 ms late: $(cat $W/door?.out | grep -c 'door relay went off late')"
echo "faults: site instances that ended by their own stop deadline after SIGTERM: $FORCED_STOPS"
if cat $W/door?.out $W/site-?.log $W/ha-status.log | sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}//g' | grep -Eq '(^|[^0-9])(2468|1111|2222|3333|1357)([^0-9]|$)'; then
    fail "a PIN appears in a door's output, the site's log or the broker's messages"
else
    pass "no PIN in the doors' output, the site's logs or the broker's messages"
fi
cp $W/door?.out $W/site-?.log $W/relay.log $W/ha-status.log $W/mosquitto.log $OUT/ 2> /dev/null
for n in 1 2 3; do cp $W/door$n/journal.jsonl $OUT/journal-door$n.jsonl 2> /dev/null; done
echo "faults: checks not made because the guest was too slow for them: $NOT_CHECKED"
echo "faults: $passed passed, $failed failed"
[ $failed = 0 ]
