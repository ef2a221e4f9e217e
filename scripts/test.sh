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
swift build --build-tests
# The Home Assistant suites (a real mosquitto per test) run on their own, after the rest: in
# one `swift test` beside them, 17 to 43 tests of other suites time out on a 2-core machine
# (PostgreSQL queries: "the database did not answer within 10 s"; HTTP deadlines). The cause
# is not found yet (the machine's state after many runs may play a part); each part passed on
# its own in a fresh-clone CI run.
mqtt_suites='KioskPadMQTTTests|HomeAssistantEndToEndTests'
swift test --skip-build --skip "$mqtt_suites"
swift test --skip-build --filter "$mqtt_suites"
