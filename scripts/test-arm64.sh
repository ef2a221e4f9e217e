#!/usr/bin/env bash
# Runs KioskPad's tests as arm64 programs: the test bundle cross-built by
# `scripts/cross-arm64.sh --tests`, run inside the Debian trixie arm64 root under qemu-user
# (binfmt), with Debian's arm64 Swift runtime. Everything the tests start (kioskpad,
# kioskpad-verifier, mosquitto) is arm64 too.
#
#   scripts/test-arm64.sh           the suites that exercise what can differ on arm64 (CI):
#                                   the pure core, the HAL, the LCD driver, config, crypto and
#                                   signatures, the daemon (journal, relay, sd_notify), the
#                                   executors, libmosquitto loading and a real broker, the SQLite
#                                   store, and the command line end to end (simulate, door off)
#   scripts/test-arm64.sh --all     every suite but those that need what the trixie root lacks
#                                   (see `skipped` below)
#   --filter REGEX                  only these tests (Swift Testing's --filter)
#   --no-build                      use the bundle built before
#
# The closing line is Swift Testing's ("Test run with N tests ... passed").
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
filter='^(KeypadCoreTests|KeypadHALTests|KeypadDisplayTests|KioskPadConfigTests|KeypadVerifierTests|KioskPadDaemonTests|KioskPadExecutorsTests|KioskPadMQTTTests|KioskPadControllerTests|KioskPadCommandLineTests)\.|^KioskPadCLITests\.(SimulateCommandTests|SQLiteVerifierTests|DoorAndSetupCommandTests|VerifierForwardingTests|VerifierEndToEndTests|VerifierUserCommandTests)'
# Left out everywhere here: PostgreSQL (no server in the arm64 root; its SQL is the same on
# every CPU), Python's standardwebhooks interop (not packaged in Debian), and the console's
# QR codes read back with zbarimg.
skipped='PostgresVerifierTests|ConsoleInstancesTests|SignatureInteropTests|PostgreSQL|Postgres'
build=yes
while [ $# -gt 0 ]; do
    case $1 in
        --all) filter='.*'; shift ;;
        --filter) filter=${2:?--filter needs a regular expression}; shift 2 ;;
        --no-build) build=no; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "test-arm64.sh: unknown option '$1' (valid: --all, --filter REGEX, --no-build, --help)" >&2; exit 2 ;;
    esac
done
if [ "$build" = yes ]; then
    bin=$(scripts/cross-arm64.sh --tests | tail -1)
else
    source scripts/arm64/toolchain.sh
    bin=$repo/.build-arm64-debug/debug
fi
source scripts/arm64/toolchain.sh
bundle=$bin/KioskPadPackageTests.xctest
[ -x "$bundle" ] || { echo "test-arm64.sh: no $bundle (scripts/cross-arm64.sh --tests)" >&2; exit 1; }
runtime=$arm64_swift_runtime/usr/libexec/swift/lib/swift/linux
started=$SECONDS
# The repository sits at its own path inside the root: the tests find their files through
# #filePath and their programs beside the bundle.
set +e
in_root "$arm64_target_root" "$repo $arm64_swift_runtime tmpfs:/tmp tmpfs:/run" env LD_LIBRARY_PATH="$runtime" TMPDIR=/tmp \
    "$bundle" --testing-library swift-testing --filter "$filter" --skip "$skipped"
status=$?
set -e
echo "test-arm64: $(uname -m) host, arm64 bundle under qemu-user, $((SECONDS - started)) s, exit $status" >&2
exit $status
