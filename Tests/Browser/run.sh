#!/usr/bin/env bash
# The site console in a real browser, once per store: Debian's chromium and chromedriver
# (headless) driven by Selenium (PyPI), against `kioskpad verifier serve` with its console
# on; then the sign-in through an OpenID provider (openid_browser.py, a provider built on
# PyPI's pyop on loopback). Installs what is missing (no browser download: the system
# chromium is used).
#   Tests/Browser/run.sh [--binary PATH] [--screenshots DIR]
# The binary defaults to .build/debug/kioskpad (scripts/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/setup.sh
binary=.build/debug/kioskpad
screenshots=()
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --screenshots) mkdir -p "$2"; screenshots=(--screenshots "$2"); shift 2 ;;
        *) echo "usage: $0 [--binary PATH] [--screenshots DIR]" >&2; exit 2 ;;
    esac
done
apt_install_missing chromium chromium-driver postgresql libqrencode4 openssl
if ! python3 -c "import selenium" 2>/dev/null; then
    echo "browser: installing selenium (PyPI)" >&2
    python3 -m pip install --quiet --disable-pip-version-check selenium >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages selenium >&2
fi
# The OpenID provider for the sign-in suite: pyop (IdentityPython) behind Flask.
if ! python3 -c "import pyop, flask" 2>/dev/null; then
    echo "browser: installing pyop and Flask (PyPI) for the OpenID provider" >&2
    python3 -m pip install --quiet --disable-pip-version-check pyop flask >&2 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages pyop flask >&2
fi
# `kioskpad verifier serve` runs the kioskpad-verifier beside the binary.
[ -x "$binary" ] || swift build --product kioskpad
[ -x "$(dirname "$binary")/kioskpad-verifier" ] || swift build --product kioskpad-verifier
echo "browser: $(chromium --version 2>/dev/null | head -1), $(chromedriver --version 2>/dev/null | cut -d' ' -f1-2), selenium $(python3 -c 'import selenium; print(selenium.__version__)')"
status=0
for store in sqlite postgres; do
    # Selenium Manager must not go looking for a browser on the internet.
    SE_OFFLINE=true python3 Tests/Browser/console_browser.py --binary "$binary" --store "$store" "${screenshots[@]}" || status=1
    # Sign-in through the identity provider; on SQLite also a person removed there, whose
    # session is measured ending at its one-minute session_minutes.
    removal=()
    [ "$store" = sqlite ] && removal=(--removal)
    SE_OFFLINE=true python3 Tests/Browser/openid_browser.py --binary "$binary" --store "$store" "${removal[@]}" || status=1
done
exit $status
