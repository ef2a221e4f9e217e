#!/usr/bin/env bash
# Builds KioskPad for arm64 (aarch64-unknown-linux-gnu: Raspberry Pi OS 64-bit, Debian trixie)
# on a Debian 12 amd64 machine, with Debian's own Swift (sid's `swiftlang`, 6.2 or newer):
#
#   scripts/cross-arm64.sh                 release: both programs, static Swift runtime (what the
#                                          packages ship), and the HIL keypad emulator, in
#                                          .build-arm64/release
#   scripts/cross-arm64.sh --tests         debug: both programs and the test bundle, in
#                                          .build-arm64-debug/debug (scripts/test-arm64.sh runs it)
#   scripts/cross-arm64.sh --setup-only    only the toolchain, runtime and trixie root
#   --no-link-order                        (release) without scripts/link-order/kioskpad.order,
#                                          into .build-arm64-unordered, to measure what it saves
#
# The first run sets up, outside the clone, a sid root with the compiler, Debian's arm64 Swift
# runtime and a trixie arm64 root used as sysroot (scripts/arm64/toolchain.sh; about 1.5 GB of
# downloads, kept in KIOSKPAD_ARM64_CACHE, default /var/cache/kioskpad-arm64). Runs as root
# (debootstrap, chroot). The last line printed is the folder holding the binaries; the Swift
# used is written beside them (swift-version.txt), and the packages record it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
mode=release
link_order=yes
while [ $# -gt 0 ]; do
    case $1 in
        --tests) mode=tests; shift ;;
        --setup-only) mode=setup; shift ;;
        --no-link-order) link_order=no; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "cross-arm64.sh: unknown option '$1' (valid: --tests, --setup-only, --no-link-order, --help)" >&2; exit 2 ;;
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
        scratch=.build-arm64; [ "$link_order" = yes ] || scratch=.build-arm64-unordered
        build=(-c release --static-swift-stdlib) ;;
    tests)
        scratch=.build-arm64-debug
        build=(--build-tests) ;;
esac
# The link-order flag is a release linker setting in Package.swift; KIOSKPAD_LINK_ORDER=0 drops it.
swift_build() {
    in_root "$arm64_toolchain_root" "$repo /opt/swift-packages $arm64_cache" env \
        PKG_CONFIG_PATH="$pkgconfig" PKG_CONFIG_SYSROOT_DIR="$arm64_target_root" \
        KIOSKPAD_LINK_ORDER=$([ "$link_order" = yes ] && echo 1 || echo 0) \
        /bin/sh -c 'cd "$1" && shift && exec swift build "$@"' swift_build "$repo" \
        --scratch-path "$scratch" "${sdk[@]}" "${build[@]}" "$@"
}
started=$SECONDS
arm64_log "swift build ${build[*]} for aarch64 with Debian swiftlang $arm64_swift_version"
if [ "$mode" = release ]; then
    swift_build --product kioskpad >&2
    swift_build --product kioskpad-verifier >&2
    # The HIL suite's keypad emulator (C), for Tests/arm64/hil.sh.
    swift_build --product keypad-emu >&2
else
    swift_build >&2
fi
bin=$(swift_build --show-bin-path)
version=$(in_root "$arm64_toolchain_root" "" swift --version 2>/dev/null | head -1)
printf '%s (Debian swiftlang %s), for aarch64-unknown-linux-gnu against Debian %s\n' \
    "$version" "$arm64_swift_version" "$(cat "$arm64_target_root/etc/debian_version")" > "$bin/swift-version.txt"
arm64_log "built in $((SECONDS - started)) s: $(cat "$bin/swift-version.txt")"
echo "$bin"
