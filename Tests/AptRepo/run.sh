#!/usr/bin/env bash
# The signed apt repository (scripts/apt-repo.sh), end to end, as a user of it: the
# repository built from revision 1 of the packages and served on loopback; a clean Debian 12
# root (an overlay on the deployment test's root, so that root is untouched) given the key and
# a deb822 .sources file with Signed-By, as docs/raspberry-pi.md says; `apt-get install
# kioskpad kioskpad-verifier`; revision 2 published; `apt-get upgrade` keeps the config, the
# users, the journal and the state; a repository signed with another key, and one not signed,
# are refused by apt. Services are not started in the root (no systemd there; the HIL
# deployment test covers the restart on upgrade).
#
#   Tests/AptRepo/run.sh --root DIR --debs DIR [--suite bookworm|trixie] [--archive]
#
# DIR (--root): a Debian root of that suite (default bookworm) with the packages' dependencies
# (Tests/HIL/run.sh --prepare-only makes CI's Debian 12 amd64 one), or an arm64 root run under
# qemu-user (scripts/cross-arm64.sh's trixie and bookworm roots); --debs: revisions 1 and 2 of
# kioskpad and kioskpad-verifier for that suite and the root's architecture (scripts/package-deb.sh
# --revision 1,2; bookworm's arm64 ones are -N~deb12, trixie's amd64 ones -N+deb13). --archive keeps the root's own Debian
# sources beside the repository, for a root that lacks the packages' Depends (as a Pi has its
# distribution's archive). Runs as root.
set -uo pipefail

root='' debs='' suite=bookworm archive=no
while [ $# -gt 0 ]; do
    case $1 in
        --root) root=$2; shift 2 ;;
        --debs) debs=$2; shift 2 ;;
        --suite) suite=$2; shift 2 ;;
        --archive) archive=yes; shift ;;
        *) echo "apt-repo-test: unknown option '$1' (valid: --root DIR, --debs DIR, --suite bookworm|trixie, --archive)" >&2; exit 2 ;;
    esac
done
case $suite in bookworm | trixie) ;; *) echo "apt-repo-test: --suite must be bookworm or trixie, not '$suite'" >&2; exit 2 ;; esac
[ -d "$root/etc/apt" ] || { echo "apt-repo-test: --root must be a Debian root (Tests/HIL/run.sh --e2e-root DIR --prepare-only)" >&2; exit 2; }
[ -d "$debs" ] || { echo "apt-repo-test: --debs must be the folder scripts/package-deb.sh wrote" >&2; exit 2; }
repo_script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/apt-repo.sh
work=$(mktemp -d /tmp/kioskpad-apt-test.XXXXXX)
merged=$work/root
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "apt-repo: ok - $1"; }
fail() { failed=$((failed + 1)); echo "apt-repo: FAILED - $1"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: wanted '$2', got '$3'"; fi; }
server=''
cleanup() {
    [ -n "$server" ] && kill "$server" 2> /dev/null
    umount "$merged/proc" 2> /dev/null
    umount "$merged" 2> /dev/null
    rm -rf "$work"
}
trap cleanup EXIT

arch=$(chroot "$root" dpkg --print-architecture) || { echo "apt-repo-test: cannot run dpkg in $root" >&2; exit 2; }
# This suite's packages (scripts/package-deb.sh --suite): arm64 bookworm's are -N~deb12, amd64
# trixie's -N+deb13, the others -N.
case $suite:$arch in bookworm:arm64) suffix='~deb12' ;; trixie:amd64) suffix='+deb13' ;; *) suffix='' ;; esac
deb() { ls "$debs"/$1_*-$2${suffix}_$arch.deb 2> /dev/null | head -1; }
for name in kioskpad kioskpad-verifier; do
    for revision in 1 2; do [ -n "$(deb $name $revision)" ] || { echo "apt-repo-test: no $name revision $revision in $debs" >&2; exit 2; }; done
done

# Keys and repositories: the site's (revision 1 now, 2 later), one signed with another key, one unsigned.
bash "$repo_script" --make-key "$work/site-key.asc" 2> "$work/keys.log"
bash "$repo_script" --make-key "$work/other-key.asc" 2>> "$work/keys.log"
check "the signing key is written mode 600" 600 "$(stat -c %a "$work/site-key.asc")"
publish() { # publish REPO KEY REVISION
    bash "$repo_script" --repo "$1" --key-file "$2" --suite "$suite" "$(deb kioskpad $3)" "$(deb kioskpad-verifier $3)" >> "$work/publish.log" 2>&1
}
publish "$work/site" "$work/site-key.asc" 1 || { cat "$work/publish.log"; exit 1; }
publish "$work/other" "$work/other-key.asc" 1 || { cat "$work/publish.log"; exit 1; }
cp -a "$work/site/public" "$work/unsigned"
rm -f "$work/unsigned/dists/$suite/InRelease" "$work/unsigned/dists/$suite/Release.gpg"
mkdir -p "$work/served"
ln -s "$work/site/public" "$work/served/site"
ln -s "$work/other/public" "$work/served/other"
ln -s "$work/unsigned" "$work/served/unsigned"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$work/served" "$port" > "$work/http.log" 2>&1 &
server=$!
for _ in $(seq 50); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/site/dists/$suite/InRelease')" 2> /dev/null && break; sleep 0.1; done

# A clean root: an overlay on the given root; apt sees only this repository (and with
# --archive, the root's own Debian sources).
mkdir -p "$merged" "$work/upper" "$work/overlay-work"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/upper,workdir=$work/overlay-work" "$merged" || { echo "apt-repo-test: overlay mount failed" >&2; exit 1; }
mount -t proc proc "$merged/proc"
inside() { chroot "$merged" "$@"; }
sources_list=(-o Dir::Etc::SourceList=/dev/null)
[ "$archive" = no ] || sources_list=()
apt_get() { inside env DEBIAN_FRONTEND=noninteractive apt-get -o APT::Sandbox::User=root "${sources_list[@]}" -q "$@" < /dev/null; }
printf '#!/bin/sh\nexit 101\n' > "$merged/usr/sbin/policy-rc.d" && chmod 755 "$merged/usr/sbin/policy-rc.d"
inside dpkg-query -W kioskpad > /dev/null 2>&1 && inside env DEBIAN_FRONTEND=noninteractive dpkg --purge kioskpad-verifier kioskpad > /dev/null 2>&1
sources() { # sources NAME: the deb822 file the guide gives, for the repository served as NAME
    mkdir -p "$merged/etc/apt/keyrings"
    cp "$work/site/public/kioskpad-archive-keyring.gpg" "$merged/etc/apt/keyrings/kioskpad-archive-keyring.gpg"
    printf 'Types: deb\nURIs: http://127.0.0.1:%s/%s\nSuites: %s\nComponents: main\nSigned-By: /etc/apt/keyrings/kioskpad-archive-keyring.gpg\n' \
        "$port" "$1" "$suite" > "$merged/etc/apt/sources.list.d/kioskpad.sources"
}

# Refused: another key, no signature.
sources other
apt_get update > "$work/other.log" 2>&1; rc=$?
if [ $rc != 0 ] && grep -q -e NO_PUBKEY -e 'not signed' -e 'signatures couldn' "$work/other.log"; then
    pass "a repository signed with another key is refused by apt-get update"
else fail "another key: exit $rc: $(tail -3 "$work/other.log")"; fi
apt_get install -y kioskpad > "$work/other-install.log" 2>&1 && fail "kioskpad installed from a repository signed with another key" || pass "nothing installs from it"
sources unsigned
apt_get update > "$work/unsigned.log" 2>&1; rc=$?
if [ $rc != 0 ] && grep -q -e 'is not signed' -e 'does not have a Release file' "$work/unsigned.log"; then
    pass "an unsigned repository is refused by apt-get update"
else fail "unsigned: exit $rc: $(tail -3 "$work/unsigned.log")"; fi

# The site's repository: install.
sources site
start=$(date +%s%N)
apt_get update > "$work/update.log" 2>&1; rc=$?
check "apt-get update of the signed repository exits 0" 0 $rc
apt_get install -y kioskpad kioskpad-verifier > "$work/install.log" 2>&1; rc=$?
install_ms=$((($(date +%s%N) - start) / 1000000))
check "apt-get install kioskpad kioskpad-verifier exits 0" 0 $rc
v1=$(dpkg-deb -f "$(deb kioskpad 1)" Version)
v2=$(dpkg-deb -f "$(deb kioskpad 2)" Version)
check "revision 1 of both is installed" "$v1 $v1" "$(inside dpkg-query -W -f '${Version} ' kioskpad kioskpad-verifier | sed 's/ $//')"
check "the door runs: kioskpad --version" "kioskpad ${v1%-*}," "$(inside /usr/bin/kioskpad --version | cut -d' ' -f1-2)"

# What the site made its own: config, users, journal and state.
echo '# this site: edited after install' >> "$merged/etc/kioskpad/kioskpad.yaml"
printf '1357\n' | inside /usr/bin/kioskpad pin hash --user carol --iterations 1000 >> "$merged/etc/kioskpad/users"
mkdir -p "$merged/var/lib/kioskpad"
echo '{"type":"marker","seq":1}' >> "$merged/var/lib/kioskpad/journal.jsonl"
echo 'kept' > "$merged/var/lib/kioskpad/site-settings.json"
before=$(cd "$merged" && sha256sum etc/kioskpad/kioskpad.yaml etc/kioskpad/users var/lib/kioskpad/journal.jsonl var/lib/kioskpad/site-settings.json)

# Revision 2 published; apt upgrade.
publish "$work/site" "$work/site-key.asc" 2 || { cat "$work/publish.log"; exit 1; }
start=$(date +%s%N)
apt_get update > "$work/update2.log" 2>&1 && apt_get upgrade -y > "$work/upgrade.log" 2>&1; rc=$?
upgrade_ms=$((($(date +%s%N) - start) / 1000000))
check "apt-get update and upgrade to the next revision exit 0" 0 $rc
check "revision 2 of both is installed" "$v2 $v2" "$(inside dpkg-query -W -f '${Version} ' kioskpad kioskpad-verifier | sed 's/ $//')"
check "the upgrade kept the config, users, journal and state" "$before" \
    "$(cd "$merged" && sha256sum etc/kioskpad/kioskpad.yaml etc/kioskpad/users var/lib/kioskpad/journal.jsonl var/lib/kioskpad/site-settings.json)"
if grep -q -e 'conffile' -e "Configuration file '/etc/kioskpad" "$work/upgrade.log"; then fail "the upgrade asked about a config file: $(grep -m1 -i conffile "$work/upgrade.log")"; else pass "the upgrade asked nothing"; fi

# Revision 1 is compressed as shipped (package-deb.sh --quick makes the later ones faster).
sizes=$(for name in kioskpad kioskpad-verifier; do f=$(deb $name 1); printf '%s %s kB; ' "$(basename "$f")" "$(du -k "$f" | cut -f1)"; done)
emulated=''; [ "$arch" = "$(dpkg --print-architecture)" ] || emulated=', under qemu-user'
echo "apt-repo: measured: update + install ${install_ms} ms, update + upgrade ${upgrade_ms} ms ($suite $arch root$emulated, repository on loopback); $sizes"
echo "apt-repo: $passed passed, $failed failed"
[ $failed = 0 ]
