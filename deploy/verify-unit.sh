#!/usr/bin/env bash
# Checks deploy/kioskpad.service with `systemd-analyze verify`, pointing ExecStart at the
# freshly built binary (verify insists that the program exists). Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v systemd-analyze >/dev/null || { apt-get install -y -qq systemd >/dev/null; }
binary="$(swift build --show-bin-path)/kioskpad"
[ -x "$binary" ] || swift build --product kioskpad >&2
dir=$(mktemp -d)
sed "s|/usr/local/bin/kioskpad|$binary|" deploy/kioskpad.service > "$dir/kioskpad.service"
systemd-analyze verify "$dir/kioskpad.service"
echo "deploy/kioskpad.service: systemd-analyze verify ok"
