#!/usr/bin/env bash
# The arm64 Debian packages in a Debian trixie or bookworm arm64 system (the bases of Raspberry
# Pi OS trixie and bookworm 64-bit), run under qemu-user: a throw-away overlay of
# scripts/cross-arm64.sh's trixie root (or its bookworm root), so every run starts from the same
# clean system.
#
#   Tests/arm64/package-test.sh [--suite trixie|bookworm] DEB_DIR
#   Tests/arm64/package-test.sh --amd64-trixie DEB_DIR   the amd64 packages for Debian 13
#       (scripts/package-deb.sh --suite trixie, -N+deb13) in a Debian trixie amd64 root (the one
#       package-deb.sh made in /var/cache/kioskpad-amd64), natively
#
# DEB_DIR holds revisions 1 and 2 of kioskpad and kioskpad-verifier for arm64 and that suite
# (scripts/package-deb.sh --arch arm64 --suite SUITE --revision N). It checks: apt installs both
# from the files with their Depends met by the release's own packages; the binaries need no
# newer glibc than the release has (scripts/check-glibc.sh); the units pass systemd-analyze verify;
# the door grants the demo PIN in simulate; a door granted by the arm64 `kioskpad verifier
# serve` on SQLite over loopback; the upgrade to revision 2 keeps an edited config; remove and
# purge. Prints "package-arm64: N passed, M failed" last; exits non-zero on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
arguments=("$@")  # for the re-run in a mount namespace below
suite=trixie arch=arm64
if [ "${1:-}" = --suite ]; then suite=${2:?--suite needs trixie or bookworm}; shift 2; fi
if [ "${1:-}" = --amd64-trixie ]; then arch=amd64; shift; fi
deb_dir=$(cd "${1:?usage: Tests/arm64/package-test.sh [--suite trixie|bookworm] DEB_DIR}" && pwd)
source "$repo/scripts/arm64/toolchain.sh"
machine=aarch64 elf=AArch64
case $arch:$suite in
    amd64:trixie) base=${KIOSKPAD_AMD64_CACHE:-/var/cache/kioskpad-amd64}/trixie-root release=13 glibc=2.41
        gpiod_api='libgpiod 2\.[0-9.]* (v2 API)' suffix='+deb13' machine=x86_64 elf='Advanced Micro Devices X86-64' ;;
    arm64:trixie) base=$arm64_target_root release=13 glibc=2.41 gpiod_api='libgpiod 2\.[0-9.]* (v2 API)' suffix='' ;;
    arm64:bookworm) base=$arm64_bookworm_root release=12 glibc=2.36 gpiod_api='libgpiod 1\.6[0-9.]* (v1 API)' suffix='~deb12' ;;
    *) echo "package-arm64: --suite must be trixie or bookworm, not '$suite'" >&2; exit 2 ;;
esac
[ -f "$base/.kioskpad-ready" ] || { echo "package-arm64: no $suite root (scripts/cross-arm64.sh --setup-only; for bookworm, --bookworm)" >&2; exit 2; }

if [ -z "${KIOSKPAD_IN_NAMESPACE:-}" ]; then
    exec env KIOSKPAD_IN_NAMESPACE=1 unshare --mount --propagation private -- "$0" "${arguments[@]}"
fi
work=$(mktemp -d /tmp/kioskpad-arm64-pkg.XXXXXX)
R=$work/root
mkdir -p "$work/upper" "$work/work" "$R"
mount -t overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" overlay "$R"
mount -t proc proc "$R/proc"
mount --rbind /dev "$R/dev"
mount -t tmpfs tmpfs "$R/tmp"
mount -t tmpfs tmpfs "$R/run"
mkdir -p "$R/opt/debs"
for file in "$deb_dir"/kioskpad*_$arch.deb; do  # this suite's: ~deb12, +deb13 or none
    case $file in *[~+]deb1[0-9]_*) [ -n "$suffix" ] && cp "$file" "$R/opt/debs/" ;; *) [ -z "$suffix" ] && cp "$file" "$R/opt/debs/" ;; esac
done
cleanup() { umount -R "$R" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

passed=0; failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { if [ "$2" = "$3" ]; then pass "$1 (= $3)"; else fail "$1: expected '$2', got '$3'"; fi; }
inside() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
apt_inside() { inside env DEBIAN_FRONTEND=noninteractive apt-get -o APT::Sandbox::User=root -y -q "$@" < /dev/null; }
deb() { ls "$R"/opt/debs/"$1"_*-"$2${suffix}"_$arch.deb | sed "s|^$R||"; }

check "the root is Debian $suite on $arch" "$release $machine" "$(inside cut -d. -f1 /etc/debian_version) $(inside uname -m)"

# 1. install revision 1 of both, Depends from the release's archive.
for name in kioskpad kioskpad-verifier; do
    for revision in 1 2; do
        deb $name $revision > /dev/null 2>&1 || { echo "package-arm64: no $name revision $revision$suffix in $deb_dir" >&2; exit 2; }
    done
done
apt_inside update -qq > "$work/apt.out" 2>&1
if apt_inside install --no-install-recommends "$(deb kioskpad 1)" "$(deb kioskpad-verifier 1)" >> "$work/apt.out" 2>&1; then
    pass "apt installs kioskpad and kioskpad-verifier (revision 1) with $suite's packages"
else
    fail "apt install of revision 1"; tail -20 "$work/apt.out"
fi
version=$(inside dpkg-query -W -f='${Version}' kioskpad)
upstream=${version%-*}
check "kioskpad --version is the package's, built for $suite's libgpiod" "yes" \
    "$(inside kioskpad --version | grep -q "kioskpad $upstream, built for $gpiod_api" && echo yes || inside kioskpad --version)"
check "kioskpad verifier --version reaches the site server" "kioskpad verifier $upstream" "$(inside kioskpad verifier --version)"
check "the binaries are $machine" "$elf $elf" \
    "$(for b in kioskpad kioskpad-verifier; do readelf -h "$R/usr/bin/$b" | sed -n 's/^ *Machine: *//p'; done | tr '\n' ' ' | sed 's/ $//')"
if bash "$repo/scripts/check-glibc.sh" --max "$glibc" "$R/usr/bin/kioskpad" "$R/usr/bin/kioskpad-verifier" > "$work/glibc.out" 2>&1; then
    pass "the binaries need $suite's glibc $glibc at most: $(sed 's/: [a-z_0-9 ]*$//; s/^ok: .*\/usr\/bin\//ok: /' "$work/glibc.out" | tr '\n' ' ')"
else
    fail "glibc: $(cat "$work/glibc.out")"
fi
check "the root's glibc is $suite's" "$glibc" "$(inside dpkg-query -W -f='${Version}' libc6 | cut -d- -f1)"
# The root has no man-db: verify's look-up of Documentation=man:... is replaced by a check
# that each page named is in the package.
if inside systemd-analyze verify --man=no /usr/lib/systemd/system/kioskpad.service /usr/lib/systemd/system/kioskpad-verifier.service > "$work/verify.out" 2>&1; then
    pass "systemd-analyze verify passes both units"
else
    fail "systemd-analyze verify"; cat "$work/verify.out"
fi
pages=$(sed -n 's/^Documentation=.*man:\([^ (]*\)(1).*/\1/p' "$R"/usr/lib/systemd/system/kioskpad*.service)
missing=$(for page in $pages; do [ -f "$R/usr/share/man/man1/$page.1.gz" ] || echo "$page"; done)
check "the units' Documentation= man pages are installed ($(echo $pages))" "" "$missing"
check "the service users exist" "kioskpad kioskpad-verifier" \
    "$(inside getent passwd kioskpad | cut -d: -f1) $(inside getent passwd kioskpad-verifier | cut -d: -f1)"

# 2. the door alone: the demo PIN, and a wrong one.
check "simulate grants the demo PIN" "Access granted" \
    "$(printf '1234' | inside kioskpad simulate --display plain 2>/dev/null | grep -o 'Access granted' | tail -1)"
check "simulate denies a wrong PIN" "Access denied" \
    "$(printf '9999' | inside kioskpad simulate --display plain 2>/dev/null | grep -o 'Access denied' | tail -1)"

# 3. a door asking the arm64 site server (SQLite) over loopback.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$R/tmp/site.yaml" <<YAML
server:
  listen: 127.0.0.1:$port
  state_dir: /tmp/site
  secret_file: /tmp/site.secret
YAML
inside sh -c 'umask 077; kioskpad verifier secret > /tmp/site.secret'
printf '5802' | inside kioskpad verifier user add alice --config /tmp/site.yaml > "$work/user.out" 2>&1 \
    || { fail "verifier user add"; cat "$work/user.out"; }
check "the site server keeps the user in SQLite" "alice" "$(inside kioskpad verifier user list --config /tmp/site.yaml 2>/dev/null | grep -o '^alice' | head -1)"
chroot "$R" /usr/bin/env -i PATH=/usr/bin:/bin kioskpad verifier serve --config /tmp/site.yaml > "$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
door() { printf '%s' "$1" | inside kioskpad simulate --display plain --verifier "http://127.0.0.1:$port/verify" --verifier-secret-file /tmp/site.secret 2>/dev/null | grep -oE 'Access (granted|denied)' | tail -1; }
check "a door is granted alice's PIN by the $arch site server" "Access granted" "$(door 5802)"
check "and denied a wrong PIN" "Access denied" "$(door 5803)"
kill -TERM $server 2>/dev/null; wait $server 2>/dev/null
if grep -q '5802' "$work/serve.out" "$work/user.out"; then fail "a typed PIN appears in the site server's output"; else pass "no typed PIN in the site server's output"; fi

# 4. upgrade to revision 2: the edited config stays.
echo '# this site: edited after install' >> "$R/etc/kioskpad/kioskpad.yaml"
if apt_inside install --no-install-recommends "$(deb kioskpad 2)" "$(deb kioskpad-verifier 2)" > "$work/upgrade.out" 2>&1; then
    pass "apt upgrades both to revision 2"
else
    fail "upgrade to revision 2"; tail -20 "$work/upgrade.out"
fi
check "both at revision 2" "$upstream-2$suffix $upstream-2$suffix" \
    "$(inside dpkg-query -W -f='${Version}' kioskpad) $(inside dpkg-query -W -f='${Version}' kioskpad-verifier)"
check "the upgrade kept the edited kioskpad.yaml" 1 "$(grep -c '^# this site: edited after install' "$R/etc/kioskpad/kioskpad.yaml")"

# 5. remove, then purge.
apt_inside remove kioskpad > "$work/remove.out" 2>&1 || { fail "apt-get remove kioskpad"; tail -20 "$work/remove.out"; }
check "remove takes both programs and keeps the config" "no no yes" \
    "$(test -e "$R/usr/bin/kioskpad" && echo yes || echo no) $(test -e "$R/usr/bin/kioskpad-verifier" && echo yes || echo no) $(test -e "$R/etc/kioskpad/kioskpad.yaml" && echo yes || echo no)"
apt_inside purge kioskpad kioskpad-verifier > "$work/purge.out" 2>&1 || { fail "apt-get purge"; tail -20 "$work/purge.out"; }
check "purge removes /etc/kioskpad and the user kioskpad" "no none" \
    "$(test -e "$R/etc/kioskpad" && echo yes || echo no) $(inside getent passwd kioskpad >/dev/null && echo kioskpad || echo none)"
check "nothing of either package is left in dpkg" "" "$(inside dpkg-query -W -f='${db:Status-Abbrev}\n' kioskpad kioskpad-verifier 2>/dev/null | grep -v '^un' || true)"

echo "package-$arch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
