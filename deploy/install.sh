#!/usr/bin/env bash
# Installs or upgrades KioskPad as a systemd service on Raspberry Pi OS (bookworm, trixie;
# 64-bit) and Debian 12/13. Run it from a clone of the repository:
#
#   sudo deploy/install.sh                  install, or upgrade (keeps config and users)
#   deploy/install.sh --destdir DIR         stage every file under DIR (no services touched)
#
# What it does, in order:
#   1. installs the build packages that are missing (libgpiod-dev, libmosquitto-dev, pkg-config) and
#      libsodium23 (pairing loads it); nothing else;
#   2. finds Swift (PATH, swiftly's default places, /opt/swift) and builds the release binaries
#      kioskpad (the door) and kioskpad-verifier (the site server, what `kioskpad verifier ...`
#      runs) with the Swift runtime linked in (--static-swift-stdlib), as the user who ran
#      sudo, so .build/ stays theirs;
#   3. creates the system user kioskpad (groups gpio, i2c, input) with systemd-sysusers;
#   4. installs /usr/local/bin/kioskpad and kioskpad-verifier, the unit, udev rules and docs; creates
#      /etc/kioskpad/kioskpad.yaml (from config/pi-4x4-lcd1602.yaml), an empty users file
#      (0600, owned by kioskpad) and a verifier secret (0600) only where none exist;
#   5. on a Raspberry Pi, adds dtparam=strict_gpiod to config.txt once (a released GPIO
#      then becomes an input, so a crashed daemon cannot hold the door relay on);
#   6. starts (or restarts, after an upgrade) the service only when it can run: with no
#      users yet it asks for the first one on a terminal, or prints the command to run.
#
# Options: --destdir DIR (or DESTDIR=DIR): install into a staging root, for packaging and
# tests. --binary FILE: install this kioskpad, and the kioskpad-verifier beside it, instead of
# building. --no-start: install only.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

destdir=${DESTDIR:-}
binary=''
start=yes
while [ $# -gt 0 ]; do
    case $1 in
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --destdir=*) destdir=${1#*=}; shift ;;
        --binary) binary=${2:?--binary needs a file}; shift 2 ;;
        --no-start) start=no; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (valid: --destdir DIR, --binary FILE, --no-start, --help)" >&2; exit 2 ;;
    esac
done
say() { echo "install: $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }

if [ -n "$destdir" ]; then
    mkdir -p "$destdir/etc"
    destdir=$(cd "$destdir" && pwd)
    start=no
fi
[ "$(id -u)" -eq 0 ] || die "run as root: sudo deploy/install.sh (it builds as you and installs as root)"

# ---- 1. build packages -----------------------------------------------------------------------
if [ -z "$binary" ]; then
    missing=()
    for package in libgpiod-dev libmosquitto-dev pkg-config libsodium23; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
fi

# ---- 2. build as the invoking user ----------------------------------------------------------
builder=${SUDO_USER:-root}
[ "$builder" = root ] || id "$builder" >/dev/null 2>&1 || builder=root
builder_home=$(getent passwd "$builder" | cut -d: -f6)
as_builder() {
    if [ "$builder" = root ]; then "$@"; else runuser -u "$builder" -- env HOME="$builder_home" PATH="$PATH" "$@"; fi
}
find_swift() {
    local candidate
    # The user's login environment first: swiftly's env.sh is sourced from ~/.profile.
    local login
    if [ "$builder" = root ]; then login=$(command -v swift || true); else login=$(runuser -l "$builder" -c 'command -v swift' 2>/dev/null || true); fi
    for candidate in "$login" \
        "$builder_home/.local/share/swiftly/bin/swift" "$builder_home/.local/bin/swift" "$builder_home/.swiftly/bin/swift" \
        /opt/swift/usr/bin/swift /usr/share/swift/usr/bin/swift /usr/bin/swift; do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
}
if [ -z "$binary" ]; then
    if [ "$(getconf LONG_BIT)" != 64 ]; then
        die "Swift needs a 64-bit OS (this is $(uname -m), $(getconf LONG_BIT)-bit): install Raspberry Pi OS (64-bit) and run this again"
    fi
    swift=$(find_swift) || die "no Swift toolchain found (looked on PATH, in ~/.local/share/swiftly/bin, ~/.local/bin, /opt/swift/usr/bin, /usr/bin).
  Install Swift 6.3 or newer as $builder, then run this again:
    curl -O https://download.swift.org/swiftly/linux/swiftly-\$(uname -m).tar.gz
    tar zxf swiftly-\$(uname -m).tar.gz && ./swiftly init
  (docs/raspberry-pi.md, step 2, has the details)"
    export PATH="$(dirname "$swift"):$PATH"
    say "building a release binary as $builder with $("$swift" --version 2>/dev/null | head -1)"
    # An older install.sh built as root here; give the build folder back to its user.
    if [ -d .build ] && [ "$builder" != root ] && [ "$(stat -c %U .build)" != "$builder" ]; then
        chown -R "$builder:" .build
    fi
    as_builder swift build -c release --static-swift-stdlib --product kioskpad
    as_builder swift build -c release --static-swift-stdlib --product kioskpad-verifier
    binary="$(as_builder swift build -c release --static-swift-stdlib --show-bin-path)/kioskpad"
fi
server_binary=$(dirname "$binary")/kioskpad-verifier
for program in "$binary" "$server_binary"; do
    [ -x "$program" ] || die "no binary at $program"
    if ldd "$program" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/swift|swiftly' >/dev/null; then
        die "$program loads the Swift runtime from a toolchain (build it with --static-swift-stdlib):
$(ldd "$program")"
    fi
done

# ---- 3. the service user ---------------------------------------------------------------------
systemd-sysusers --root="${destdir:-/}" "$repo/deploy/kioskpad.sysusers"
id_of() { awk -F: -v name="$1" '$1 == name { print $3 }' "$destdir/etc/$2"; }
uid=$(id_of kioskpad passwd); gid=$(id_of kioskpad group)
[ -n "$uid" ] && [ -n "$gid" ] || die "systemd-sysusers did not create the user kioskpad"

# ---- 4. files --------------------------------------------------------------------------------
upgrade=no
[ -x "$destdir/usr/local/bin/kioskpad" ] && upgrade=yes
install -d -m 0755 "$destdir/usr/local/bin"
for program in "$binary" "$server_binary"; do
    name=$(basename "$program")
    install -m 0755 "$program" "$destdir/usr/local/bin/.$name.new"
    # Debug info off (about a third of the size); symbol names stay, so crash backtraces stay readable.
    strip --strip-debug "$destdir/usr/local/bin/.$name.new" 2>/dev/null || true
    mv -f "$destdir/usr/local/bin/.$name.new" "$destdir/usr/local/bin/$name"   # atomic: a running daemon keeps its copy
done
kioskpad="$destdir/usr/local/bin/kioskpad"

install -d -m 0750 -o 0 -g "$gid" "$destdir/etc/kioskpad"
if [ ! -f "$destdir/etc/kioskpad/kioskpad.yaml" ]; then
    install -m 0640 -o 0 -g "$gid" config/pi-4x4-lcd1602.yaml "$destdir/etc/kioskpad/kioskpad.yaml"
    say "wrote /etc/kioskpad/kioskpad.yaml from config/pi-4x4-lcd1602.yaml: edit it for your wiring and verifier"
else
    say "kept /etc/kioskpad/kioskpad.yaml"
fi
users="$destdir/etc/kioskpad/users"
if [ ! -f "$users" ]; then
    install -m 0600 -o "$uid" -g "$gid" /dev/null "$users"
else
    say "kept /etc/kioskpad/users"
fi
if [ ! -f "$destdir/etc/kioskpad/verifier.secret" ]; then
    (umask 077; "$kioskpad" verifier secret > "$destdir/etc/kioskpad/verifier.secret")
fi
chown 0:0 "$destdir/etc/kioskpad/verifier.secret"; chmod 0600 "$destdir/etc/kioskpad/verifier.secret"

install -D -m 0644 deploy/99-kioskpad.rules "$destdir/etc/udev/rules.d/99-kioskpad.rules"
install -D -m 0644 deploy/kioskpad.service "$destdir/etc/systemd/system/kioskpad.service"
install -D -m 0644 README.md "$destdir/usr/local/share/doc/kioskpad/README.md"
# The door's guides (the site server's are in the kioskpad-verifier package's docs).
for guide in docs/raspberry-pi.md docs/door-hardware.md docs/door-config.md docs/door-daemon.md docs/commands.md docs/home-assistant.md; do
    install -D -m 0644 "$guide" "$destdir/usr/local/share/doc/kioskpad/$(basename "$guide")"
done

# ---- 5. Raspberry Pi: released GPIOs become inputs ----------------------------------------------
for boot in "$destdir/boot/firmware/config.txt" "$destdir/boot/config.txt"; do
    [ -f "$boot" ] || continue
    if grep -q '^dtparam=strict_gpiod' "$boot"; then
        say "${boot#$destdir} already has dtparam=strict_gpiod"
    else
        printf '\n[all]\n# KioskPad: a released GPIO becomes an input, so a crashed program cannot hold the door relay on\ndtparam=strict_gpiod\n' >> "$boot"
        say "added dtparam=strict_gpiod to ${boot#$destdir}: reboot once for it to take effect (sudo reboot)"
    fi
    break
done

if [ -n "$destdir" ]; then
    say "staged in $destdir (no users created on this system, no services touched)"
    exit 0
fi
udevadm control --reload-rules 2>/dev/null && udevadm trigger --subsystem-match=gpio --subsystem-match=i2c-dev --subsystem-match=input 2>/dev/null || true
systemctl daemon-reload

# ---- 6. start only what can run ---------------------------------------------------------------
config=/etc/kioskpad/kioskpad.yaml
ready() { runuser -u kioskpad -- "$kioskpad" config check --with-files "$config" >/dev/null 2>&1; }
if [ "$start" = yes ] && ! ready && [ ! -s "$users" ] && [ -t 0 ]; then
    say "there are no users yet; add the first one now (or press Enter to skip)"
    read -r -p "user name: " name
    if [ -n "$name" ]; then
        if "$kioskpad" pin hash --user "$name" --confirm >> "$users"; then say "added $name"; fi
    fi
fi
if ! ready; then
    problem=$(runuser -u kioskpad -- "$kioskpad" config check --with-files "$config" 2>&1 | grep -v '^note:' || true)
    cat <<EOF
install: installed, but not (re)started: a start would fail with
    $problem
  Fix that, then start it. For the users file:
    sudo sh -c 'kioskpad pin hash --user NAME --confirm >> /etc/kioskpad/users'
    sudo kioskpad config check --with-files /etc/kioskpad/kioskpad.yaml
    sudo systemctl enable --now kioskpad
EOF
    exit 0
fi
if [ "$start" = no ]; then
    say "installed; start it with: sudo systemctl enable --now kioskpad"
    exit 0
fi
systemctl enable kioskpad.service >/dev/null 2>&1
if [ "$upgrade" = yes ]; then say "restarting the service with the new binary"; fi
if ! systemctl restart kioskpad.service; then
    die "kioskpad did not start; see: journalctl -u kioskpad -n 30"
fi
say "kioskpad is running. Logs: journalctl -u kioskpad -f    Health: curl -s 127.0.0.1:9464/healthz"
