#!/usr/bin/env bash
# KioskPad's hardware-in-loop guest: runs one shell command as root in a Linux system under
# emulation (QEMU, TCG) whose kernel has a real GPIO chip driver, gpio-sim, loaded and configfs
# mounted, so the door's libgpiod code meets a real /dev/gpiochipN.
#
#   Tests/Guest/run.sh [--arch amd64|arm64] 'command'
#
#   amd64 (default): Debian 12's own kernel (linux-image-amd64) on a PC; the guest's root is this
#       machine's own file system, read-only, under a throw-away tmpfs overlay, so the command
#       runs the clone's fresh builds and scripts where they are, and modprobe finds the host's
#       modules (uinput, evdev, i2c-stub, loop, dm-log-writes).
#   arm64: bookworm's arm64 kernel on `-M virt` with a Cortex-A72 (as in a Raspberry Pi 4); the
#       root is the Debian trixie arm64 root of scripts/cross-arm64.sh (--setup-only makes it),
#       with the clone mounted read-only at its own path and the kernel's modules (with gpio-sim
#       and i2c-stub built for it) in /lib/modules.
#
# The command's exit status is this script's; 125 means the harness failed (no guest, no exit
# line, the time-out), 126 that the guest could not start the command.
# env: GUEST_RWDIR=/dir (shared read-write at the same path, for results), GUEST_TIMEOUT (s,
#      900), GUEST_MEM (amd64 512M, arm64 1G), GUEST_SMP (2), GUEST_VERBOSE=1 (kernel messages),
#      KIOSKPAD_GUEST_CACHE (kernels, modules and initramfs; /var/cache/kioskpad-guest).
# Tests/Guest/setup.sh installs what each architecture needs; the first run of each builds its
# modules and initramfs (under a minute for amd64; arm64 first downloads its kernel).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here=$repo/Tests/Guest
die() { echo "guest: $*" >&2; exit 125; }
arch=amd64
if [ "${1:-}" = --arch ]; then arch=${2:-}; shift 2 || die "--arch takes amd64 or arm64"; fi
case $arch in amd64 | arm64) ;; *) die "--arch '$arch': valid are amd64 and arm64" ;; esac
[ $# -ge 1 ] || die "usage: Tests/Guest/run.sh [--arch amd64|arm64] 'command'"
source "$here/modules.sh"
cache=${KIOSKPAD_GUEST_CACHE:-/var/cache/kioskpad-guest}/$arch
mkdir -p "$cache"

# What each architecture's preparation leaves: the kernel to boot, the folder holding its
# modules (kernel/... as shipped), the busybox for the initramfs, the virtio transport's
# modules, and QEMU's machine and share device.
if [ "$arch" = amd64 ]; then
    command -v qemu-system-x86_64 > /dev/null || die "no qemu-system-x86_64 (Tests/Guest/setup.sh)"
    kver=${GUEST_KVER:-$(ls /lib/modules 2> /dev/null | grep -- '-amd64$' | sort -V | tail -1)}
    [ -n "$kver" ] && [ -r "/boot/vmlinuz-$kver" ] || die "no Debian amd64 kernel in /boot (Tests/Guest/setup.sh)"
    [ -d "/lib/modules/$kver/build" ] || die "no headers for $kver (Tests/Guest/setup.sh)"
    module_tree=/lib/modules/$kver
    busybox=/bin/busybox
    [ -x "$busybox" ] && ! ldd "$busybox" > /dev/null 2>&1 || die "no static busybox (Tests/Guest/setup.sh)"
    transport="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev
               drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci"
    share_device=virtio-9p-pci
    # Debian's kernel image is compressed; the ELF inside it boots directly (PVH), which saves
    # the seconds that decompressing under emulation takes at every boot.
    # The image holds it as one XZ stream after the boot code; an image without one boots as it is.
    kernel=$cache/vmlinux-$kver
    if [ ! -s "$kernel" ]; then
        python3 - "/boot/vmlinuz-$kver" "$kernel.new" << 'EXTRACT' || true
import lzma, sys
image = open(sys.argv[1], "rb").read()
start = image.find(b"\xfd7zXZ\x00")
elf = lzma.LZMADecompressor().decompress(image[start:]) if start >= 0 else b""
if elf[:4] == b"\x7fELF":
    open(sys.argv[2], "wb").write(elf)
EXTRACT
        if [ -s "$kernel.new" ]; then mv "$kernel.new" "$kernel"; else kernel=/boot/vmlinuz-$kver; fi
    fi
    modules_dir=$cache/modules-$kver
    modules_wanted=gpio-sim
    build_modules() { guest_build_modules "$modules_dir" "/lib/modules/$kver/build" gpio-sim; }
    qemu=(qemu-system-x86_64 -M pc -cpu max -m "${GUEST_MEM:-512M}")
    console=ttyS0
    root=/
    extra_args=' mitigations=off'
    extra_shares=()
else
    command -v qemu-system-aarch64 > /dev/null || die "no qemu-system-aarch64 (Tests/Guest/setup.sh --arch arm64)"
    source "$repo/scripts/arm64/toolchain.sh"
    # The guest's root: the trixie arm64 root, or another arm64 root of the cache
    # (GUEST_ARM64_ROOT; Tests/arm64/hil.sh --suite bookworm gives the bookworm one).
    guest_root=${GUEST_ARM64_ROOT:-$arm64_target_root}
    [ -f "$guest_root/.kioskpad-ready" ] || die "no arm64 root at $guest_root (scripts/cross-arm64.sh --setup-only; --bookworm for bookworm's)"
    # bookworm's arm64 kernel, its headers and busybox, through an apt state of this script's own
    # (the host's apt is not changed).
    apt_arm64=(-o Dir::State="$cache/apt/state" -o Dir::Cache="$cache/apt/cache" -o Dir::State::status=/dev/null
               -o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
               -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root)
    if [ ! -f "$cache/.kernel-ready" ]; then
        rm -rf "$cache/apt" "$cache/x" "$cache/debs"
        mkdir -p "$cache/apt/state/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs"
        printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s bookworm main\n' "$arm64_mirror" > "$cache/apt/sources.list"
        printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s bookworm-security main\n' \
            http://deb.debian.org/debian-security >> "$cache/apt/sources.list"
        apt-get "${apt_arm64[@]}" update -qq || die "apt-get update of bookworm's arm64 lists failed"
        abi=$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 | sed -n 's/.*Depends: linux-image-\(6\.1\.0-[0-9]*\)-arm64.*/\1/p' | head -1)
        [ -n "$abi" ] || die "no linux-image-arm64 in bookworm's arm64 lists"
        (cd "$cache/debs" && apt-get "${apt_arm64[@]}" download -q "linux-image-$abi-arm64" "linux-headers-$abi-arm64" busybox-static >&2) \
            || die "downloading bookworm's arm64 kernel failed"
        for deb in "$cache"/debs/*.deb; do dpkg-deb -x "$deb" "$cache/x"; done
        rm -rf "$cache/debs" "$cache/apt/cache"
        echo "$abi" > "$cache/abi"
        touch "$cache/.kernel-ready"
    fi
    abi=$(cat "$cache/abi")
    kver=$abi-arm64
    headers=$cache/x/usr/src/linux-headers-$kver
    module_tree=$cache/x/lib/modules/$kver
    # The headers name their common part by its absolute path and take kbuild from the host.
    if [ ! -d "/usr/src/linux-headers-$abi-common" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-headers-$abi-common" > /dev/null \
            || die "linux-headers-$abi-common is not in the host's archive (apt-get update?)"
    fi
    for link in scripts tools; do ln -sfn "/usr/lib/linux-kbuild-6.1/$link" "$headers/$link"; done
    kernel=$cache/x/boot/vmlinuz-$kver
    busybox=$cache/x/bin/busybox
    transport=drivers/virtio/virtio_mmio
    share_device=virtio-9p-device
    modules_dir=$cache/modules-$kver
    modules_wanted='gpio-sim i2c-stub'
    # The guest's root is not the kernel's: its modules reach it as a share, with ours in updates/.
    build_modules() {
        guest_build_modules "$modules_dir" "$headers" 'gpio-sim i2c-stub' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- || return 1
        install -d "$module_tree/updates"
        install -m 0644 "$modules_dir/gpio-sim.ko" "$modules_dir/i2c-stub.ko" "$module_tree/updates/"
        depmod -b "$cache/x" "$kver"
    }
    qemu=(qemu-system-aarch64 -M virt -cpu cortex-a72 -m "${GUEST_MEM:-1G}")
    console=ttyAMA0
    root=$guest_root
    extra_args=" guest.modules=1 guest.repo=$repo guest.tmp=tmpfs"
    extra_shares=(-fsdev "local,id=modules,path=$module_tree,security_model=none,readonly=on"
                  -device "$share_device,fsdev=modules,mount_tag=modules"
                  -fsdev "local,id=repo,path=$repo,security_model=none,readonly=on,multidevs=remap"
                  -device "$share_device,fsdev=repo,mount_tag=repo")
fi

# ---- the modules: built again when the kernel or the recipe changes -----------------------------
stamp="$kver $(cat "$here/modules.sh" | md5sum | cut -c1-12) $modules_wanted"
if [ "$(cat "$modules_dir/.stamp" 2> /dev/null)" != "$stamp" ]; then
    echo "guest: building $modules_wanted for $kver" >&2
    build_modules || die "the modules for $kver did not build"
    echo "$stamp" > "$modules_dir/.stamp"
fi

# ---- the initramfs: busybox, what reaches the shares, gpio-sim, our init ----------------------
initrd=$cache/initrd-$kver.cpio.gz
initrd_stamp="$stamp $(cat "$here/init" | md5sum | cut -c1-12) $(echo $transport | md5sum | cut -c1-12)"
if [ ! -f "$initrd" ] || [ "$(cat "$initrd.stamp" 2> /dev/null)" != "$initrd_stamp" ]; then
    staging=$(mktemp -d)
    mkdir -p "$staging"/{bin,dev,proc,sys,lower,rw,newroot,mods}
    cp "$busybox" "$staging/bin/busybox"
    for module in $transport net/9p/9pnet net/9p/9pnet_virtio fs/netfs/netfs fs/fscache/fscache fs/9p/9p \
        fs/overlayfs/overlay fs/configfs/configfs; do
        [ -f "$module_tree/kernel/$module.ko" ] || die "$kver has no $module.ko"
        cp "$module_tree/kernel/$module.ko" "$staging/mods/"
        basename "$module.ko" >> "$staging/mods/order"
    done
    cp "$modules_dir/gpio-sim.ko" "$staging/mods/"
    echo gpio-sim.ko >> "$staging/mods/order"
    install -m 0755 "$here/init" "$staging/init"
    (cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.new"
    mv "$initrd.new" "$initrd"
    echo "$initrd_stamp" > "$initrd.stamp"
    rm -rf "$staging"
fi

# ---- boot ------------------------------------------------------------------------------------------
# The command reaches the guest as a file in a share of its own (the kernel command line is short).
command_dir=$(mktemp -d /tmp/kioskpad-guest-command.XXXXXX)
console_log=$(mktemp /tmp/kioskpad-guest-console.XXXXXX)
trap 'rm -rf "$command_dir"' EXIT
printf '%s\n' "$*" > "$command_dir/command.sh"
loglevel=3
[ "${GUEST_VERBOSE:-0}" = 1 ] && loglevel=7
append="console=$console panic=-1 loglevel=$loglevel rdinit=/init nokaslr no_timer_check guest.cwd=$PWD guest.verbose=${GUEST_VERBOSE:-0}$extra_args"
shares=(-fsdev "local,id=root,path=$root,security_model=none,readonly=on,multidevs=remap"
        -device "$share_device,fsdev=root,mount_tag=root"
        -fsdev "local,id=command,path=$command_dir,security_model=none,readonly=on"
        -device "$share_device,fsdev=command,mount_tag=command" "${extra_shares[@]}")
if [ -n "${GUEST_RWDIR:-}" ]; then
    append+=" guest.rwdir=$GUEST_RWDIR"
    shares+=(-fsdev "local,id=rw,path=$GUEST_RWDIR,security_model=none" -device "$share_device,fsdev=rw,mount_tag=rw")
fi
set +e
timeout --foreground -k 5 "${GUEST_TIMEOUT:-900}" "${qemu[@]}" -accel tcg,thread=multi -smp "${GUEST_SMP:-2}" \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev stdio,id=console,signal=on -serial chardev:console "${shares[@]}" \
    -kernel "$kernel" -initrd "$initrd" -append "$append" < /dev/null | tee "$console_log"
qemu_status=${PIPESTATUS[0]}
set -e
status=$(sed -n 's/^GUEST_EXIT=\([0-9]*\).*/\1/p' "$console_log" | tail -1)
[ -n "$status" ] || die "no GUEST_EXIT line (qemu exit $qemu_status; 124 is the time-out); the console is in $console_log"
rm -f "$console_log"
exit "$status"
