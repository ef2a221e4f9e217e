#!/bin/sh
# Inside the arm64 guest (Tests/arm64/hil.sh): how often an idle door wakes. Runs
# `kioskpad simulate` with the journal and metrics on, types a grant and a denial, waits for
# every timer of that use to fall due, then counts the context switches of all its threads
# in 10 s (as IdleWakeupsTests does on amd64). Prints "idle-wakeups: N in 10 s (thread:count ...)".
#   Tests/arm64/idle-wakeups.sh BINARY USERS_FILE
set -u
KP=$1; USERS=$2
W=$(mktemp -d)
cat > $W/door.yaml <<YAML
state_dir: $W/state
metrics:
  listen: 127.0.0.1:0
entry:
  result_s: 1
  timeout_s: 2
verifier:
  kind: local
  users_file: $USERS
YAML
mkfifo $W/keys
$KP simulate --config $W/door.yaml --display plain --log-level notice < $W/keys > $W/out 2>&1 &
pid=$!
exec 3> $W/keys
sleep 3
printf '12349876' >&3
i=0; while [ "$(grep -c 'Access' $W/out)" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 8
# switches: "tid name count" for every thread of the process
switches() {
    for t in /proc/$pid/task/*; do
        printf '%s %s %s\n' "${t##*/}" "$(cat $t/comm)" \
            "$(awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n }' $t/status)"
    done
}
switches > $W/before
sleep 10
switches > $W/after
exec 3>&-
kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null
# A thread that started counts from 0; one that ended counts once (its exit).
awk 'NR == FNR { before[$1] = $3; name[$1] = $2; next }
     { d = $3 - ($1 in before ? before[$1] : 0); seen[$1] = 1; if (d > 0) { total += d; list = list " " $2 ":" d } }
     END { for (t in before) if (!(t in seen)) { total++; list = list " " name[t] ":ended" }
           printf "idle-wakeups: %d in 10 s (%s)\n", total, (list == "" ? "none" : substr(list, 2)) }' $W/before $W/after
grep -q 'Access granted' $W/out || echo "idle-wakeups: the door did not grant the PIN typed: $(tail -3 $W/out)"
rm -rf $W
