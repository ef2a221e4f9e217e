#!/usr/bin/env bash
# Builds KioskPad for arm64 (aarch64-unknown-linux-gnu: Raspberry Pi OS 64-bit, Debian trixie)
# on a Debian 12 amd64 machine, with Debian's own Swift (sid's `swiftlang`, 6.2 or newer):
#
#   scripts/cross-arm64.sh                 release: both programs, static Swift runtime (what the
#                                          packages ship), and the HIL keypad emulator
#   scripts/cross-arm64.sh --bookworm      release: the door for Raspberry Pi OS bookworm (its
#                                          libgpiod 1.6 in place of trixie's 2.x; the rest, and the
#                                          site server, as for trixie), in a folder of its own
#   scripts/cross-arm64.sh --tests         debug: both programs and the test bundle
#                                          (scripts/test-arm64.sh runs it)
#   scripts/cross-arm64.sh --setup-only    only the toolchain, runtime and trixie root
#   --no-link-order                        (release) without scripts/link-order/kioskpad.order,
#                                          to measure what it saves: a relink in the release
#                                          scratch folder, the binaries then copied to a folder
#                                          of their own (the next ordered build relinks again)
#   --clean                                empty the scratch folder first (a build from nothing)
#
# The first run sets up, outside the clone, a sid root with the compiler, Debian's arm64 Swift
# runtime and a trixie arm64 root used as sysroot (scripts/arm64/toolchain.sh; about 1.5 GB of
# downloads, kept in KIOSKPAD_ARM64_CACHE, default /var/cache/kioskpad-arm64). Runs as root
# (debootstrap, chroot). The builds' scratch folders are kept there too
# (build/swift-VERSION/{release,release-unordered,debug}; the binaries are copied out to
# build/swift-VERSION/{trixie,bookworm}), with the clone mounted at
# /src/kioskpad inside the root: a later run, from this clone or any other, compiles only the
# project's own changed modules, not its dependencies again (--bookworm shares the release
# folder: it and a trixie build each recompile only the C shim above libgpiod and relink the
# door, about a minute here). The last line printed is the folder
# holding the binaries; the Swift used is written beside them (swift-version.txt), and the
# packages record it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
mode=release
link_order=yes
clean=no
while [ $# -gt 0 ]; do
    case $1 in
        --tests) mode=tests; shift ;;
        --bookworm) mode=bookworm; shift ;;
        --setup-only) mode=setup; shift ;;
        --no-link-order) link_order=no; shift ;;
        --clean) clean=yes; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "cross-arm64.sh: unknown option '$1' (valid: --tests, --bookworm, --setup-only, --no-link-order, --clean, --help)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "cross-arm64.sh: run as root (it makes and enters chroots)" >&2; exit 2; }
[ "$(dpkg --print-architecture)" = amd64 ] || { echo "cross-arm64.sh: runs on an amd64 Debian machine; on arm64, scripts/package-deb.sh builds natively" >&2; exit 2; }
source scripts/arm64/toolchain.sh
arm64_setup
[ "$mode" = setup ] && exit 0

pkgconfig="$arm64_target_root/usr/lib/aarch64-linux-gnu/pkgconfig:$arm64_target_root/usr/share/pkgconfig"
sdk=(--swift-sdks-path "$arm64_sdks" --swift-sdk "$arm64_sdk_name")
case $mode in
    release)
        scratch=$(arm64_scratch release)
        build=(-c release --static-swift-stdlib) ;;
    bookworm)
        arm64_libgpiod_bookworm_setup
        pkgconfig="$arm64_target_root$arm64_libgpiod_bookworm/lib/pkgconfig:$pkgconfig"
        scratch=$(arm64_scratch release)
        build=(-c release --static-swift-stdlib) ;;
    tests)
        scratch=$(arm64_scratch debug)
        # The stand-in for the Swift Testing library Debian's runtime lacks (toolchain.sh).
        build=(--build-tests -Xlinker -L"$arm64_testing_stub") ;;
esac
[ "$clean" = no ] || rm -rf "$scratch"
mkdir -p "$scratch"
# The link-order file is a release linker setting in Package.swift; --no-link-order names an
# empty one after it (lld takes the last --symbol-ordering-file), so only the link differs.
[ "$link_order" = yes ] || build+=(-Xlinker --symbol-ordering-file=/dev/null)
swift_build() {
    in_root "$arm64_toolchain_root" "$repo=>$arm64_source /opt/swift-packages $arm64_cache" env \
        PKG_CONFIG_PATH="$pkgconfig" PKG_CONFIG_SYSROOT_DIR="$arm64_target_root" \
        SWIFT_DETERMINISTIC_HASHING=1 /bin/sh -c 'cd "$1" && shift && exec swift build "$@"' swift_build "$arm64_source" \
        --scratch-path "$scratch" "${sdk[@]}" "${build[@]}" "$@"
}
started=$SECONDS
arm64_log "swift build ${build[*]} for aarch64 with Debian swiftlang $arm64_swift_version"
if [ "$mode" = release ]; then
    # One product at a time: a build of every target would take in the tests' support library,
    # and Debian's static arm64 runtime has no Swift Testing.
    swift_build --product kioskpad >&2
    swift_build --product kioskpad-verifier >&2
    # The HIL suite's keypad emulator (C), for Tests/arm64/hil.sh.
    swift_build --product keypad-emu >&2
elif [ "$mode" = bookworm ]; then
    # The site server and the emulator link no libgpiod: built (or found up to date) as for
    # trixie, they serve bookworm as they are.
    swift_build --product kioskpad >&2
    swift_build --product kioskpad-verifier >&2
    swift_build --product keypad-emu >&2
else
    swift_build >&2
fi
bin=$(swift_build --show-bin-path)
target_release="Debian $(cat "$arm64_target_root/etc/debian_version")"
if [ "$mode" = bookworm ]; then
    # Out of the shared folder, beside the site server it ships with.
    out=$(arm64_scratch bookworm)
    mkdir -p "$out"
    cp "$bin/kioskpad" "$bin/kioskpad-verifier" "$bin/keypad-emu" "$out/"
    bin=$out
    target_release+=" with Debian bookworm's libgpiod $(cat "$arm64_target_root$arm64_libgpiod_bookworm/.version")"
fi
if [ "$link_order" = no ]; then
    unordered=$(arm64_scratch release-unordered)
    mkdir -p "$unordered"
    cp "$bin/kioskpad" "$bin/kioskpad-verifier" "$bin/keypad-emu" "$unordered/"
    bin=$unordered
elif [ "$mode" = release ]; then
    # Out of the release folder, which a --bookworm build shares: these stay the trixie ones.
    out=$(arm64_scratch trixie)
    mkdir -p "$out"
    cp "$bin/kioskpad" "$bin/kioskpad-verifier" "$bin/keypad-emu" "$out/"
    bin=$out
fi
version=$(in_root "$arm64_toolchain_root" "" swift --version 2>/dev/null | head -1)
printf '%s (Debian swiftlang %s), for aarch64-unknown-linux-gnu against %s\n' \
    "$version" "$arm64_swift_version" "$target_release" > "$bin/swift-version.txt"
arm64_log "built in $((SECONDS - started)) s: $(cat "$bin/swift-version.txt")"
echo "$bin"
