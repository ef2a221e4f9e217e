#!/usr/bin/env bash
# The arm64 pass, run by hand (before a release, and after any change either compiler could
# refuse or build differently: any Swift change, the build, the packages, C interop, anything
# arm64 can differ on): it does not fit in CI's time. On a Debian 12 amd64 machine,
# as root, from a clone:
#   1. the toolchain, Swift runtime and trixie arm64 root (scripts/cross-arm64.sh --setup-only;
#      7 to 34 min the first time, then kept in KIOSKPAD_ARM64_CACHE);
#   2. the release cross build (scripts/cross-arm64.sh);
#   3. the arm64 packages, revisions 1 and 2 (scripts/package-deb.sh --arch arm64), lintian
#      with no errors;
#   4. the package test in the trixie root under qemu-user (Tests/arm64/package-test.sh);
#   4b. bookworm: the door built against bookworm's libgpiod 1.6 (scripts/cross-arm64.sh
#      --bookworm; the bookworm arm64 root is made the first time, about 8 min), its packages
#      (-N~deb12), lintian, and the package test in the bookworm root; the binaries of both
#      suites within their release's glibc (scripts/check-glibc.sh);
#   4c. the signed apt repository (Tests/AptRepo/run.sh) in a clean trixie arm64 root and a
#      clean bookworm arm64 root: install, upgrade, another key's and an unsigned one refused;
#   5. the arm64 test bundle under qemu-user (scripts/cross-arm64.sh --tests, then
#      scripts/test-arm64.sh --no-build);
#   6. the hardware-in-loop core in an emulated arm64 system with trixie's libgpiod 2.x, and
#      the packaged door's RSS at ready there, within 20 MB (Tests/arm64/hil.sh); then the
#      core with the bookworm door and bookworm's libgpiod 1.6 (--suite bookworm).
#
#   Tests/arm64/run.sh [--skip-tests] [--skip-hil]
#
# Its last lines give each part's time and result; it exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
run_tests=yes
run_hil=yes
while [ $# -gt 0 ]; do
    case $1 in
        --skip-tests) run_tests=no; shift ;;
        --skip-hil) run_hil=no; shift ;;
        -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "arm64/run.sh: unknown option '$1' (valid: --skip-tests, --skip-hil, --help)" >&2; exit 2 ;;
    esac
done
export SWIFT_DETERMINISTIC_HASHING=1
# lintian checks the packages, reprepro and gpg make the signed repository (CI installs them with
# the rest; a machine that never ran CI may lack them).
source scripts/apt-install-missing.sh
apt_install_missing lintian reprepro gpg
logs=$(mktemp -d /tmp/kioskpad-arm64.XXXXXX)
debs=$(mktemp -d /tmp/kioskpad-debs-arm64.XXXXXX)
timings=()
part_start=$SECONDS
mark() { timings+=("$1: $((SECONDS - part_start)) s"); part_start=$SECONDS; }
fail() { tail -40 "$1"; echo "arm64: $2 failed (log: $1)" >&2; exit 1; }

bash scripts/cross-arm64.sh --setup-only > "$logs/setup.log" 2>&1 || fail "$logs/setup.log" "the set-up"
mark "set-up (toolchain, runtime, trixie root)"
bin=$(bash scripts/cross-arm64.sh 2> "$logs/build.log" | tail -1) || fail "$logs/build.log" "the release cross build"
mark "release cross build"
bash scripts/package-deb.sh --arch arm64 --binary "$bin/kioskpad" --revision 1,2 --quick --output "$debs" > "$logs/package.log" 2>&1 \
    || fail "$logs/package.log" "packaging"
lintian --fail-on error "$debs"/kioskpad_*-1_arm64.deb "$debs"/kioskpad-verifier_*-1_arm64.deb > "$logs/lintian.log" 2>&1 \
    || fail "$logs/lintian.log" "lintian"
mark "packages (two revisions) and lintian"
bash Tests/arm64/package-test.sh "$debs" > "$logs/package-test.log" 2>&1 || fail "$logs/package-test.log" "the package test"
mark "package test in the trixie root"
# 4b. bookworm: packaging cross-builds the door for it (the site server is the trixie build's).
bookworm_debs=$(mktemp -d /tmp/kioskpad-debs-arm64-bookworm.XXXXXX)
bash scripts/package-deb.sh --arch arm64 --suite bookworm --revision 1,2 --quick --output "$bookworm_debs" > "$logs/package-bookworm.log" 2>&1 \
    || fail "$logs/package-bookworm.log" "packaging for bookworm"
lintian --fail-on error "$bookworm_debs"/kioskpad_*-1~deb12_arm64.deb "$bookworm_debs"/kioskpad-verifier_*-1~deb12_arm64.deb > "$logs/lintian-bookworm.log" 2>&1 \
    || fail "$logs/lintian-bookworm.log" "lintian (bookworm)"
bash Tests/arm64/package-test.sh --suite bookworm "$bookworm_debs" > "$logs/package-test-bookworm.log" 2>&1 \
    || fail "$logs/package-test-bookworm.log" "the package test in the bookworm root"
mark "bookworm: door build, packages, lintian, package test in the bookworm root"
source scripts/arm64/toolchain.sh
bash Tests/AptRepo/run.sh --root "$arm64_target_root" --suite trixie --archive --debs "$debs" > "$logs/apt-repo-trixie.log" 2>&1 \
    || fail "$logs/apt-repo-trixie.log" "the apt repository in the trixie arm64 root"
bash Tests/AptRepo/run.sh --root "$arm64_bookworm_root" --suite bookworm --archive --debs "$bookworm_debs" > "$logs/apt-repo-bookworm.log" 2>&1 \
    || fail "$logs/apt-repo-bookworm.log" "the apt repository in the bookworm arm64 root"
mark "signed apt repository in trixie and bookworm arm64 roots"
if [ "$run_tests" = yes ]; then
    bash scripts/cross-arm64.sh --tests > /dev/null 2> "$logs/test-build.log" || fail "$logs/test-build.log" "the test bundle's build"
    bash scripts/test-arm64.sh --no-build 2>&1 | tee "$logs/tests.log"
    mark "test bundle (debug cross build, then under qemu-user)"
fi
if [ "$run_hil" = yes ]; then
    # The emulated arm64 system (qemu-system-aarch64 and the rest), as .ci/run sets up amd64's.
    bash Tests/Guest/setup.sh --arch arm64 > "$logs/guest-setup.log" 2>&1 || fail "$logs/guest-setup.log" "the arm64 guest's set-up"
    bash Tests/arm64/hil.sh --bin "$bin" --debs "$debs" --footprint-runs 3 2>&1 | tee "$logs/hil.log"
    if ! awk '/RSS at ready median/ { seen++; if ($6 + 0 > 20.0) over = 1 } END { exit !(seen == 2 && !over) }' "$logs/hil.log"; then
        echo "arm64: the packaged door's RSS at ready is over 20 MB (or was not measured)" >&2; exit 1
    fi
    mark "HIL core in an emulated arm64 system, the door's footprint"
    # The bookworm door on bookworm's libgpiod 1.6 (the guest's root is the bookworm root).
    bash Tests/arm64/hil.sh --suite bookworm 2>&1 | tee "$logs/hil-bookworm.log"
    grep -q '^hil-arm64: [0-9]* passed, 0 failed' "$logs/hil-bookworm.log" || { echo "arm64: the bookworm HIL core failed" >&2; exit 1; }
    mark "HIL core with the bookworm door and libgpiod 1.6"
fi

printf 'arm64: time, %s\n' "${timings[@]}"
echo "arm64: total $((SECONDS / 60)) min $((SECONDS % 60)) s"
echo "arm64: packages: $(grep -a '^package-deb: .*installed' "$logs/package.log" | head -2 | sed 's/; Depends.*//' | tr '\n' ' ')lintian: $(grep -c '^E:' "$logs/lintian.log" || true) errors; $(tail -1 "$logs/package-test.log")"
echo "arm64: bookworm packages: $(grep -a '^package-deb: .*installed' "$logs/package-bookworm.log" | head -2 | sed 's/; Depends.*//' | tr '\n' ' ')lintian: $(grep -c '^E:' "$logs/lintian-bookworm.log" || true) errors; $(tail -1 "$logs/package-test-bookworm.log")"
echo "arm64: glibc: $(grep -a -h 'need .* glibc' "$logs/package-test.log" "$logs/package-test-bookworm.log" | sed 's/^PASS //' | tr '\n' ' ')"
for suite in trixie bookworm; do
    echo "arm64: apt repository, $suite: $(grep -a '^apt-repo: [0-9]* passed' "$logs/apt-repo-$suite.log"); $(grep -a '^apt-repo: measured' "$logs/apt-repo-$suite.log" | sed 's/^apt-repo: //')"
done
[ "$run_tests" = yes ] && echo "arm64: test bundle: $(grep -a -E "Test run with|run again alone|second run of" "$logs/tests.log" | tr '\n' ' ')"
[ "$run_hil" = yes ] && echo "arm64: bookworm: $(grep -a '^hil-arm64: [0-9]* passed' "$logs/hil-bookworm.log" | tail -1)"
[ "$run_hil" = yes ] && echo "arm64: $(grep -a '^hil-arm64: [0-9]* passed' "$logs/hil.log" | tail -1); RSS at ready (simulate; with journal and metrics): $(grep -a 'RSS at ready' "$logs/hil.log" | awk '{ print $6 " MB" }' | tr '\n' ' ')"
echo "arm64: logs in $logs"
