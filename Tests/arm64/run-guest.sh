#!/usr/bin/env bash
# Runs one shell command as root in an arm64 Linux system under emulation: qemu-system-aarch64
# (-M virt, a Cortex-A72 as in a Raspberry Pi 4, TCG) boots Debian's arm64 kernel with gpio-sim
# and i2c-stub built for it, and the command runs in the Debian trixie arm64 root of
# scripts/cross-arm64.sh (read-only, with a throw-away tmpfs overlay). The clone is mounted at
# its own path (read-only), gpio-sim is loaded and the kernel's modules are in /lib/modules, so
# modprobe works.
#
#   Tests/arm64/run-guest.sh 'command'       exit status: the command's; 125 the harness failed
#   env: GUEST_RWDIR=/dir (shared read-write at the same path), GUEST_TIMEOUT (s, 900),
#        GUEST_MEM (1G), GUEST_SMP (2), GUEST_VERBOSE=1 (kernel messages)
#
# Debian's arm64 kernels leave gpio-sim and i2c-stub out (as the amd64 ones do), so they are
# built here from linux-source-6.1 with Debian's aarch64 cross compiler against the arm64
# kernel's headers (and the host's kbuild tools, which Debian ships for any architecture). The
# kernel, its headers and busybox-static come from bookworm's archive for arm64 through an apt
# state of this script's own (the host's apt is not changed). Cached in
# $KIOSKPAD_ARM64_CACHE/guest-kernel; the first run takes a few minutes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$repo/scripts/arm64/toolchain.sh"
die() { echo "run-guest: $*" >&2; exit 125; }
[ $# -ge 1 ] || die "usage: Tests/arm64/run-guest.sh 'command'"
[ -f "$arm64_target_root/.kioskpad-ready" ] || die "no trixie arm64 root (scripts/cross-arm64.sh --setup-only)"
guest=$arm64_cache/guest-kernel
mkdir -p "$guest"

# ---- 1. host tools ----------------------------------------------------------------------------
apt_install_missing qemu-system-arm gcc-aarch64-linux-gnu linux-source-6.1 linux-kbuild-6.1 kmod cpio xz-utils make bc

# ---- 2. bookworm's arm64 kernel, its headers and busybox (private apt state) ------------------
apt_arm64=(-o Dir::State="$guest/apt/state" -o Dir::Cache="$guest/apt/cache" -o Dir::State::status=/dev/null
           -o Dir::Etc::SourceList="$guest/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root)
if [ ! -f "$guest/.ready" ]; then
    rm -rf "$guest"; mkdir -p "$guest/apt/state/lists/partial" "$guest/apt/cache/archives/partial" "$guest/debs"
    cat > "$guest/apt/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $arm64_mirror bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
EOF
    apt-get "${apt_arm64[@]}" update -qq
    abi=$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 | sed -n 's/.*Depends: linux-image-\(6\.1\.0-[0-9]*\)-arm64.*/\1/p' | head -1)
    [ -n "$abi" ] || die "no linux-image-arm64 in bookworm's arm64 lists"
    (cd "$guest/debs" && apt-get "${apt_arm64[@]}" download -q "linux-image-$abi-arm64" "linux-headers-$abi-arm64" busybox-static >&2)
    mkdir -p "$guest/x"
    for deb in "$guest"/debs/*.deb; do dpkg-deb -x "$deb" "$guest/x"; done
    rm -rf "$guest/debs" "$guest/apt/cache"
    echo "$abi" > "$guest/abi"
    touch "$guest/.ready"
fi
abi=$(cat "$guest/abi")
kver=$abi-arm64
headers=$guest/x/usr/src/linux-headers-$kver
modules=$guest/x/lib/modules/$kver
# The headers include the common part by its absolute path, and take kbuild from the host.
if [ ! -d "/usr/src/linux-headers-$abi-common" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-headers-$abi-common" >/dev/null \
        || die "linux-headers-$abi-common is not in the host's archive (apt-get update?)"
fi
for link in scripts tools; do ln -sfn "/usr/lib/linux-kbuild-6.1/$link" "$headers/$link"; done

# ---- 3. gpio-sim and i2c-stub for that kernel -------------------------------------------------
mods=$guest/mods
if [ ! -f "$mods/gpio-sim.ko" ] || [ ! -f "$mods/i2c-stub.ko" ] || [ "$0" -nt "$mods/gpio-sim.ko" ]; then
    rm -rf "$mods"; mkdir -p "$mods"
    source_tar=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || ls /usr/src/linux-source-*.tar.xz | tail -1)
    top=$(basename "$source_tar" .tar.xz)
    tar -C "$mods" -xJf "$source_tar" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" \
        "$top/kernel/irq/irq_sim.c" "$top/drivers/i2c/i2c-stub.c"
    mv "$mods/$top/drivers/gpio/gpio-sim.c" "$mods/gpio_sim_main.c"
    mv "$mods/$top/drivers/gpio/gpiolib.h" "$mods/$top/kernel/irq/irq_sim.c" "$mods/$top/drivers/i2c/i2c-stub.c" "$mods/"
    rm -rf "${mods:?}/$top"
    # This kernel has no IRQ_SIM; built into the module, irq_sim.c may only use exported symbols:
    # generic_handle_irq() instead of the unexported irq_to_desc(), same flow handler.
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$mods/irq_sim.c"
    printf 'obj-m := gpio-sim.o i2c-stub.o\ngpio-sim-y := gpio_sim_main.o irq_sim.o\n' > "$mods/Kbuild"
    make -s -C "$headers" M="$mods" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules >&2 \
        || die "building gpio-sim and i2c-stub for $kver failed"
    install -d "$modules/updates"
    install -m 0644 "$mods/gpio-sim.ko" "$mods/i2c-stub.ko" "$modules/updates/"
    depmod -b "$guest/x" "$kver"
fi

# ---- 4. an initramfs: busybox, the modules that mount the 9p shares -----------------------------
initrd=$guest/initrd.cpio.gz
if [ ! -f "$initrd" ] || [ "$0" -nt "$initrd" ]; then
    t=$(mktemp -d)
    mkdir -p "$t"/{bin,dev,proc,sys,target,rw,newroot,mods}
    cp "$guest/x/bin/busybox" "$t/bin/busybox"
    for m in drivers/virtio/virtio_mmio net/9p/9pnet net/9p/9pnet_virtio fs/netfs/netfs fs/fscache/fscache \
             fs/9p/9p fs/overlayfs/overlay fs/configfs/configfs; do
        cp "$modules/kernel/$m.ko" "$t/mods/"; echo "$(basename "$m").ko" >> "$t/mods/order"
    done
    cat > "$t/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
arg() { sed -n "s/.*\bguest\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
bail() { echo "GUEST_EXIT=126 ($*)"; poweroff -f; }
for m in $(cat /mods/order); do insmod /mods/$m || bail "insmod $m"; done
p9() { mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,$3 $1 $2 || bail "9p $1"; }
p9 target /target ro,cache=loose
mount -t tmpfs -o mode=0755 tmpfs /rw && mkdir /rw/upper /rw/work
mount -t overlay -o lowerdir=/target,upperdir=/rw/upper,workdir=/rw/work overlay /newroot || bail overlay
R=/newroot
mount -t proc proc $R/proc; mount -t sysfs sys $R/sys; mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm; mount -t devpts devpts $R/dev/pts; mount -t tmpfs tmpfs $R/dev/shm
mount -t tmpfs tmpfs $R/run; mount -t tmpfs tmpfs $R/tmp
mount -t configfs configfs $R/sys/kernel/config
KV=$(uname -r); mkdir -p $R/lib/modules/$KV; p9 modules $R/lib/modules/$KV ro
chroot $R /sbin/modprobe gpio-sim || bail "modprobe gpio-sim"
REPO=$(arg repo); mkdir -p $R$REPO; p9 repo $R$REPO ro
RWD=$(arg rwdir); if [ -n "$RWD" ]; then mkdir -p $R$RWD; p9 rw $R$RWD rw; fi
ip link set lo up 2>/dev/null
stty -F /dev/console -onlcr 2>/dev/null
chroot $R /bin/sh -c "cd '$(arg cwd)' 2>/dev/null || cd /; export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb; exec /bin/sh $REPO/.guest-command.sh" </dev/console >/dev/console 2>&1
rc=$?
echo "GUEST_EXIT=$rc"
sync; umount $R$RWD 2>/dev/null
poweroff -f
INIT
    chmod +x "$t/init"
    (cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
    mv "$initrd.tmp" "$initrd"; rm -rf "$t"
fi

# ---- 5. boot -------------------------------------------------------------------------------------
# The command reaches the guest as a file in the clone's share (the kernel command line is short).
command_file=$repo/.guest-command.sh
printf '%s\n' "$*" > "$command_file"
log=$(mktemp /tmp/kioskpad-arm64-console.XXXXXX)
trap 'rm -f "$command_file"' EXIT
loglevel=3; [ "${GUEST_VERBOSE:-0}" = 1 ] && loglevel=7
append="console=ttyAMA0 panic=-1 loglevel=$loglevel rdinit=/init guest.repo=$repo guest.cwd=$PWD"
shares=(-fsdev "local,id=target,path=$arm64_target_root,security_model=none,readonly=on,multidevs=remap"
        -device virtio-9p-device,fsdev=target,mount_tag=target
        -fsdev "local,id=modules,path=$modules,security_model=none,readonly=on"
        -device virtio-9p-device,fsdev=modules,mount_tag=modules
        -fsdev "local,id=repo,path=$repo,security_model=none,readonly=on,multidevs=remap"
        -device virtio-9p-device,fsdev=repo,mount_tag=repo)
if [ -n "${GUEST_RWDIR:-}" ]; then
    append+=" guest.rwdir=$GUEST_RWDIR"
    shares+=(-fsdev "local,id=rw,path=$GUEST_RWDIR,security_model=none" -device virtio-9p-device,fsdev=rw,mount_tag=rw)
fi
set +e
timeout --foreground -k 5 "${GUEST_TIMEOUT:-900}" qemu-system-aarch64 -M virt -cpu cortex-a72 \
    -accel tcg,thread=multi -m "${GUEST_MEM:-1G}" -smp "${GUEST_SMP:-2}" \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev stdio,id=console,signal=on -serial chardev:console "${shares[@]}" \
    -kernel "$guest/x/boot/vmlinuz-$kver" -initrd "$initrd" -append "$append" </dev/null | tee "$log"
qemu_status=${PIPESTATUS[0]}
set -e
status=$(sed -n 's/^GUEST_EXIT=\([0-9]*\).*/\1/p' "$log" | tail -1)
[ -n "$status" ] || { echo "run-guest: no GUEST_EXIT line (qemu exit $qemu_status; 124 is the time-out); console in $log" >&2; exit 125; }
rm -f "$log"
exit "$status"
