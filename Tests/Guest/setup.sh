#!/usr/bin/env bash
# Installs what Tests/Guest/run.sh needs, only what is missing (Debian 12 host, as root or with
# sudo). Safe to run again; .ci/run runs it.
#
#   Tests/Guest/setup.sh                 the amd64 guest: QEMU, Debian's amd64 kernel with its
#                                        headers, the kernel source gpio-sim is built from,
#                                        busybox, and libgpiod's tools for the suites
#   Tests/Guest/setup.sh --arch arm64    the arm64 guest's host tools (its kernel comes from
#                                        bookworm's arm64 archive at the first run; its root is
#                                        made by scripts/cross-arm64.sh --setup-only)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/scripts/apt-install-missing.sh"
arch=amd64
[ "${1:-}" != --arch ] || arch=${2:-}
case $arch in
    amd64)
        apt_install_missing qemu-system-x86 linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
            busybox-static build-essential kmod cpio xz-utils gpiod libgpiod-dev
        kver=$(ls /lib/modules | grep -- '-amd64$' | sort -V | tail -1)
        [ -d "/lib/modules/$kver/build" ] || { echo "guest setup: no headers for $kver" >&2; exit 1; }
        echo "guest setup: amd64 kernel $kver, $(qemu-system-x86_64 --version | head -1)"
        ;;
    arm64)
        apt_install_missing qemu-system-arm gcc-aarch64-linux-gnu linux-source-6.1 linux-kbuild-6.1 kmod cpio \
            xz-utils make bc
        echo "guest setup: $(qemu-system-aarch64 --version | head -1)"
        ;;
    *) echo "guest setup: --arch '$arch': valid are amd64 and arm64" >&2; exit 2 ;;
esac
