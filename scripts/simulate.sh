#!/usr/bin/env bash
# Builds KioskPad if needed and runs simulated mode: keyboard as keypad, terminal as
# display, built-in demo verifier (PIN 1234). Extra arguments go to `kioskpad simulate`.
# The build's own output (dependencies' warnings included) is shown only if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
[ -x .build/debug/kioskpad ] || echo "simulate: building kioskpad (the first build takes several minutes)..." >&2
# A binary newer than every source, Package.swift and Package.resolved is up to date: run it.
# (After scripts/test.sh, `swift build` would plan again and relink the tests, about 11 s here,
# with nothing changed.)
fresh() {
    [ -x .build/debug/kioskpad ] && [ -z "$(find Sources Package.swift Package.resolved -newer .build/debug/kioskpad -print -quit 2>/dev/null)" ]
}
if ! fresh; then
    log=$(mktemp)
    if ! swift build --product kioskpad > "$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "simulate: the build failed (above)" >&2
        exit 1
    fi
    rm -f "$log"
fi
# The door with a random hash seed, as in production (setup.sh fixes it for SwiftPM only).
exec env -u SWIFT_DETERMINISTIC_HASHING .build/debug/kioskpad simulate "$@"
