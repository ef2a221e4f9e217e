#!/usr/bin/env bash
# Builds KioskPad if needed and runs simulated mode: keyboard as keypad, terminal as
# display, built-in demo verifier (PIN 1234). Extra arguments go to `kioskpad simulate`.
# The build's own output (dependencies' warnings included) is shown only if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
[ -x .build/debug/kioskpad ] || echo "simulate: building kioskpad (the first build takes several minutes)..." >&2
log=$(mktemp)
if ! swift build --product kioskpad > "$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "simulate: the build failed (above)" >&2
    exit 1
fi
rm -f "$log"
exec .build/debug/kioskpad simulate "$@"
