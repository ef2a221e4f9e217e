#!/usr/bin/env bash
# Builds KioskPad and runs every unit and end-to-end test (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The reference verifier's PostgreSQL tests start servers of their own (initdb into a
# temporary directory, a loopback port); they need the server programs, not a running one.
apt_install_missing postgresql
# The console draws TOTP QR codes with libqrencode (loaded at run time); zbarimg reads them back.
apt_install_missing libqrencode4 zbar-tools
# The MQTT tests run a real broker on loopback (mosquitto) and watch it with mosquitto_sub.
apt_install_missing mosquitto mosquitto-clients
# The OSDP tests join the door to libosdp's reader with a pseudo-terminal pair that socat makes.
apt_install_missing socat
swift build --build-tests
# One run of every test. Tests that start real servers or child processes, or hold a time
# limit, are marked `.heavy` and run a few at a time (Tests/Support/HeavyTestLimit.swift).
# Random hash seeds in the tests, as in production (setup.sh fixes it for the build only).
env -u SWIFT_DETERMINISTIC_HASHING swift test --skip-build
