#!/usr/bin/env bash
# Installs KioskPad as a systemd service on Raspberry Pi OS / Debian (run as root from the
# repository): release build, binary, service user, config in /etc/kioskpad, udev rules,
# systemd unit, then enables and starts the service. Safe to run again (keeps the config).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root (sudo deploy/install.sh)" >&2; exit 1; }
source scripts/setup.sh

echo "install: building (release)"
swift build -c release --product kioskpad
install -m 0755 "$(swift build -c release --show-bin-path)/kioskpad" /usr/local/bin/kioskpad

for group in gpio i2c; do getent group "$group" >/dev/null || groupadd --system "$group"; done
if ! id kioskpad >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --groups gpio,i2c kioskpad
fi

install -d -m 0750 -o root -g kioskpad /etc/kioskpad
if [ ! -f /etc/kioskpad/kioskpad.yaml ]; then
    install -m 0640 -o root -g kioskpad config/pi-4x4-lcd1602.yaml /etc/kioskpad/kioskpad.yaml
    echo "install: wrote /etc/kioskpad/kioskpad.yaml - edit it for your wiring and verifier"
fi
if [ ! -f /etc/kioskpad/users ]; then
    install -m 0640 -o root -g kioskpad /dev/null /etc/kioskpad/users
    echo "install: /etc/kioskpad/users is empty - add users: kioskpad pin hash --user NAME | sudo tee -a /etc/kioskpad/users"
fi
if [ ! -f /etc/kioskpad/verifier.secret ]; then
    (umask 077; /usr/local/bin/kioskpad verifier secret > /etc/kioskpad/verifier.secret)
fi

install -m 0644 deploy/99-kioskpad.rules /etc/udev/rules.d/99-kioskpad.rules
udevadm control --reload-rules && udevadm trigger --subsystem-match=gpio --subsystem-match=i2c-dev || true
install -m 0644 deploy/kioskpad.service /etc/systemd/system/kioskpad.service
systemctl daemon-reload
/usr/local/bin/kioskpad config check /etc/kioskpad/kioskpad.yaml
systemctl enable --now kioskpad.service
echo "install: done. Logs: journalctl -u kioskpad -f    Health: curl -s 127.0.0.1:9464/healthz"
