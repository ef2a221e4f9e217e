#!/usr/bin/env bash
# Installs what building and testing KioskPad needs on Debian 12 / Raspberry Pi OS
# bookworm, only where missing. Safe to run again. Called by simulate.sh and test.sh.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/apt-install-missing.sh"

# Debian packages the build needs: libgpiod (v1.6 API) for the GPIO keypad backend, and
# Eclipse Mosquitto's client library for Home Assistant over MQTT.
apt_install_missing libgpiod-dev libmosquitto-dev pkg-config libsodium23

# Independent implementations the tests check us against (PyPI): Standard Webhooks
# signatures (standardwebhooks), the Prometheus text format (prometheus_client), and OSDP
# readers (libosdp: the reference C implementation's binding, played by Tests/OSDP/osdp-reader.py).
for module in standardwebhooks:standardwebhooks prometheus_client:prometheus-client osdp:libosdp==3.2.9; do
    if ! python3 -c "import ${module%%:*}" 2>/dev/null; then
        echo "setup: installing ${module#*:} (PyPI) for the interop tests" >&2
        python3 -m pip install --quiet --disable-pip-version-check "${module#*:}" >&2 2>/dev/null \
            || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${module#*:}" >&2
    fi
done

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /opt/swift/bin; do
        [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
    done
fi
command -v swift >/dev/null 2>&1 || {
    echo "setup: no Swift toolchain found; install Swift 6.3 or newer (https://www.swift.org/install/linux/) and put it on PATH" >&2
    exit 1
}

# SwiftPM 6.3 passes a package's traits to the compiler as -D flags in Set order, which a fresh
# hash seed redraws whenever it plans a build again (any change to the environment does that):
# KioskPad's three default traits then differ in order and every module of the project compiles
# again (swift-package-manager issue 10525, fixed after 6.3). A fixed seed keeps the order, and
# a build after an unchanged one does nothing. The tests themselves run with random seeds
# (test.sh clears it for `swift test`).
export SWIFT_DETERMINISTIC_HASHING=1
