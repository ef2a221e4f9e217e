#!/usr/bin/env bash
# Hardware-in-loop suite: boots a real Linux kernel with gpio-sim under QEMU once
# (Tests/Guest/run.sh) and runs every check in Tests/HIL/guest.sh against a real GPIO chip
# through libgpiod. Needs Tests/Guest/setup.sh to have run (.ci/run does).
#
#   Tests/HIL/run.sh                                     the default build (.build, libgpiod 1.6)
#   PKG_CONFIG_PATH=/opt/gpiod2/lib/pkgconfig \
#     Tests/HIL/run.sh --scratch-path .build-gpiod2 --expect-api 2   a libgpiod 2.x build
#
# --expect-api N makes the suite fail unless the binary really uses the libgpiod vN API.
# --e2e-root DIR --release-binary FILE adds the deployment test (Tests/HIL/systemd-e2e.sh):
# DIR is a Debian 12 root made here with debootstrap if it does not exist yet (needs network
# to deb.debian.org), FILE the release binary that deploy/install.sh installs into it.
# --deb-dir DIR (with --e2e-root) then installs, upgrades, removes and purges the Debian
# package in the same root (Tests/HIL/package-e2e.sh): DIR holds the revisions 1 and 2 that
# scripts/package-deb.sh made. --prepare-only (with --e2e-root) only makes that root and exits:
# .ci/run makes it while other parts build.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=()
api=''
e2e_root=''
release=''
deb_dir=''
prepare_only=no
while [ $# -gt 0 ]; do
    case $1 in
        --scratch-path) scratch=(--scratch-path "$2"); shift 2 ;;
        --expect-api) api=$2; shift 2 ;;
        --e2e-root) e2e_root=$2; shift 2 ;;
        --release-binary) release=$2; shift 2 ;;
        --deb-dir) deb_dir=$(cd "$2" && pwd); shift 2 ;;
        --prepare-only) prepare_only=yes; shift ;;
        *) echo "hil: unknown option '$1' (valid: --scratch-path DIR, --expect-api 1|2, --e2e-root DIR, --release-binary FILE, --deb-dir DIR, --prepare-only)" >&2; exit 2 ;;
    esac
done
[ "$prepare_only" = no ] || [ -n "$e2e_root" ] || { echo "hil: --prepare-only needs --e2e-root DIR" >&2; exit 2; }
if [ -n "$e2e_root" ]; then
    if [ "$prepare_only" = no ]; then
        [ -x "$release" ] || { echo "hil: --e2e-root needs --release-binary FILE (the binary deploy/install.sh installs)" >&2; exit 2; }
        release=$(cd "$(dirname "$release")" && pwd)/$(basename "$release")
    fi
    if [ ! -f "$e2e_root/.kioskpad-e2e-root.3" ]; then
        command -v debootstrap >/dev/null || { echo "hil: the deployment test needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
        echo "hil: making a Debian 12 root with systemd in $e2e_root (debootstrap)" >&2
        rm -rf "$e2e_root"
        debootstrap --variant=minbase --include=systemd,systemd-sysv,udev,dbus,libgpiod2,libmosquitto1,procps,libsodium23 \
            bookworm "$e2e_root" http://deb.debian.org/debian > "$e2e_root.log" 2>&1 \
            || { tail -20 "$e2e_root.log" >&2; exit 2; }
        touch "$e2e_root/.kioskpad-e2e-root.3"
    fi
    e2e_root=$(cd "$e2e_root" && pwd)
    [ "$prepare_only" = no ] || { echo "hil: the deployment test's root is ready in $e2e_root" >&2; exit 0; }
    # The guest's root is an overlay on a tmpfs (half the guest's memory): the deployment
    # tests install both programs (kioskpad and kioskpad-verifier, about 200 MB with their
    # symbols) and then both packages into it; 1 GB ran out of space.
    export GUEST_MEM=${GUEST_MEM:-2G}
fi
cd "$repo"
swift build "${scratch[@]}" --product kioskpad >&2
swift build "${scratch[@]}" --product keypad-emu >&2
bin=$(swift build "${scratch[@]}" --show-bin-path)
# The site server for the card-learning section: the default build's (it has no libgpiod, so
# a --scratch-path build of the door talks to the same server).
swift build --product kioskpad-verifier >&2
site_bin=$(swift build --show-bin-path)
out=$(mktemp -d /tmp/kioskpad-hil-out.XXXXXX)
if [ -n "$deb_dir" ]; then
    # The site's signed apt repository with revision 2 (scripts/apt-repo.sh): the package test
    # upgrades to it with apt-get, as a Pi does (Tests/HIL/package-e2e.sh, step 2).
    bash scripts/apt-repo.sh --make-key "$out/apt-key.asc" 2> "$out/apt-repo.log"
    bash scripts/apt-repo.sh --repo "$out/apt-repo" --key-file "$out/apt-key.asc" --suite bookworm \
        "$(ls "$deb_dir"/kioskpad_*-2_*.deb | head -1)" "$(ls "$deb_dir"/kioskpad-verifier_*-2_*.deb | head -1)" >> "$out/apt-repo.log" 2>&1 \
        || { cat "$out/apt-repo.log" >&2; echo "hil: could not build the apt repository (needs reprepro and gpg)" >&2; exit 1; }
    rm -f "$out/apt-key.asc"
fi
set +e
# The guest's time limit: the whole suite with the deployment tests took 985 s here on
# 2 December 2026 and outran 1,800 s in a CI run on 3 December (a slow guest, plus two
# minutes lost to a Wiegand card frame split by a guest stall, since presented again):
# 2,400 s. The sections' start times are printed ("hil: [N s] section ...").
GUEST_RWDIR=$out GUEST_TIMEOUT=${GUEST_TIMEOUT:-2400} "$repo/Tests/Guest/run.sh" "HIL_SITE_BIN='$site_bin' sh '$repo/Tests/HIL/guest.sh' '$bin' '$out' '$api' '$e2e_root' '$release' '$deb_dir'" | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
echo "hil: guest exit $status; artifacts in $out" >&2
# The guest's summary ("hil: N passed, M failed") closes the run, with the library it used.
summary=$(grep -a '^hil: [0-9]* passed, [0-9]* failed' "$out/console.log" | tail -1)
library=$(sed -n 's/^keytest: .*, \(libgpiod [^;]*\);.*/\1/p' "$out/all.out" 2>/dev/null | head -1)
echo "${summary:-hil: 0 passed, 1 failed} (${library:-libgpiod unknown})"
[ -n "$summary" ] || status=1
exit $status
