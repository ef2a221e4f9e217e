#!/usr/bin/env bash
# Builds KioskPad and runs every unit and end-to-end test (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --build-tests
swift test
