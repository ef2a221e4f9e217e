#!/usr/bin/env bash
# CI check of deploy/install.sh and uninstall.sh in a staging root (--destdir): every installed
# file with its owner and mode, the service user, the binary (no path into a toolchain), the
# unit (systemd-analyze verify and security, exposure <= 2.0), dtparam=strict_gpiod added
# once, an upgrade (new binary, config, users and secret kept), then uninstall and --purge.
# Needs root. Builds the release binary as install.sh does unless KIOSKPAD_BINARY is set.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d /tmp/kioskpad-destdir.XXXXXX)
passed=0; failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { if [ "$2" = "$3" ]; then pass "$1 (= $3)"; else fail "$1: expected '$2', got '$3'"; fi; }

# A Raspberry Pi boot partition, as bookworm and trixie have it.
mkdir -p "$root/boot/firmware"
printf '# Raspberry Pi config\n[all]\ndtparam=audio=on\n' > "$root/boot/firmware/config.txt"
binary=()
[ -n "${KIOSKPAD_BINARY:-}" ] && binary=(--binary "$KIOSKPAD_BINARY")

# Installs only what it needs: no pip, no test packages, no test set-up script.
if grep -nwE 'pip|pip3|scripts/setup\.sh|standardwebhooks|prometheus_client|pytest' deploy/install.sh; then fail "install.sh mentions test-only tooling"; else pass "install.sh installs no test tooling"; fi

bash deploy/install.sh --destdir "$root" "${binary[@]}" | tee "$root.log"

uid=$(awk -F: '$1 == "kioskpad" { print $3 }' "$root/etc/passwd")
gid=$(awk -F: '$1 == "kioskpad" { print $3 }' "$root/etc/group")
check "service user: no login, no home" "/nonexistent:/usr/sbin/nologin" "$(awk -F: '$1 == "kioskpad" { print $6 ":" $7 }' "$root/etc/passwd")"
check "service user is in gpio and i2c" "kioskpad kioskpad" "$(awk -F: '$1 == "gpio" || $1 == "i2c" { print $4 }' "$root/etc/group" | tr '\n' ' ' | sed 's/ $//')"
expect() { # expect PATH MODE OWNER:GROUP (numeric)
    if [ -e "$root$1" ]; then check "$1" "$2 $3" "$(stat -c '%a %u:%g' "$root$1")"; else fail "$1 is missing"; fi
}
expect /usr/local/bin/kioskpad 755 0:0
expect /usr/local/bin/kioskpad-verifier 755 0:0
expect /etc/kioskpad 750 "0:$gid"
expect /etc/kioskpad/kioskpad.yaml 640 "0:$gid"
expect /etc/kioskpad/users 600 "$uid:$gid"
expect /etc/kioskpad/verifier.secret 600 0:0
expect /etc/systemd/system/kioskpad.service 644 0:0
expect /etc/udev/rules.d/99-kioskpad.rules 644 0:0
for guide in raspberry-pi door-hardware door-config door-daemon commands home-assistant; do
    expect "/usr/local/share/doc/kioskpad/$guide.md" 644 0:0
done
expect /usr/local/share/doc/kioskpad/README.md 644 0:0
if grep -q '^whsec_' "$root/etc/kioskpad/verifier.secret"; then pass "a fresh verifier secret"; else fail "verifier.secret is not a whsec_ secret"; fi
if [ ! -s "$root/etc/kioskpad/users" ]; then pass "users file starts empty"; else fail "users file is not empty"; fi
if grep -q 'installed, but not\|staged in' "$root.log"; then pass "install.sh does not claim a running service"; else fail "install.sh output: $(tail -3 "$root.log")"; fi
check "strict_gpiod added to /boot/firmware/config.txt once" 1 "$(grep -c '^dtparam=strict_gpiod' "$root/boot/firmware/config.txt")"

kp="$root/usr/local/bin/kioskpad"
ldd "$kp" > "$root.ldd" || true
echo "installed binary: $(stat -c %s "$kp") bytes; ldd:"; sed 's/^/    /' "$root.ldd"
if grep -qiE 'swift|toolchain|/opt/|/home/' "$root.ldd"; then fail "the binary loads something from a toolchain"; else pass "ldd shows no path into a toolchain ($(wc -l < "$root.ldd") libraries, all system)"; fi
if "$kp" config check "$root/etc/kioskpad/kioskpad.yaml" >/dev/null; then pass "the installed binary checks the installed config"; else fail "installed config does not check"; fi
# `kioskpad verifier ...` runs the kioskpad-verifier installed beside it.
if "$kp" verifier --version | grep -q '^kioskpad verifier '; then pass "kioskpad verifier runs the installed kioskpad-verifier"; else fail "kioskpad verifier --version: $("$kp" verifier --version 2>&1)"; fi

unit="$root/etc/systemd/system/kioskpad.service"
# verify wants the programs to exist: point the installed unit at the staged binary.
mkdir -p "$root.unit"
sed "s|/usr/local/bin/kioskpad|$kp|g" "$unit" > "$root.unit/kioskpad.service"
if systemd-analyze verify "$root.unit/kioskpad.service"; then pass "systemd-analyze verify on the installed unit"; else fail "systemd-analyze verify"; fi
exposure=$(systemd-analyze security --offline=true --root="$root" "$unit" 2>&1 | sed -n 's/.*Overall exposure level for kioskpad.service: \([0-9.]*\).*/\1/p')
echo "systemd-analyze security: exposure $exposure"
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then pass "security exposure $exposure <= 2.0"; else fail "security exposure '$exposure'"; fi

# Upgrade: the binary is replaced (a new inode, so a running daemon keeps its copy); config,
# users and secret are kept, strict_gpiod is not added twice.
echo "# edited by the installer's owner" >> "$root/etc/kioskpad/kioskpad.yaml"
echo 'alice:$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g' >> "$root/etc/kioskpad/users"
kept() { sha256sum "$root/etc/kioskpad/kioskpad.yaml" "$root/etc/kioskpad/users" "$root/etc/kioskpad/verifier.secret" | cut -c1-64 | tr '\n' ' '; }
before=$(kept); inode=$(stat -c %i "$kp")
bash deploy/install.sh --destdir "$root" --binary "$kp" > "$root.log2"
check "upgrade keeps config, users and secret" "$before" "$(kept)"
if [ "$(stat -c %i "$kp")" != "$inode" ]; then pass "upgrade replaces the binary atomically (new inode)"; else fail "binary not replaced"; fi
check "upgrade: users file keeps its owner and mode" "600 $uid:$gid" "$(stat -c '%a %u:%g' "$root/etc/kioskpad/users")"
check "strict_gpiod still once after the upgrade" 1 "$(grep -c '^dtparam=strict_gpiod' "$root/boot/firmware/config.txt")"

bash deploy/uninstall.sh --destdir "$root"
if [ ! -e "$kp" ] && [ ! -e "$root/usr/local/bin/kioskpad-verifier" ] && [ ! -e "$unit" ] && [ ! -e "$root/etc/udev/rules.d/99-kioskpad.rules" ] && [ -f "$root/etc/kioskpad/users" ] && grep -q '^kioskpad:' "$root/etc/passwd"; then
    pass "uninstall removes both binaries, unit and rules; keeps config, users and the user"
else
    fail "uninstall: $(find "$root" -type f | sed "s|$root||" | tr '\n' ' ')"
fi
bash deploy/uninstall.sh --destdir "$root" --purge
if [ ! -e "$root/etc/kioskpad" ] && ! grep -q 'kioskpad' "$root/etc/passwd" "$root/etc/group"; then pass "uninstall --purge removes config and the user"; else fail "purge left: $(grep kioskpad "$root/etc/passwd" "$root/etc/group")"; fi

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
