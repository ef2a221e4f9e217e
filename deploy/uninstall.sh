#!/usr/bin/env bash
# Removes the KioskPad service, binary, udev rules and service user. Keeps /etc/kioskpad and
# the journal in /var/lib/kioskpad unless --purge is given.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "uninstall.sh: run as root" >&2; exit 1; }
systemctl disable --now kioskpad.service 2>/dev/null || true
rm -f /etc/systemd/system/kioskpad.service /etc/udev/rules.d/99-kioskpad.rules /usr/local/bin/kioskpad
systemctl daemon-reload
udevadm control --reload-rules || true
if [ "${1:-}" = "--purge" ]; then
    rm -rf /etc/kioskpad /var/lib/kioskpad
    userdel kioskpad 2>/dev/null || true
    echo "uninstall: removed everything, including config and journal"
else
    echo "uninstall: kept /etc/kioskpad and /var/lib/kioskpad (use --purge to remove them)"
fi
