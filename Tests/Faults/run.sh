#!/usr/bin/env bash
# The network fault suite: doors, two site server instances, PostgreSQL and mosquitto, each in
# a network namespace of its own inside the hardware-in-loop guest (Tests/Guest/run.sh: a real
# kernel with veth, a bridge, tc netem and gpio-sim), faults put on their links with tc netem
# and taken off again. Nothing outside the guest is touched.
#
#   Tests/Faults/run.sh [--long] [--bin DIR]
#
# --bin DIR runs kioskpad and kioskpad-verifier from DIR (a copy, or a release build) instead
# of building them, so the tree may be rebuilt while a long run goes on.
#
# The default is the bounded set CI runs (a few minutes); --long makes each outage and each
# lossy phase several times longer (figures in docs/development.md, "The network fault
# suite"). The doors are `kioskpad run` with a virtual USB keypad (uinput) and their relays on
# a gpio-sim chip, watched from outside the door; the figures go to OUT/faults.txt and the
# table to the console. Needs Tests/Guest/setup.sh, postgresql and mosquitto (.ci/run installs
# them); exit status 0 only when every check passed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
long=0
bin=
while [ $# -gt 0 ]; do
    case $1 in
        --long) long=1; shift ;;
        --bin)
            [ $# -ge 2 ] && [ -x "$2/kioskpad" ] && [ -x "$2/kioskpad-verifier" ] || {
                echo "faults: --bin needs a directory holding kioskpad and kioskpad-verifier" >&2
                exit 2
            }
            bin=$(cd "$2" && pwd); shift 2 ;;
        *) echo "faults: unknown option '$1' (valid: --long, --bin DIR)" >&2; exit 2 ;;
    esac
done
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)
[ -x "$pg_bin/initdb" ] || { echo "faults: needs PostgreSQL's server (apt-get install postgresql)" >&2; exit 2; }
command -v mosquitto > /dev/null && command -v mosquitto_sub > /dev/null || {
    echo "faults: needs mosquitto and mosquitto-clients" >&2
    exit 2
}
cd "$repo"
if [ -z "$bin" ]; then
    swift build --product kioskpad >&2
    swift build --product kioskpad-verifier >&2
    bin=$(swift build --show-bin-path)
fi
out=$(mktemp -d /tmp/kioskpad-faults-out.XXXXXX)
chmod 755 "$out"
set +e
GUEST_MEM=${GUEST_MEM:-2G} GUEST_RWDIR=$out GUEST_TIMEOUT=${GUEST_TIMEOUT:-$((long ? 3600 : 1800))} \
    "$repo/Tests/Guest/run.sh" "FAULTS_LONG=$long FAULTS_RELAY_MS=${FAULTS_RELAY_MS:-50} PG_BIN='$pg_bin' bash '$repo/Tests/Faults/guest.sh' '$bin' '$out'" | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
echo "faults: results in $out (faults.txt, the doors' and servers' logs)" >&2
exit "$status"
