#!/usr/bin/env bash
# Webhooks out, end to end (docs/api.md, "Webhooks"): a real `kioskpad verifier serve` on
# loopback (SQLite) and three receivers built on PyPI's standardwebhooks (Tests/Webhooks/
# webhooks_e2e.py): one that verifies every delivery, one that fails then recovers, one that
# hangs. Subscriptions are made through the management API; events come from a door's signed
# /v1/events and /verify, from the API and from the command line; then the site is killed with
# SIGKILL while deliveries are queued and one is in flight, and started again.
#
#   Tests/Webhooks/run.sh [--binary PATH]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=$repo/.build/debug/kioskpad
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        *) echo "webhooks: unknown option '$1' (valid: --binary PATH)" >&2; exit 2 ;;
    esac
done
[ -x "$binary" ] || { echo "webhooks: no $binary (swift build --product kioskpad, and kioskpad-verifier)" >&2; exit 2; }
if ! python3 -c 'import standardwebhooks, requests' 2>/dev/null; then
    echo "webhooks: installing standardwebhooks and requests (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check standardwebhooks requests >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages standardwebhooks requests >&2
fi
exec python3 "$repo/Tests/Webhooks/webhooks_e2e.py" --binary "$binary" --users "$repo/config/users.example"
