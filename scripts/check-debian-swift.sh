#!/usr/bin/env bash
# Debian's own Swift (sid's `swiftlang`, 6.2.3 as of this writing: the compiler of every arm64
# package) builds every module of KioskPad and its tests, for arm64 in debug: what it refuses
# that the amd64 toolchain (6.3.1) accepts (an expression it gives up type-checking, a language
# feature or SPI it lacks) fails here, in CI, not at release time.
#
#   scripts/check-debian-swift.sh            run it when this machine's arm64 cache is warm
#                                            (the toolchain, runtime, trixie root and a debug
#                                            scratch folder that holds the dependencies: then
#                                            only the project's own modules compile); say
#                                            plainly that it skipped otherwise, and exit 0
#   scripts/check-debian-swift.sh --cold     build all the same (a cold machine: the set-up
#                                            and every dependency first, 30 min or more)
#
# A build that fails on the project's own sources fails the check, naming them; one that fails
# elsewhere (a scratch folder left broken) is tried once more from nothing. The last line says
# what was checked, with the compiler's version and the time, or why nothing was.
set -euo pipefail
cd "$(dirname "$0")/.."
cold=no
case ${1:-} in
    --cold) cold=yes ;;
    "") ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-debian-swift.sh: unknown option '$1' (valid: --cold, --help)" >&2; exit 2 ;;
esac
source scripts/arm64/toolchain.sh

warm_problem() {
    [ -f "$arm64_toolchain_root/.kioskpad-ready" ] || { echo "no toolchain root in $arm64_toolchain_root"; return; }
    [ -f "$arm64_target_root/.kioskpad-ready" ] || { echo "no trixie arm64 root in $arm64_target_root"; return; }
    [ -f "$arm64_swift_runtime/.version" ] || { echo "no arm64 Swift runtime in $arm64_swift_runtime"; return; }
    local scratch
    scratch=$(arm64_scratch debug)
    # A debug scratch folder whose dependencies were built (SwiftNIO's core is one of them).
    compgen -G "$scratch/aarch64-unknown-linux-gnu/debug/NIOCore.build/*.o" > /dev/null \
        || { echo "no built debug scratch folder in $scratch"; return; }
}

problem=$(warm_problem)
if [ -n "$problem" ] && [ "$cold" = no ]; then
    echo "debian-swift: skipped: the arm64 cache is cold on this machine ($problem); scripts/cross-arm64.sh --tests warms it (30 min or more), or run this with --cold"
    exit 0
fi
log=$(mktemp /tmp/kioskpad-debian-swift.XXXXXX.log)
started=$SECONDS
build() { bash scripts/cross-arm64.sh --tests "$@" > /dev/null 2> "$log"; }
if ! build; then
    # The clone is at /src/kioskpad inside the toolchain root.
    if grep -E "^/src/kioskpad/(Sources|Tests|Plugins|Package\.swift).*error:" "$log" | sort -u | sed 's/^/debian-swift: /'; then
        echo "debian-swift: Debian's swiftlang refused the sources above (log: $log)" >&2
        exit 1
    fi
    tail -20 "$log"
    echo "debian-swift: the build failed outside the project's sources; once more from nothing" >&2
    build --clean || { tail -40 "$log"; echo "debian-swift: the build failed (log: $log)" >&2; exit 1; }
fi
version=$(installed_version "$arm64_toolchain_root" swiftlang)
echo "debian-swift: Debian swiftlang $version built every module and the tests (arm64, debug) in $((SECONDS - started)) s"
