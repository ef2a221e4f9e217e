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
# A run that has not ended after KIOSKPAD_TEST_LIMIT_S (default 40 minutes; the whole run takes
# about 10 here) is stopped, and the tests it started but never finished are named: a hang
# fails with its name, not with CI's own time limit.
limit=${KIOSKPAD_TEST_LIMIT_S:-2400}
out=$(mktemp /tmp/kioskpad-tests.XXXXXX.log)
status=0
timeout --kill-after=30 "$limit" env -u SWIFT_DETERMINISTIC_HASHING swift test --skip-build 2>&1 | tee "$out" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "test.sh: the tests had not ended after $limit s (KIOSKPAD_TEST_LIMIT_S); started and never finished:" >&2
    awk '/^◇ Test case /{ next }
         /^◇ Test run started\.$/ { next }
         /^◇ Test .* started\.$/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name] = 1; next }
         /^(✔|✘) Test / { name = $0; sub(/^(✔|✘) Test /, "", name); sub(/ with [0-9]+ test cases? (passed|failed) after .*$/, "", name); sub(/ (passed|failed) after .*$/, "", name); delete open[name] }
         END { for (name in open) print "test.sh:   " name }' "$out" >&2
fi
rm -f "$out"
exit "$status"
