#!/usr/bin/env bash
# Builds the Debian packages of KioskPad, for this machine's architecture or (from amd64) for arm64:
#
#   scripts/package-deb.sh [--arch amd64|arm64] [--suite bookworm|trixie] [--output DIR] [--binary FILE]
#                          [--revision N[,N...]] [--quick]
#
# makes, in DIR (default dist/), with <version> KioskPadVersion.version (what `kioskpad
# --version` prints) and revision N (default 1; raise it to repackage the same program; a
# list, e.g. 1,2, makes each revision of the same binaries, to test an upgrade):
#   kioskpad_<version>-<N>_<arch>.deb           the door terminal: /usr/bin/kioskpad, kioskpad.service,
#                                               sysusers, the udev rule, /etc/kioskpad/kioskpad.yaml
#   kioskpad-verifier_<version>-<N>_<arch>.deb  the site server: /usr/bin/kioskpad-verifier (what
#                                               `kioskpad verifier ...` runs), kioskpad-verifier.service
#                                               (off until enabled), /etc/kioskpad-verifier/verifier.yaml
#   and a -dbgsym package of each (debug symbols under /usr/lib/debug/.build-id).
# A door needs only the first. Both binaries are release builds with the Swift runtime linked
# in, stripped; each package has its docs, a man page per command and (the door's) bash and
# zsh completions. Depends: comes from dpkg-shlibdeps on each binary; kioskpad-verifier also
# depends on kioskpad of the same version (the `kioskpad` command). Suggests: names the
# libraries loaded only when configured: libmosquitto1 (`mqtt:`), libqrencode4 (the console's
# TOTP QR codes).
#
# --arch arm64 on an amd64 machine cross-builds with Debian's Swift (scripts/cross-arm64.sh: the
# binaries link against Debian trixie arm64, the base of Raspberry Pi OS trixie 64-bit) and
# computes Depends with dpkg-shlibdeps inside that trixie arm64 root, against its libraries; the
# arm64 binaries run here under qemu-user for their version, help and man pages. Needs root
# then. The Swift that built the binaries is named in each package's changelog.
#
# --suite (arm64): the Debian release the packages are for. trixie (the default): as above.
# bookworm (Raspberry Pi OS bookworm 64-bit): the door built against bookworm's libgpiod 1.6
# (scripts/cross-arm64.sh --bookworm), Depends computed in a bookworm arm64 root, and the
# version <version>-<N>~deb12, which sorts before trixie's <version>-<N>: a Pi upgraded from
# bookworm to trixie moves to the trixie build, and an apt repository holds both. amd64, on a
# Debian 12 machine: bookworm (the default), or trixie: the door linked against trixie's
# libgpiod 2.x (header and library from a Debian trixie amd64 root made in
# /var/cache/kioskpad-amd64, KIOSKPAD_AMD64_CACHE; the rest as for bookworm, whose glibc trixie
# runs), Depends computed in that root, and the version <version>-<N>+deb13, which sorts after
# bookworm's <version>-<N>. Its binary cannot run here (trixie's libgpiod): its version is read
# in the trixie root, and its man pages and completions come from this machine's door build
# of the same commit (the same command line).
#
# The Maintainer field is $DEBFULLNAME <$DEBEMAIL> when both are set, else the author of the
# last commit.
#
# --quick (CI's): the first revision's two packages are compressed as shipped (xz); the -dbgsym
# packages and the later revisions, which CI only upgrades to, with gzip -1 (a fraction of the
# time: xz of the debug symbols was most of a packaging run).
#
# --binary FILE packages a release `kioskpad` built before, and the `kioskpad-verifier` beside
# it (`swift build -c release --static-swift-stdlib --product kioskpad`, then `--product
# kioskpad-verifier`), instead of building them. Needs dpkg-dev and binutils (installed here
# when missing). Run as any user; no root needed (but for --arch arm64 on amd64).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
output=dist
binary=''
revision=1
quick=no
host_arch=$(dpkg --print-architecture)
arch=$host_arch
suite=''
while [ $# -gt 0 ]; do
    case $1 in
        --output) output=${2:?--output needs a directory}; shift 2 ;;
        --binary) binary=${2:?--binary needs a file}; shift 2 ;;
        --revision) revision=${2:?--revision needs a number or a list like 1,2}; shift 2 ;;
        --arch) arch=${2:?--arch needs an architecture}; shift 2 ;;
        --suite) suite=${2:?--suite needs bookworm or trixie}; shift 2 ;;
        --quick) quick=yes; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb.sh: unknown option '$1' (valid: --arch ARCH, --suite SUITE, --output DIR, --binary FILE, --revision N[,N...], --quick, --help)" >&2; exit 2 ;;
    esac
done
[[ $revision =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "package-deb.sh: --revision must be a whole number or a list like 1,2, not '$revision'" >&2; exit 2; }
say() { echo "package-deb: $*" >&2; }
die() { echo "package-deb.sh: $*" >&2; exit 1; }
valid_arches=$host_arch
[ "$host_arch" = amd64 ] && valid_arches="amd64 arm64"
case " $valid_arches " in *" $arch "*) ;; *)
    echo "package-deb.sh: --arch '$arch' is not one this machine packages; valid: ${valid_arches// /, }" >&2; exit 2 ;;
esac
# cross: the binaries are arm64 and this machine amd64. They run here under qemu-user (binfmt)
# with the trixie root's loader and libraries; binutils for aarch64 strip them.
cross=''
tools=''
if [ "$arch" != "$host_arch" ]; then
    cross=yes
    tools=aarch64-linux-gnu-
    source scripts/arm64/toolchain.sh
    export QEMU_LD_PREFIX=$arm64_target_root
fi
# The release the packages are for: the one the binaries were linked for.
host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] || { [ -n "$cross" ] && suite=trixie || suite=$host_suite; }
revision_suffix=''
shlibs_root=${cross:+$arm64_target_root}
case ${cross:+cross}:$suite in
    cross:trixie) ;;
    cross:bookworm)
        revision_suffix='~deb12'
        arm64_bookworm_root_setup
        shlibs_root=$arm64_bookworm_root
        export QEMU_LD_PREFIX=$arm64_bookworm_root ;;
    cross:*) echo "package-deb.sh: --suite '$suite' is not one the arm64 packages are built for; valid: bookworm, trixie" >&2; exit 2 ;;
    :"$host_suite") ;;
    :trixie)
        [ "$host_suite" = bookworm ] || { echo "package-deb.sh: --suite trixie on $host_suite: build on Debian 12 (bookworm) or on trixie itself" >&2; exit 2; }
        [ "$(id -u)" -eq 0 ] || die "--suite trixie needs root (it makes a trixie root with debootstrap)"
        revision_suffix='+deb13'
        source scripts/arm64/toolchain.sh
        amd64_cache=${KIOSKPAD_AMD64_CACHE:-/var/cache/kioskpad-amd64}
        trixie_root=$amd64_cache/trixie-root
        apt_install_missing debootstrap
        debian_root "$trixie_root" trixie amd64 libgpiod-dev,dpkg-dev
        shlibs_root=$trixie_root ;;
    *) echo "package-deb.sh: --suite '$suite' is not one an $arch package is built for here; valid: ${host_suite}${host_suite:+, }trixie" >&2; exit 2 ;;
esac

missing=()
for tool in dpkg-shlibdeps:dpkg-dev objcopy:binutils ${cross:+aarch64-linux-gnu-objcopy:binutils-aarch64-linux-gnu}; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "needs ${missing[*]}: sudo apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

upstream=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/Shared/KioskPadCore/KioskPadVersion.swift)
[ -n "$upstream" ] || die "no version in Sources/Shared/KioskPadCore/KioskPadVersion.swift"
if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then
    maintainer="$DEBFULLNAME <$DEBEMAIL>"
else
    maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null) || die "set DEBFULLNAME and DEBEMAIL (not a git checkout)"
fi

# ---- 1. the binaries --------------------------------------------------------------------------
if [ -z "$binary" ] && [ -n "$cross" ]; then
    say "cross-building release binaries for arm64 $suite (scripts/cross-arm64.sh)"
    if [ "$suite" = bookworm ]; then
        binary="$(scripts/cross-arm64.sh --bookworm | tail -1)/kioskpad"
    else
        binary="$(scripts/cross-arm64.sh | tail -1)/kioskpad"
    fi
elif [ -z "$binary" ] && [ -n "${trixie_root:-}" ]; then
    # trixie's libgpiod (header, library, a .pc of its own) first on PKG_CONFIG_PATH: only the C
    # shim above libgpiod recompiles, and this machine's door of the same commit is kept for
    # the man pages. Then the scratch folder's door is built back for this machine (it cannot
    # run here linked to trixie's libgpiod; benchmarks and tests run it).
    gpiod=$amd64_cache/libgpiod-trixie
    libgpiod_from_root "$trixie_root" x86_64-linux-gnu "$gpiod" "$gpiod"
    gpiod_version=$(cat "$gpiod/.version")
    mkdir -p "$amd64_cache/build-trixie"
    say "building release binaries for trixie (the door against trixie's libgpiod $gpiod_version)"
    swift build -c release --static-swift-stdlib --product kioskpad >&2
    swift build -c release --static-swift-stdlib --product kioskpad-verifier >&2
    bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
    cp "$bin/kioskpad" "$amd64_cache/build-trixie/kioskpad-help"
    cp "$bin/kioskpad-verifier" "$amd64_cache/build-trixie/"
    PKG_CONFIG_PATH=$gpiod/lib/pkgconfig swift build -c release --static-swift-stdlib --product kioskpad >&2
    cp "$bin/kioskpad" "$amd64_cache/build-trixie/kioskpad"
    swift build -c release --static-swift-stdlib --product kioskpad >&2
    printf '%s, the door against Debian trixie'"'"'s libgpiod %s\n' "$(swift --version 2>/dev/null | head -1)" "$gpiod_version" \
        > "$amd64_cache/build-trixie/swift-version.txt"
    binary=$amd64_cache/build-trixie/kioskpad
elif [ -z "$binary" ]; then
    say "building release binaries (swift build -c release --static-swift-stdlib)"
    swift build -c release --static-swift-stdlib --product kioskpad >&2
    swift build -c release --static-swift-stdlib --product kioskpad-verifier >&2
    binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/kioskpad"
fi
server_binary=$(dirname "$binary")/kioskpad-verifier
for program in "$binary" "$server_binary"; do
    [ -x "$program" ] || die "no binary at $program"
    machine=$(readelf -h "$program" | sed -n 's/^ *Machine: *//p')
    case $arch:$machine in amd64:*X86-64*|arm64:*AArch64*) ;; *) die "$program is built for $machine, not $arch" ;; esac
    if readelf -d "$program" | grep NEEDED | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' >/dev/null; then
        die "$program loads the Swift runtime from a toolchain; build it with --static-swift-stdlib"
    fi
done
# The door's help (man pages, completions) from a binary this machine runs: for trixie on
# amd64, the door of the same commit built for this machine (beside the trixie one).
door_help=''
if [ -n "${trixie_root:-}" ]; then
    readelf -d "$binary" | grep -q 'NEEDED.*libgpiod\.so\.3' || die "$binary does not link libgpiod 2.x (libgpiod.so.3): build it against trixie's"
    door_help=$(dirname "$binary")/kioskpad-help
    [ -x "$door_help" ] || die "no $door_help: the door of the same commit built for this machine, for the man pages"
    built=$(in_root "$trixie_root" "$(dirname "$binary")" "$binary" --version)
else
    built=$("$binary" --version)
fi
case $built in "kioskpad $upstream,"*) ;; *) die "$binary says '$built', not version $upstream: build it from this checkout" ;; esac
built=$("$server_binary" --version)
[ "$built" = "kioskpad verifier $upstream" ] || die "$server_binary says '$built', not version $upstream: build it from this checkout"

work=$(mktemp -d /tmp/kioskpad-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
door=$work/kioskpad
site=$work/kioskpad-verifier
for tree in "$door" "$site" "$door-dbgsym" "$site-dbgsym"; do install -d "$tree/DEBIAN" "$tree/usr/bin"; done
rmdir "$door-dbgsym/usr/bin" "$site-dbgsym/usr/bin"

# Debug info into its own file, found by build id; the binary keeps only what it runs with.
# split_debug NAME FILE: /usr/bin/NAME in NAME's tree, its debug file in NAME-dbgsym's.
split_debug() {
    local name=$1 full=$work/$1.full id
    install -m 0755 "$2" "$full"
    id=$(readelf -n "$full" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
    [ -n "$id" ] || die "$2 has no build id (link with --build-id)"
    local debug_file=$work/$name-dbgsym/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    install -d "$(dirname "$debug_file")"
    "${tools}objcopy" --only-keep-debug --compress-debug-sections "$full" "$debug_file"
    chmod 0644 "$debug_file"
    "${tools}objcopy" --strip-unneeded --remove-section=.comment --remove-section=.note.gnu.gold-version \
        --add-gnu-debuglink="$debug_file" "$full" "$work/$name/usr/bin/$name"
    chmod 0755 "$work/$name/usr/bin/$name"
    echo "$id" > "$work/$name.build-id"
}
split_debug kioskpad "$binary"
split_debug kioskpad-verifier "$server_binary"

# ---- 2. units, users, udev, config ------------------------------------------------------------
for tree in "$door" "$site"; do install -d "$tree/usr/lib/systemd/system" "$tree/usr/lib/sysusers.d"; done
install -d "$door/usr/lib/udev/rules.d"
# The door's unit is deploy/kioskpad.service with the package's paths.
sed -e 's|/usr/local/bin/kioskpad|/usr/bin/kioskpad|g' \
    -e 's|^# KioskPad door terminal (installed by deploy/install.sh; see docs/raspberry-pi.md)|# KioskPad door terminal (installed by the kioskpad Debian package; see docs/raspberry-pi.md)|' \
    -e 's|^Documentation=.*|Documentation=man:kioskpad.run(1) file:/usr/share/doc/kioskpad/raspberry-pi.md.gz|' \
    deploy/kioskpad.service > "$door/usr/lib/systemd/system/kioskpad.service"
if grep -q '/usr/local' "$door/usr/lib/systemd/system/kioskpad.service"; then die "deploy/kioskpad.service names /usr/local after the rewrite"; fi
install -m 0644 deploy/kioskpad.sysusers "$door/usr/lib/sysusers.d/kioskpad.conf"
sed 's|Installed by deploy/install.sh.|Installed by the kioskpad Debian package.|' deploy/99-kioskpad.rules > "$door/usr/lib/udev/rules.d/99-kioskpad.rules"
install -m 0644 deploy/debian/kioskpad-verifier.service "$site/usr/lib/systemd/system/kioskpad-verifier.service"
install -m 0644 deploy/debian/kioskpad-verifier.sysusers "$site/usr/lib/sysusers.d/kioskpad-verifier.conf"
install -d "$door/etc/kioskpad" "$site/etc/kioskpad-verifier"
install -m 0644 config/pi-4x4-lcd1602.yaml "$door/etc/kioskpad/kioskpad.yaml"
install -m 0644 deploy/debian/verifier.yaml "$site/etc/kioskpad-verifier/verifier.yaml"
printf '/etc/kioskpad/kioskpad.yaml\n' > "$door/DEBIAN/conffiles"
printf '/etc/kioskpad-verifier/verifier.yaml\n' > "$site/DEBIAN/conffiles"
chmod 0644 "$door"/usr/lib/systemd/system/* "$door"/usr/lib/sysusers.d/* "$door"/usr/lib/udev/rules.d/* \
    "$site"/usr/lib/systemd/system/* "$site"/usr/lib/sysusers.d/*

# ---- 3. docs, man pages, completions ----------------------------------------------------------
stamp=$(git log -1 --format=%cD 2>/dev/null || date -R)
source_state=$(git describe --always --dirty 2>/dev/null || echo 'a source tree')
# The compiler, recorded in each changelog: cross-arm64.sh writes it beside its binaries.
toolchain=$(cat "$(dirname "$binary")/swift-version.txt" 2>/dev/null || swift --version 2>/dev/null | head -1)
for tree in "$door" "$site"; do
    name=$(basename "$tree"); doc=$tree/usr/share/doc/$name
    install -d "$doc"
    install -m 0644 deploy/debian/copyright "$doc/copyright"
    # Swift packages compile their C libraries in (Yams: libyaml; swift-nio-extras: zlib;
    # sqlite-nio: SQLite); lintian calls that an error, and the overrides file says why it stays.
    install -d "$tree/usr/share/lintian/overrides"
    grep -E "^(#|$name: )" deploy/debian/lintian-overrides > "$tree/usr/share/lintian/overrides/$name"
    chmod 0644 "$tree/usr/share/lintian/overrides/$name"
done
install -d "$door/usr/share/doc/kioskpad/examples"
for file in README.md docs/raspberry-pi.md docs/door-hardware.md docs/door-config.md docs/door-daemon.md docs/commands.md docs/home-assistant.md; do gzip -9n < "$file" > "$door/usr/share/doc/kioskpad/$(basename "$file").gz"; done
for file in docs/site-server.md docs/protocol.md; do gzip -9n < "$file" > "$site/usr/share/doc/kioskpad-verifier/$(basename "$file").gz"; done
install -m 0644 config/simulate.yaml config/users.example "$door/usr/share/doc/kioskpad/examples/"
install -d "$site/usr/share/doc/kioskpad-verifier/examples"
install -m 0644 config/verifier.yaml "$site/usr/share/doc/kioskpad-verifier/examples/"
chmod 0644 "$door"/usr/share/doc/kioskpad/*.gz "$site"/usr/share/doc/kioskpad-verifier/*.gz

# One man page per command, from each binary's own help (swift-argument-parser's generate-manual).
say "man pages (swift-argument-parser's generate-manual)"
manual_build=.build-manual
[ -d .build/checkouts/swift-argument-parser ] || swift package resolve >&2
swift build --package-path .build/checkouts/swift-argument-parser --scratch-path "$manual_build" \
    -c release --product generate-manual >"$work/manual-build.log" 2>&1 \
    || { tail -20 "$work/manual-build.log" >&2; die "could not build generate-manual (run swift package resolve first)"; }
# man_pages NAME: NAME's pages into its tree. A subcommand's page is named "kioskpad run" (with
# a space), which whatis cannot index: the file and NAME get the page's own name (kioskpad.run,
# kioskpad.verifier.serve), and the synopsis keeps the command as typed.
man_pages() {
    local name=$1 man=$work/$1/usr/share/man/man1 page file
    install -d "$man"
    rm -rf "$work/man"; mkdir -p "$work/man"
    local program=$work/$name.full
    [ "$name" != kioskpad ] || [ -z "$door_help" ] || program=$door_help
    "$manual_build/release/generate-manual" "$program" --multi-page --output-directory "$work/man" \
        --date "$(git log -1 --format=%cs 2>/dev/null || date +%F)" --authors 'KioskPad maintainers' >&2
    for page in "$work"/man/*.1; do
        file=$(basename "$page"); file=${file// /.}
        awk 'name == "" && /^\.Nm "/ { name = substr($0, 5); page = name; gsub(/"/, "", page); gsub(/ /, ".", page); print ".Nm " page; next }
             name != "" && /^\.Nm$/ { print ".Nm " name; next } { print }' "$page" | gzip -9n > "$man/$file.gz"
    done
    chmod 0644 "$man"/*.gz
}
man_pages kioskpad
man_pages kioskpad-verifier
# `kioskpad verifier`'s pages come from the server's own binary, in its package.
rm -f "$door/usr/share/man/man1/kioskpad.verifier.1.gz"
ln -s kioskpad.verifier.1.gz "$site/usr/share/man/man1/kioskpad-verifier.1.gz"
install -d "$door/usr/share/bash-completion/completions" "$door/usr/share/zsh/vendor-completions"
# bash-completion sources the file: no #! line.
"${door_help:-$work/kioskpad.full}" --generate-completion-script bash | sed '1{/^#!/d}' > "$door/usr/share/bash-completion/completions/kioskpad"
"${door_help:-$work/kioskpad.full}" --generate-completion-script zsh > "$door/usr/share/zsh/vendor-completions/_kioskpad"
chmod 0644 "$door/usr/share/bash-completion/completions/kioskpad" "$door/usr/share/zsh/vendor-completions/_kioskpad"

# ---- 4. control, and each revision's packages ----------------------------------------------------
for script in preinst postinst prerm postrm; do
    install -m 0755 "deploy/debian/$script" "$door/DEBIAN/$script"
    install -m 0755 "deploy/debian/kioskpad-verifier.$script" "$site/DEBIAN/$script"
done
# shlibs NAME: Depends of NAME's binary, from dpkg-shlibdeps (which reads debian/control of a
# source tree: a minimal one in the work folder).
install -d "$work/src/debian"
printf 'Source: kioskpad\n\nPackage: kioskpad\nArchitecture: any\n' > "$work/src/debian/control"
# For arm64 it runs inside the arm64 root of the suite, against the libraries and symbols files there.
shlibs() {
    local program=$work/$1/usr/bin/$1 found
    if [ -n "$shlibs_root" ]; then
        in_root "$shlibs_root" "$work" /bin/sh -c 'cd "$1" && dpkg-shlibdeps -O -e"$2"' shlibs "$work/src" "$program"
    else
        (cd "$work/src" && dpkg-shlibdeps -O -e"$program")
    fi > "$work/shlibs" 2>"$work/shlibs.log" || { cat "$work/shlibs.log" >&2; die "dpkg-shlibdeps failed on $1"; }
    found=$(sed -n 's/^shlibs:Depends=//p' "$work/shlibs")
    [ -n "$found" ] || die "dpkg-shlibdeps found no libraries for $1"
    # Packed relative relocations (Package.swift's leanExecutable) need glibc 2.36, which
    # dpkg-shlibdeps does not see from the symbol versions (raised to it, never lowered).
    local libc
    libc=$(printf '%s' "$found" | sed -nE 's/.*libc6 \(>= ([^)]*)\).*/\1/p')
    if readelf -V "$program" | grep -q GLIBC_ABI_DT_RELR && dpkg --compare-versions "${libc:-0}" lt 2.36; then
        found=$(printf '%s' "$found" | sed -E 's/libc6 \(>= [^)]*\)/libc6 (>= 2.36)/')
    fi
    printf '%s' "$found"
}
door_shlibs=$(shlibs kioskpad)
site_shlibs=$(shlibs kioskpad-verifier)
installed_kb() { du -sk --exclude=DEBIAN "$1" | cut -f1; }
# Before the split (0.9.0), the kioskpad package carried the site server's unit and config.
split_at=0.10.0
# changelog TREE: its changelog.Debian.gz for $version. Lines stay within 80 columns: the
# compiler's line is folded.
changelog() {
    local name; name=$(basename "$1")
    printf '%s (%s) stable; urgency=medium\n\n  * Built from %s by scripts/package-deb.sh.\n%s\n\n -- %s  %s\n' \
        "$name" "$version" "$source_state" "$(printf 'Compiler: %s.' "$toolchain" | fold -s -w 74 | sed '1s/^/  * /; 2,$s/^/    /; s/ *$//')" \
        "$maintainer" "$stamp" | gzip -9n > "$1/usr/share/doc/$name/changelog.Debian.gz"
    chmod 0644 "$1/usr/share/doc/$name/changelog.Debian.gz"
}
# The -dbgsym packages' docs are a link to their package's.
for name in kioskpad kioskpad-verifier; do
    install -d "$work/$name-dbgsym/usr/share/doc"
    ln -s "$name" "$work/$name-dbgsym/usr/share/doc/$name-dbgsym"
done
mkdir -p "$output"
# Each revision: changelog, control files, sums and the .deb files (the loop runs to the end).
first_revision=${revision%%,*}
for revision in ${revision//,/ }; do
version=$upstream-$revision$revision_suffix
changelog "$door"; changelog "$site"
door_kb=$(installed_kb "$door"); site_kb=$(installed_kb "$site")
cat > "$door/DEBIAN/control" <<EOF
Package: kioskpad
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $door_kb
Depends: $door_shlibs, systemd, passwd, udev, procps, libsodium23
Suggests: kioskpad-verifier, kioskpad-dbgsym, libmosquitto1 (>= 2.0)
Section: admin
Priority: optional
Description: door and kiosk PIN terminal for a matrix keypad and a text display
 KioskPad turns a Raspberry Pi with a GPIO matrix keypad (or a USB or
 Wiegand keypad) and a character LCD into a door or kiosk PIN terminal:
 masked PIN or one-time code entry, a signed verifier request, a door relay
 pulsed on a grant, lockout after repeated failures, and an audit journal.
 .
 kioskpad.service runs the door terminal. The site server (kioskpad
 verifier serve) is in the package kioskpad-verifier.
EOF
cat > "$site/DEBIAN/control" <<EOF
Package: kioskpad-verifier
Source: kioskpad
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $site_kb
Depends: $site_shlibs, kioskpad (= $version), systemd, passwd, libsodium23
Suggests: kioskpad-verifier-dbgsym, libqrencode4, postgresql
Breaks: kioskpad (<< $split_at)
Replaces: kioskpad (<< $split_at)
Section: admin
Priority: optional
Description: KioskPad site server: verifier, door events, replicas, console
 The server KioskPad doors ask (kioskpad verifier serve): users, PINs,
 one-time codes and TOTP in its own database (SQLite, or PostgreSQL for
 several instances), who may enter where and when, events from every door,
 signed credential replicas for doors that lose the network, and a site
 console in the browser.
 .
 kioskpad-verifier.service runs it, off until enabled.
EOF
# DEBIAN/md5sums of a package tree: every file but the control area, sorted.
md5sums_of() { (cd "$1" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z | sed -z 's|^\./||' | xargs -0 md5sum) > "$1/DEBIAN/md5sums"; }
for tree in "$door" "$site"; do
    md5sums_of "$tree"
    chmod 0644 "$tree/DEBIAN/control" "$tree/DEBIAN/conffiles" "$tree/DEBIAN/md5sums"
done

for name in kioskpad kioskpad-verifier; do
    dbg=$work/$name-dbgsym
    dbg_kb=$(installed_kb "$dbg")
    cat > "$dbg/DEBIAN/control" <<EOF
Package: $name-dbgsym
Source: kioskpad
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $dbg_kb
Depends: $name (= $version)
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Build-Ids: $(cat "$work/$name.build-id")
Description: debug symbols for $name
 The DWARF debug information of /usr/bin/$name, for gdb and readable crash
 backtraces (found by build id).
EOF
    md5sums_of "$dbg"
    chmod 0644 "$dbg/DEBIAN/control" "$dbg/DEBIAN/md5sums"
done

# --quick (CI): the first revision's packages as shipped (xz), the -dbgsym packages and later
# revisions with gzip -1, which costs a fraction of the time; CI installs and lints the first
# revision's packages and only upgrades to the later ones.
compression=(-Zxz); debug_compression=(-Zxz)
if [ "$quick" = yes ]; then
    debug_compression=(-Zgzip -z1)
    [ "$revision" = "$first_revision" ] || compression=(-Zgzip -z1)
fi
for name in kioskpad kioskpad-verifier; do
    deb=$output/${name}_${version}_$arch.deb
    dbgsym=$output/$name-dbgsym_${version}_$arch.deb
    dpkg-deb --root-owner-group "${compression[@]}" --build "$work/$name" "$deb" >&2
    dpkg-deb --root-owner-group "${debug_compression[@]}" --build "$work/$name-dbgsym" "$dbgsym" >&2
done
say "$output/kioskpad_${version}_$arch.deb: $(du -k "$output/kioskpad_${version}_$arch.deb" | cut -f1) kB, installed $door_kb kB; Depends: $door_shlibs"
say "$output/kioskpad-verifier_${version}_$arch.deb: $(du -k "$output/kioskpad-verifier_${version}_$arch.deb" | cut -f1) kB, installed $site_kb kB; Depends: $site_shlibs"
for name in kioskpad kioskpad-verifier; do
    say "$output/$name-dbgsym_${version}_$arch.deb: $(du -k "$output/$name-dbgsym_${version}_$arch.deb" | cut -f1) kB"
done
echo "$output/kioskpad_${version}_$arch.deb"
echo "$output/kioskpad-verifier_${version}_$arch.deb"
done
