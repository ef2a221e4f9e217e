# Sourced by Tests/Guest/run.sh. Debian's kernels (amd64 and arm64 alike) leave gpio-sim out
# (`# CONFIG_GPIO_SIM is not set`) and its arm64 kernel leaves i2c-stub out too; this builds
# them as out-of-tree modules from linux-source-6.1 against a kernel's headers.
#
#   guest_build_modules DIR HEADERS "gpio-sim [i2c-stub]" [make arguments (ARCH=, CROSS_COMPILE=)]
#
# leaves DIR/gpio-sim.ko (and DIR/i2c-stub.ko). Nothing else of the kernel tree is unpacked.

guest_build_modules() {
    local dir=$1 headers=$2 wanted=$3
    shift 3
    local source_tar top objects='' module
    source_tar=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null || ls /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -1)
    [ -n "$source_tar" ] || { echo "guest: no kernel source (apt-get install linux-source-6.1)" >&2; return 1; }
    top=$(basename "$source_tar" .tar.xz)
    rm -rf "$dir"
    mkdir -p "$dir"
    # gpio-sim.c with the two files it needs from the tree: gpiolib.h, and the interrupt
    # simulator (IRQ_SIM is not built into Debian's kernels either, so it goes into the module).
    tar -C "$dir" -xJf "$source_tar" "$top/drivers/gpio/gpio-sim.c" "$top/drivers/gpio/gpiolib.h" \
        "$top/kernel/irq/irq_sim.c" "$top/drivers/i2c/i2c-stub.c"
    mv "$dir/$top/drivers/gpio/gpio-sim.c" "$dir/gpio_sim_main.c"
    mv "$dir/$top/drivers/gpio/gpiolib.h" "$dir/$top/kernel/irq/irq_sim.c" "$dir/$top/drivers/i2c/i2c-stub.c" "$dir/"
    rm -rf "${dir:?}/$top"
    # A module may call only exported symbols: irq_to_desc() is not exported, and
    # generic_handle_irq() (exported) reaches the same flow handler, handle_simple_irq().
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$dir/irq_sim.c"
    grep -q 'generic_handle_irq(irqnum);' "$dir/irq_sim.c" \
        || { echo "guest: irq_sim.c in $top no longer reads as expected" >&2; return 1; }
    for module in $wanted; do objects+=" $module.o"; done
    printf 'obj-m :=%s\ngpio-sim-y := gpio_sim_main.o irq_sim.o\n' "$objects" > "$dir/Kbuild"
    make -s -C "$headers" M="$dir" "$@" modules >&2 || { echo "guest: building$objects against $headers failed" >&2; return 1; }
    for module in $wanted; do [ -f "$dir/$module.ko" ] || { echo "guest: no $module.ko was built" >&2; return 1; }; done
}
