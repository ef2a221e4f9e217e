#!/usr/bin/env bash
# Builds KioskPad if needed and runs simulated mode: keyboard as keypad, terminal as
# display, built-in demo verifier (PIN 1234). Extra arguments go to `kioskpad simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --product kioskpad >&2
exec .build/debug/kioskpad simulate "$@"
