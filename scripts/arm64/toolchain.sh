#!/usr/bin/env bash
# Sets up, once per machine, what cross-building KioskPad for arm64 needs, in a cache outside the
# clone (KIOSKPAD_ARM64_CACHE, default /var/cache/kioskpad-arm64), and reuses it afterwards:
#   toolchain-root/  a Debian sid amd64 root (debootstrap, minbase) with Debian's `swiftlang`
#                    compiler: sid's amd64 Swift needs sid's glibc, so it runs chrooted here;
#   swift-arm64/     Debian's arm64 Swift runtime (`swiftlang:arm64`, `libswiftlang:arm64`),
#                    unpacked: the resource folders an aarch64 link needs (the two runtime
#                    packages cannot be installed beside their amd64 twins);
#   target-root/     a Debian trixie arm64 root (the base of Raspberry Pi OS trixie): the build's
#                    sysroot (glibc, libstdc++, libgpiod-dev, libmosquitto-dev), and where the
#                    arm64 programs and tests run under qemu-user (binfmt);
#   sdks/            a Swift SDK bundle naming those three.
# apt checks every package against the archive's signed lists. Swift older than 6.2 is refused.
# Source this file (scripts/cross-arm64.sh does) or run it to set up only.
set -euo pipefail

arm64_cache=${KIOSKPAD_ARM64_CACHE:-/var/cache/kioskpad-arm64}
arm64_toolchain_root=$arm64_cache/toolchain-root
arm64_swift_runtime=$arm64_cache/swift-arm64
arm64_target_root=$arm64_cache/target-root
arm64_sdks=$arm64_cache/sdks
arm64_sdk_name=kioskpad-aarch64-trixie
# Where a clone is seen from inside the roots, whatever its path on the host: the arm64 builds
# keep their scratch folders in the cache (arm64_scratch), and with the sources always at the
# same path SwiftPM rebuilds only what changed, not the dependencies (a fresh clone in CI too).
arm64_source=/src/kioskpad
arm64_mirror=${KIOSKPAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the trixie root holds: the sysroot for linking, and what the arm64 tests run with.
arm64_target_packages=libc6-dev,libstdc++-14-dev,libgcc-14-dev,libgpiod-dev,libmosquitto-dev,zlib1g-dev,pkg-config,dpkg-dev,libqrencode4,libsodium23,mosquitto,mosquitto-clients,openssl,curl,mount,python3,systemd,ca-certificates,procps,gpiod,kmod,iproute2
# sid's Release file reads as expired on this archive's mirror; apt still checks its signature.
sid_apt=(-o Acquire::Check-Valid-Until=false)

arm64_log() { echo "cross-arm64: $*" >&2; }
# The scratch folder of one kind of arm64 build (release, release-unordered, debug), per compiler:
# a new swiftlang starts from nothing, as its modules cannot be read by another.
arm64_scratch() {
    local version=${arm64_swift_version:-$(installed_version "$arm64_toolchain_root" swiftlang)}
    echo "$arm64_cache/build/swift-$version/$1"
}
source "$(dirname "${BASH_SOURCE[0]}")/../apt-install-missing.sh"

# Runs a command chrooted into ROOT with /proc, /sys, /dev and the named host folders bound at
# their own paths (an entry tmpfs:DIR mounts an empty tmpfs there instead; DIR=>PATH binds DIR
# at PATH), in a mount namespace of its own: nothing stays mounted when it ends.
#   in_root ROOT "DIR tmpfs:DIR DIR=>PATH ..." COMMAND...
in_root() {
    local root=$1 binds=$2; shift 2
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root=$1; binds=$2; shift 2
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        for dir in $binds; do
            case $dir in
                tmpfs:*) mkdir -p "$root${dir#tmpfs:}"; mount -t tmpfs tmpfs "$root${dir#tmpfs:}" ;;
                *"=>"*) mkdir -p "$root${dir#*=>}"; mount --bind "${dir%%=>*}" "$root${dir#*=>}" ;;
                *) mkdir -p "$root$dir"; mount --bind "$dir" "$root$dir" ;;
            esac
        done
        exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
    ' in_root "$root" "$binds" "$@"
}

arm64_host_packages() {
    apt_install_missing debootstrap qemu-user-static binfmt-support
    update-binfmts --enable qemu-aarch64 2>/dev/null || true
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
    update-binfmts --enable qemu-aarch64 2>/dev/null || true
    grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null \
        || { arm64_log "binfmt for qemu-aarch64 is not enabled (update-binfmts --enable qemu-aarch64)"; return 1; }
}

# Version of a Debian package installed in ROOT, or nothing.
installed_version() { chroot "$1" dpkg-query -W -f='${Version}' "$2" 2>/dev/null || true; }

# Makes ROOT with debootstrap (once), then installs what PACKAGES adds to what it was made with.
#   debian_root ROOT SUITE ARCH PACKAGES(comma-separated) [APT OPTION...]
debian_root() {
    local root=$1 suite=$2 arch=$3 packages=$4; shift 4
    if [ ! -f "$root/.kioskpad-ready" ]; then
        arm64_log "making a Debian $suite $arch root in $root"
        rm -rf "$root"
        debootstrap --arch="$arch" --variant=minbase --include="$packages" "$suite" "$root" "$arm64_mirror" >&2
        echo "deb $arm64_mirror $suite main" > "$root/etc/apt/sources.list"
        echo "$packages" > "$root/.kioskpad-packages"
        touch "$root/.kioskpad-ready"
    fi
    if [ "$(cat "$root/.kioskpad-packages" 2>/dev/null)" != "$packages" ]; then
        arm64_log "adding packages to $root"
        in_root "$root" "" apt-get "$@" update -qq
        in_root "$root" "" env DEBIAN_FRONTEND=noninteractive \
            apt-get "$@" install -y -qq --no-install-recommends ${packages//,/ } >&2
        echo "$packages" > "$root/.kioskpad-packages"
    fi
    rm -f "$root"/var/cache/apt/archives/*.deb
}

arm64_toolchain_root_setup() {
    # libc6-dev: the compiler builds Package.swift itself for this (amd64) side.
    debian_root "$arm64_toolchain_root" sid amd64 swiftlang,git,pkg-config,libc6-dev,ca-certificates "${sid_apt[@]}"
    arm64_swift_version=$(installed_version "$arm64_toolchain_root" swiftlang)
    local upstream=${arm64_swift_version%%-*}
    upstream=${upstream#*:}
    if [ -z "$arm64_swift_version" ] || ! dpkg --compare-versions "$upstream" ge 6.2; then
        arm64_log "Debian's swiftlang is '${arm64_swift_version:-not installed}'; KioskPad needs 6.2 or newer (swift-tools-version 6.1, Swift 6 mode)"
        return 1
    fi
    # The project's Swift packages come from the same place as on the host (git's insteadOf).
    [ -f /etc/gitconfig ] && cp /etc/gitconfig "$arm64_toolchain_root/etc/gitconfig"
    return 0
}

arm64_runtime_setup() {
    local stamp=$arm64_swift_runtime/.version upstream=${arm64_swift_version%%-*}
    # A binNMU (+bN) can differ between architectures: the upstream versions must agree.
    case $(cat "$stamp" 2>/dev/null) in "$upstream"-*) return 0 ;; esac
    arm64_log "unpacking Debian's arm64 Swift runtime into $arm64_swift_runtime"
    local downloads=$arm64_cache/downloads deb found
    rm -rf "$arm64_swift_runtime" "$downloads"; mkdir -p "$arm64_swift_runtime" "$downloads"
    in_root "$arm64_toolchain_root" "" dpkg --add-architecture arm64
    in_root "$arm64_toolchain_root" "" apt-get "${sid_apt[@]}" update -qq
    in_root "$arm64_toolchain_root" "$downloads" /bin/sh -c \
        "cd '$downloads' && apt-get ${sid_apt[*]} -o APT::Sandbox::User=root download -q swiftlang:arm64 libswiftlang:arm64" >&2
    for deb in "$downloads"/*.deb; do
        found=$(dpkg-deb -f "$deb" Version)
        [ "${found%%-*}" = "$upstream" ] || {
            arm64_log "the archive's arm64 $(basename "$deb") is $found, the amd64 compiler $arm64_swift_version: they must be the same Swift"
            return 1; }
        dpkg-deb -x "$deb" "$arm64_swift_runtime"
    done
    rm -rf "$downloads"
    echo "$found" > "$stamp"
}

arm64_target_root_setup() {
    debian_root "$arm64_target_root" trixie arm64 "$arm64_target_packages"
}

# A Debian bookworm arm64 root (the base of Raspberry Pi OS bookworm 64-bit, glibc 2.36,
# libgpiod 1.6): where the bookworm packages are tested and get their Depends, and where the
# door's bookworm build takes libgpiod from. Made only by what needs it (cross-arm64.sh
# --bookworm, the bookworm tests): about 8 minutes under qemu-user.
arm64_bookworm_root=$arm64_cache/bookworm-root
arm64_bookworm_packages=libgpiod-dev,dpkg-dev,libqrencode4,libsodium23,mosquitto,mosquitto-clients,openssl,curl,mount,python3,systemd,ca-certificates,procps,gpiod,kmod,iproute2
arm64_bookworm_root_setup() {
    arm64_host_packages
    debian_root "$arm64_bookworm_root" bookworm arm64 "$arm64_bookworm_packages"
}

# Another release's libgpiod for a build: the header and library of ROOT's libgpiod-dev
# (TRIPLET's library folder) copied into DEST, with a libgpiod.pc of its own whose prefix is
# PREFIX (DEST as the compiler sees it: inside a sysroot, or DEST itself). Put DEST/lib/pkgconfig
# first on PKG_CONFIG_PATH; only the C shim above libgpiod then builds against it. Kept until
# ROOT's libgpiod-dev changes; DEST/.version names it.
#   libgpiod_from_root ROOT TRIPLET DEST PREFIX
libgpiod_from_root() {
    local root=$1 triplet=$2 dest=$3 prefix=$4 version
    version=$(installed_version "$root" libgpiod-dev)
    [ -n "$version" ] || { arm64_log "no libgpiod-dev in $root"; return 1; }
    [ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ] && return 0
    rm -rf "$dest"; mkdir -p "$dest/include" "$dest/lib/pkgconfig"
    cp "$root/usr/include/gpiod.h" "$dest/include/"
    cp -P "$root/usr/lib/$triplet"/libgpiod.so* "$dest/lib/"
    printf '%s\n' "prefix=$prefix" 'includedir=${prefix}/include' 'libdir=${prefix}/lib' '' \
        'Name: libgpiod' "Description: $(. "$root/etc/os-release" && echo "$PRETTY_NAME")'s libgpiod $version, for a KioskPad build" \
        "Version: ${version%%-*}" 'Libs: -L${libdir} -lgpiod' 'Cflags: -I${includedir}' > "$dest/lib/pkgconfig/libgpiod.pc"
    echo "$version" > "$dest/.version"
}

# bookworm's libgpiod 1.6 inside the trixie sysroot, for the door's bookworm build: the only
# part of that build not from trixie. The Swift runtime's few glibc 2.38 symbols are defined in
# the program (Sources/C/CGlibcFloor), so the binary needs bookworm's glibc 2.36 at most
# (scripts/check-glibc.sh checks).
arm64_libgpiod_bookworm=/opt/libgpiod-bookworm
arm64_libgpiod_bookworm_setup() {
    arm64_bookworm_root_setup
    libgpiod_from_root "$arm64_bookworm_root" aarch64-linux-gnu "$arm64_target_root$arm64_libgpiod_bookworm" "$arm64_libgpiod_bookworm"
}

# The Swift SDK bundle: target root as sysroot, the arm64 runtime as resources, lld to link.
arm64_sdk_setup() {
    local bundle=$arm64_sdks/$arm64_sdk_name.artifactbundle resources=$arm64_swift_runtime/usr/libexec/swift/lib
    [ -d "$resources/swift/linux" ] || { arm64_log "no arm64 runtime in $resources/swift/linux"; return 1; }
    # The driver looks for swiftrt.o in the sysroot, not the resources: swift_static for a
    # static-stdlib link (release), swift for a dynamic one (the debug test bundle).
    local kind
    for kind in swift swift_static; do
        mkdir -p "$arm64_target_root/usr/lib/$kind/linux/aarch64"
        ln -sfn "$resources/$kind/linux/aarch64/swiftrt.o" "$arm64_target_root/usr/lib/$kind/linux/aarch64/swiftrt.o"
    done
    mkdir -p "$bundle/sdk"
    cat > "$bundle/info.json" <<EOF
{ "schemaVersion": "1.0",
  "artifacts": { "$arm64_sdk_name": { "type": "swiftSDK", "version": "$arm64_swift_version",
    "variants": [ { "path": "sdk", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] } ] } } }
EOF
    cat > "$bundle/sdk/swift-sdk.json" <<EOF
{ "schemaVersion": "4.0",
  "targetTriples": { "aarch64-unknown-linux-gnu": {
    "sdkRootPath": "$arm64_target_root",
    "swiftResourcesPath": "$resources/swift",
    "swiftStaticResourcesPath": "$resources/swift_static",
    "toolsetPaths": ["toolset.json"] } } }
EOF
    cat > "$bundle/sdk/toolset.json" <<EOF
{ "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] } }
EOF
}

# Debian's swiftlang 6.2.3 ships the `_Testing_Foundation` module (Swift Testing's overlay for
# Foundation, imported with both) but not its library, which every test bundle then asks the
# linker for. Nothing in KioskPad's tests uses it, so an empty arm64 library of that name
# stands in, in a folder of its own: the linker still refuses a symbol that is missing.
arm64_testing_stub=$arm64_swift_runtime/stubs
arm64_testing_stub_setup() {
    local runtime=$arm64_swift_runtime/usr/libexec/swift/lib/swift/linux
    if [ -e "$runtime/lib_Testing_Foundation.so" ] || [ ! -d "$runtime/_Testing_Foundation.swiftmodule" ]; then
        rm -rf "$arm64_testing_stub"; mkdir -p "$arm64_testing_stub"; return 0
    fi
    [ -e "$arm64_testing_stub/lib_Testing_Foundation.so" ] && return 0
    mkdir -p "$arm64_testing_stub"
    : > "$arm64_testing_stub/empty.c"
    in_root "$arm64_toolchain_root" "$arm64_testing_stub" /usr/libexec/swift/bin/clang -target aarch64-unknown-linux-gnu \
        -shared -nostdlib -fuse-ld=lld -Wl,-soname,lib_Testing_Foundation.so -o "$arm64_testing_stub/lib_Testing_Foundation.so" "$arm64_testing_stub/empty.c"
    rm -f "$arm64_testing_stub/empty.c"
    arm64_log "Debian's arm64 runtime lacks lib_Testing_Foundation.so: an empty stand-in is in $arm64_testing_stub"
}

arm64_setup() {
    arm64_host_packages
    mkdir -p "$arm64_cache"
    arm64_toolchain_root_setup
    arm64_runtime_setup
    arm64_target_root_setup
    arm64_sdk_setup
    arm64_testing_stub_setup
    arm64_log "ready: Debian swiftlang $arm64_swift_version, target root $(cat "$arm64_target_root/etc/debian_version") arm64"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then arm64_setup; fi
