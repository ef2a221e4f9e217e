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
#   --limit S                                stop the build after S seconds and say it was not
#                                            checked (CI: 900), exit 0
#   --no-retry                               no second build from nothing when the first fails
#                                            outside the project's sources: say so, exit 0
#
# A build that fails on the project's own sources fails the check, naming them; one that fails
# elsewhere (a scratch folder left broken) is tried once more from nothing. The last line says
# what was checked, with the compiler's version and the time, or why nothing was.
set -euo pipefail
cd "$(dirname "$0")/.."
cold=no
limit=0
retry=yes
while [ $# -gt 0 ]; do
    case $1 in
        --cold) cold=yes ;;
        --limit) limit=${2:-}; shift
            [[ $limit =~ ^[0-9]+$ ]] || { echo "check-debian-swift.sh: --limit needs a number of seconds" >&2; exit 2; } ;;
        --no-retry) retry=no ;;
        -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-debian-swift.sh: unknown option '$1' (valid: --cold, --limit S, --no-retry, --help)" >&2; exit 2 ;;
    esac
    shift
done
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
build() {
    if [ "$limit" -gt 0 ]; then
        timeout --kill-after=30 "$limit" bash scripts/cross-arm64.sh --tests "$@" > /dev/null 2> "$log"
    else
        bash scripts/cross-arm64.sh --tests "$@" > /dev/null 2> "$log"
    fi
}
over_limit() {
    echo "debian-swift: not checked this run: the build had not ended after its $limit s (--limit); log: $log"
    exit 0
}
status=0
build || status=$?
[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || over_limit
if [ "$status" -ne 0 ]; then
    # The clone is at /src/kioskpad inside the toolchain root.
    if grep -E "^/src/kioskpad/(Sources|Tests|Plugins|Package\.swift).*error:" "$log" | sort -u | sed 's/^/debian-swift: /'; then
        echo "debian-swift: Debian's swiftlang refused the sources above (log: $log)" >&2
        exit 1
    fi
    tail -20 "$log"
    if [ "$retry" = no ]; then
        echo "debian-swift: not checked this run: the build failed outside the project's sources (a broken scratch folder?), and --no-retry leaves the build from nothing (30 min or more) to scripts/cross-arm64.sh --tests --clean"
        exit 0
    fi
    echo "debian-swift: the build failed outside the project's sources; once more from nothing" >&2
    status=0
    build --clean || status=$?
    [ "$status" -ne 124 ] && [ "$status" -ne 137 ] || over_limit
    [ "$status" -eq 0 ] || { tail -40 "$log"; echo "debian-swift: the build failed (log: $log)" >&2; exit 1; }
fi
version=$(installed_version "$arm64_toolchain_root" swiftlang)
echo "debian-swift: Debian swiftlang $version built every module and the tests (arm64, debug) in $((SECONDS - started)) s"
