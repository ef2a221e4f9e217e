#!/usr/bin/env bash
# The site killed mid-change (issue 79): Tests/Crash/kill_test.py on SQLite and on PostgreSQL,
# each with a real `kioskpad verifier serve` on loopback killed with SIGKILL --kills times while
# four API clients create users; then no change may be found without its audit record, webhook
# message and change-log entry, nor a record without its change. CI runs 8 kills per store;
# the long variant (docs/development.md) is --kills 200.
#
#   Tests/Crash/run.sh [--binary PATH] [--kills N] [--seed N]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=$repo/.build/debug/kioskpad
options=()
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --kills) options+=(--kills "${2:?--kills needs a number}"); shift 2 ;;
        --seed) options+=(--seed "${2:?--seed needs a number}"); shift 2 ;;
        *) echo "kill-test: unknown option '$1' (valid: --binary PATH, --kills N, --seed N)" >&2; exit 2 ;;
    esac
done
[ -x "$binary" ] || { echo "kill-test: no $binary (swift build --product kioskpad, and kioskpad-verifier)" >&2; exit 2; }
source "$repo/scripts/apt-install-missing.sh"
apt_install_missing postgresql
if ! python3 -c 'import standardwebhooks, requests' 2>/dev/null; then
    echo "kill-test: installing standardwebhooks and requests (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check standardwebhooks requests >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages standardwebhooks requests >&2
fi
status=0
for store in sqlite postgres; do
    python3 "$repo/Tests/Crash/kill_test.py" "$binary" --store "$store" "${options[@]}" || status=1
done
exit $status
