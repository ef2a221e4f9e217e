#!/usr/bin/env bash
# Removes what deploy/install.sh installed: stops and disables kioskpad.service, then removes
# the unit, the binaries (kioskpad, kioskpad-verifier), the udev rules and the docs. Keeps /etc/kioskpad (config, users,
# verifier secret), the audit journal in /var/lib/kioskpad and the system user kioskpad,
# unless --purge is given, which removes those too. dtparam=strict_gpiod stays in the Pi's
# config.txt: it is a safe setting for every GPIO program.
#
#   sudo deploy/uninstall.sh [--purge]
#   deploy/uninstall.sh --destdir DIR [--purge]     the same inside a staging root
set -euo pipefail
destdir=${DESTDIR:-}
purge=no
while [ $# -gt 0 ]; do
    case $1 in
        --purge) purge=yes; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --destdir=*) destdir=${1#*=}; shift ;;
        *) echo "uninstall.sh: unknown option '$1' (valid: --purge, --destdir DIR)" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "uninstall.sh: run as root (sudo deploy/uninstall.sh)" >&2; exit 1; }

if [ -z "$destdir" ]; then
    # The relay is switched off by the unit's ExecStopPost when it stops.
    systemctl disable --now kioskpad.service 2>/dev/null || true
fi
rm -f "$destdir/etc/systemd/system/kioskpad.service" "$destdir/etc/udev/rules.d/99-kioskpad.rules" \
    "$destdir/usr/local/bin/kioskpad" "$destdir/usr/local/bin/kioskpad-verifier"
rm -rf "$destdir/usr/local/share/doc/kioskpad"
if [ -z "$destdir" ]; then
    systemctl daemon-reload
    udevadm control --reload-rules 2>/dev/null || true
fi
if [ "$purge" = yes ]; then
    rm -rf "$destdir/etc/kioskpad" "$destdir/var/lib/kioskpad"
    if [ -z "$destdir" ]; then
        userdel kioskpad 2>/dev/null || true
    else
        for file in passwd shadow; do sed -i '/^kioskpad:/d' "$destdir/etc/$file" 2>/dev/null || true; done
        for file in group gshadow; do sed -i '/^kioskpad:/d; s/\(:\|,\)kioskpad\(,\|$\)/\1/; s/,$//' "$destdir/etc/$file" 2>/dev/null || true; done
    fi
    echo "uninstall: removed KioskPad, its config, users, secret, journal and the user kioskpad"
else
    echo "uninstall: removed KioskPad; kept /etc/kioskpad, /var/lib/kioskpad and the user kioskpad (--purge removes them)"
fi
