#!/usr/bin/env bash
# Builds the Debian package of KioskPad for this machine's architecture:
#
#   scripts/package-deb.sh [--output DIR] [--binary FILE] [--revision N]
#
# makes DIR/kioskpad_<version>-<N>_<arch>.deb and DIR/kioskpad-dbgsym_<version>-<N>_<arch>.deb
# (default DIR: dist/, N: 1). <version> is KioskPadVersion.version, the one `kioskpad
# --version` prints; raise --revision to repackage the same program (an upgrade for dpkg).
#
# What goes in: /usr/bin/kioskpad (a release build with the Swift runtime linked in, stripped;
# its debug symbols go into the -dbgsym package under /usr/lib/debug/.build-id), the units
# kioskpad.service (the door) and kioskpad-verifier.service (the site server, off until
# enabled), sysusers, the udev rule, /etc/kioskpad/kioskpad.yaml and
# /etc/kioskpad-verifier/verifier.yaml as conffiles, docs, a man page per command and bash
# and zsh completions. Depends: comes from dpkg-shlibdeps on the binary. Suggests: names the
# libraries it loads only when configured: libmosquitto1 (`mqtt:`), libqrencode4 (the console's
# TOTP QR codes).
#
# The Maintainer field is $DEBFULLNAME <$DEBEMAIL> when both are set, else the author of the
# last commit.
#
# --binary FILE packages a release binary built before (`swift build -c release
# --static-swift-stdlib --product kioskpad`) instead of building one. Needs dpkg-dev and
# binutils (installed here when missing). Run as any user; no root needed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
output=dist
binary=''
revision=1
while [ $# -gt 0 ]; do
    case $1 in
        --output) output=${2:?--output needs a directory}; shift 2 ;;
        --binary) binary=${2:?--binary needs a file}; shift 2 ;;
        --revision) revision=${2:?--revision needs a number}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb.sh: unknown option '$1' (valid: --output DIR, --binary FILE, --revision N, --help)" >&2; exit 2 ;;
    esac
done
[[ $revision =~ ^[0-9]+$ ]] || { echo "package-deb.sh: --revision must be a whole number, not '$revision'" >&2; exit 2; }
say() { echo "package-deb: $*" >&2; }
die() { echo "package-deb.sh: $*" >&2; exit 1; }

missing=()
for tool in dpkg-shlibdeps:dpkg-dev objcopy:binutils; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "needs ${missing[*]}: sudo apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

upstream=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/KeypadCore/KioskPadVersion.swift)
[ -n "$upstream" ] || die "no version in Sources/KeypadCore/KioskPadVersion.swift"
version=$upstream-$revision
arch=$(dpkg --print-architecture)
if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then
    maintainer="$DEBFULLNAME <$DEBEMAIL>"
else
    maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null) || die "set DEBFULLNAME and DEBEMAIL (not a git checkout)"
fi

# ---- 1. the binary ----------------------------------------------------------------------------
if [ -z "$binary" ]; then
    say "building a release binary (swift build -c release --static-swift-stdlib)"
    swift build -c release --static-swift-stdlib --product kioskpad >&2
    binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/kioskpad"
fi
[ -x "$binary" ] || die "no binary at $binary"
if ldd "$binary" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/swift' >/dev/null; then
    die "$binary loads the Swift runtime from a toolchain; build it with --static-swift-stdlib"
fi
built=$("$binary" --version)
case $built in "kioskpad $upstream,"*) ;; *) die "$binary says '$built', not version $upstream: build it from this checkout" ;; esac

work=$(mktemp -d /tmp/kioskpad-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/kioskpad
dbg=$work/kioskpad-dbgsym
install -d "$root/DEBIAN" "$root/usr/bin" "$dbg/DEBIAN"

# Debug info into its own file, found by build id; the binary keeps only what it runs with.
install -m 0755 "$binary" "$work/kioskpad.full"
build_id=$(readelf -n "$work/kioskpad.full" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$build_id" ] || die "$binary has no build id (link with --build-id)"
debug_file=$dbg/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug
install -d "$(dirname "$debug_file")"
objcopy --only-keep-debug --compress-debug-sections "$work/kioskpad.full" "$debug_file"
chmod 0644 "$debug_file"
objcopy --strip-unneeded --remove-section=.comment --remove-section=.note.gnu.gold-version \
    --add-gnu-debuglink="$debug_file" "$work/kioskpad.full" "$root/usr/bin/kioskpad"
chmod 0755 "$root/usr/bin/kioskpad"

# ---- 2. units, users, udev, config ------------------------------------------------------------
lib=$root/usr/lib
# The door's unit is deploy/kioskpad.service with the package's paths.
install -d "$lib/systemd/system" "$lib/sysusers.d" "$lib/udev/rules.d"
sed -e 's|/usr/local/bin/kioskpad|/usr/bin/kioskpad|g' \
    -e 's|^# KioskPad door terminal (installed by deploy/install.sh; see docs/raspberry-pi.md)|# KioskPad door terminal (installed by the kioskpad Debian package; see docs/raspberry-pi.md)|' \
    -e 's|^Documentation=.*|Documentation=man:kioskpad.run(1) file:/usr/share/doc/kioskpad/raspberry-pi.md.gz|' \
    deploy/kioskpad.service > "$lib/systemd/system/kioskpad.service"
if grep -q '/usr/local' "$lib/systemd/system/kioskpad.service"; then die "deploy/kioskpad.service names /usr/local after the rewrite"; fi
install -m 0644 deploy/debian/kioskpad-verifier.service "$lib/systemd/system/kioskpad-verifier.service"
install -m 0644 deploy/kioskpad.sysusers "$lib/sysusers.d/kioskpad.conf"
install -m 0644 deploy/debian/kioskpad-verifier.sysusers "$lib/sysusers.d/kioskpad-verifier.conf"
sed 's|Installed by deploy/install.sh.|Installed by the kioskpad Debian package.|' deploy/99-kioskpad.rules > "$lib/udev/rules.d/99-kioskpad.rules"
install -d "$root/etc/kioskpad" "$root/etc/kioskpad-verifier"
install -m 0644 config/pi-4x4-lcd1602.yaml "$root/etc/kioskpad/kioskpad.yaml"
install -m 0644 deploy/debian/verifier.yaml "$root/etc/kioskpad-verifier/verifier.yaml"
printf '/etc/kioskpad/kioskpad.yaml\n/etc/kioskpad-verifier/verifier.yaml\n' > "$root/DEBIAN/conffiles"
chmod 0644 "$lib"/systemd/system/* "$lib"/sysusers.d/* "$lib"/udev/rules.d/*

# ---- 3. docs, man pages, completions ----------------------------------------------------------
doc=$root/usr/share/doc/kioskpad
install -d "$doc/examples"
for file in README.md docs/raspberry-pi.md; do gzip -9n < "$file" > "$doc/$(basename "$file").gz"; done
install -m 0644 config/simulate.yaml config/users.example config/verifier.yaml "$doc/examples/"
install -m 0644 deploy/debian/copyright "$doc/copyright"
# Swift packages compile their C libraries in (Yams: libyaml; swift-nio-extras: zlib); lintian
# calls that an error, and the overrides file says why it stays.
install -D -m 0644 deploy/debian/lintian-overrides "$root/usr/share/lintian/overrides/kioskpad"
stamp=$(git log -1 --format=%cD 2>/dev/null || date -R)
printf 'kioskpad (%s) stable; urgency=medium\n\n  * Built from %s by scripts/package-deb.sh.\n\n -- %s  %s\n' \
    "$version" "$(git describe --always --dirty 2>/dev/null || echo 'a source tree')" "$maintainer" "$stamp" | gzip -9n > "$doc/changelog.Debian.gz"
chmod 0644 "$doc"/*.gz "$doc/examples"/*

# One man page per command, from the binary's own help (swift-argument-parser's generate-manual).
say "man pages (swift-argument-parser's generate-manual)"
manual_build=.build-manual
swift build --package-path .build/checkouts/swift-argument-parser --scratch-path "$manual_build" \
    -c release --product generate-manual >"$work/manual-build.log" 2>&1 \
    || { tail -20 "$work/manual-build.log" >&2; die "could not build generate-manual (run swift package resolve first)"; }
man=$root/usr/share/man/man1
install -d "$man"
mkdir -p "$work/man"
"$manual_build/release/generate-manual" "$work/kioskpad.full" --multi-page --output-directory "$work/man" \
    --date "$(git log -1 --format=%cs 2>/dev/null || date +%F)" --authors 'KioskPad maintainers' >&2
# A subcommand's page is named "kioskpad run" (with a space), which whatis cannot index:
# NAME gets the page's own name (kioskpad.run), and the synopsis keeps the command as typed.
for page in "$work"/man/*.1; do
    awk 'name == "" && /^\.Nm "/ { name = substr($0, 5); page = name; gsub(/"/, "", page); gsub(/ /, ".", page); print ".Nm " page; next }
         name != "" && /^\.Nm$/ { print ".Nm " name; next } { print }' "$page" | gzip -9n > "$man/$(basename "$page").gz"
done
chmod 0644 "$man"/*.gz
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions"
# bash-completion sources the file: no #! line.
"$work/kioskpad.full" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/kioskpad"
"$work/kioskpad.full" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_kioskpad"
chmod 0644 "$root/usr/share/bash-completion/completions/kioskpad" "$root/usr/share/zsh/vendor-completions/_kioskpad"

# ---- 4. control --------------------------------------------------------------------------------
install -m 0755 deploy/debian/preinst deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$root/DEBIAN/"
# dpkg-shlibdeps reads debian/control of a source tree: a minimal one in the work folder.
install -d "$work/src/debian"
printf 'Source: kioskpad\n\nPackage: kioskpad\nArchitecture: any\n' > "$work/src/debian/control"
(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/kioskpad") > "$work/shlibs" 2>"$work/shlibs.log" \
    || { cat "$work/shlibs.log" >&2; die "dpkg-shlibdeps failed"; }
shlibs=$(sed -n 's/^shlibs:Depends=//p' "$work/shlibs")
[ -n "$shlibs" ] || die "dpkg-shlibdeps found no libraries"
# Packed relative relocations (Package.swift's leanExecutable) need glibc 2.36, which
# dpkg-shlibdeps does not see from the symbol versions.
if objdump -p "$root/usr/bin/kioskpad" | grep -q GLIBC_ABI_DT_RELR; then
    shlibs=$(printf '%s' "$shlibs" | sed -E 's/libc6 \(>= [^)]*\)/libc6 (>= 2.36)/')
fi
installed_kb=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<EOF
Package: kioskpad
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_kb
Depends: $shlibs, systemd, passwd, udev
Suggests: kioskpad-dbgsym, libmosquitto1 (>= 2.0), libqrencode4
Section: admin
Priority: optional
Description: door and kiosk PIN terminal for a matrix keypad and a text display
 KioskPad turns a Raspberry Pi with a GPIO matrix keypad (or a USB or
 Wiegand keypad) and a character LCD into a door or kiosk PIN terminal:
 masked PIN or one-time code entry, a signed verifier request, a door relay
 pulsed on a grant, lockout after repeated failures, and an audit journal.
 .
 kioskpad.service runs the door terminal; kioskpad-verifier.service runs
 the site server (verifier, door events, credential replicas, browser
 console), off until enabled.
EOF
# DEBIAN/md5sums of a package tree: every file but the control area, sorted.
md5sums_of() { (cd "$1" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z | sed -z 's|^\./||' | xargs -0 md5sum) > "$1/DEBIAN/md5sums"; }
md5sums_of "$root"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

dbg_kb=$(du -sk --exclude=DEBIAN "$dbg" | cut -f1)
install -d "$dbg/usr/share/doc"
ln -s kioskpad "$dbg/usr/share/doc/kioskpad-dbgsym"
cat > "$dbg/DEBIAN/control" <<EOF
Package: kioskpad-dbgsym
Source: kioskpad
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $dbg_kb
Depends: kioskpad (= $version)
Section: debug
Priority: optional
Auto-Built-Package: debug-symbols
Build-Ids: $build_id
Description: debug symbols for kioskpad
 The DWARF debug information of /usr/bin/kioskpad, for gdb and readable crash
 backtraces (found by build id).
EOF
md5sums_of "$dbg"
chmod 0644 "$dbg/DEBIAN/control" "$dbg/DEBIAN/md5sums"

mkdir -p "$output"
deb=$output/kioskpad_${version}_$arch.deb
dbgsym=$output/kioskpad-dbgsym_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
dpkg-deb --root-owner-group -Zxz --build "$dbg" "$dbgsym" >&2
say "$deb: $(du -k "$deb" | cut -f1) kB, installed $installed_kb kB; Depends: $shlibs"
say "$dbgsym: $(du -k "$dbgsym" | cut -f1) kB"
echo "$deb"
