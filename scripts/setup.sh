#!/usr/bin/env bash
# Installs what building and testing KioskPad needs on Debian 12 / Raspberry Pi OS
# bookworm, only where missing. Safe to run again. Called by simulate.sh and test.sh.
set -euo pipefail

# Debian packages the build needs: libgpiod (v1.6 API) for the GPIO keypad backend.
packages=(libgpiod-dev pkg-config)

missing=()
for package in "${packages[@]+"${packages[@]}"}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The signature interop tests check our Standard Webhooks signatures against an
# independent implementation (PyPI: standardwebhooks).
if ! python3 -c 'import standardwebhooks' 2>/dev/null; then
    echo "setup: installing the standardwebhooks package (PyPI) for the signature interop tests" >&2
    python3 -m pip install --quiet --disable-pip-version-check standardwebhooks >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages standardwebhooks >&2
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /opt/swift/bin; do
        [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
    done
fi
command -v swift >/dev/null 2>&1 || {
    echo "setup: no Swift toolchain found; install Swift 6.1 or newer (https://www.swift.org/install/linux/) and put it on PATH" >&2
    exit 1
}
