#!/usr/bin/env bash
# Builds KioskPad if needed and runs simulated mode: keyboard as keypad, terminal as
# display, built-in demo verifier (PIN 1234). Extra arguments go to `kioskpad simulate`.
# The build's own output (dependencies' warnings included) is shown only if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
[ -x .build/debug/kioskpad ] || echo "simulate: building kioskpad (the first build takes several minutes)..." >&2
log=$(mktemp)
# After scripts/test.sh, the same build as the tests' (a no-op): building only the product
# would compile the executable's module again without the tests' flags (about 20 s), and
# the next test run would compile it back.
build=(swift build --product kioskpad)
[ -e .build/debug/KioskPadPackageTests.xctest ] && build=(swift build --build-tests)
if ! "${build[@]}" > "$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "simulate: the build failed (above)" >&2
    exit 1
fi
rm -f "$log"
exec .build/debug/kioskpad simulate "$@"
