#!/usr/bin/env bash
# The project's signed apt repository, built with reprepro from the packages
# scripts/package-deb.sh made, laid out for any static web server (docs/raspberry-pi.md,
# "From the project's apt repository").
#
#   scripts/apt-repo.sh --make-key FILE [--name TEXT]
#       makes a signing key (Ed25519, no passphrase: keep FILE on the machine that publishes,
#       mode 600) and writes its secret key to FILE, armored.
#   scripts/apt-repo.sh --repo DIR --key-file FILE --suite bookworm|trixie DEB...
#       publishes DEB... (kioskpad, kioskpad-verifier; amd64 or arm64) into SUITE of the
#       repository in DIR (made if new), replacing an older revision of each; signs the
#       suite's Release (InRelease and Release.gpg) with the key in FILE; writes the public key
#       as DIR/public/kioskpad-archive-keyring.gpg (for Signed-By) and .asc, and
#       DIR/public/kioskpad.sources.example. -dbgsym packages are left out.
#
# DIR/conf and DIR/db are reprepro's own; serve DIR/public as it is, with any static web
# server (https:// in production; apt checks the packages and indexes against the signed
# Release, so a mirror cannot change them unnoticed). Needs reprepro and gpg.
set -euo pipefail

die() { echo "apt-repo: $*" >&2; exit 2; }
say() { echo "apt-repo: $*" >&2; }

repo='' key_file='' suite='' make_key='' name='KioskPad archive signing key'
debs=()
while [ $# -gt 0 ]; do
    case $1 in
        --make-key) make_key=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --repo) repo=$2; shift 2 ;;
        --key-file) key_file=$2; shift 2 ;;
        --suite) suite=$2; shift 2 ;;
        --*) die "unknown option '$1' (valid: --make-key FILE [--name TEXT]; --repo DIR --key-file FILE --suite bookworm|trixie DEB...)" ;;
        *) debs+=("$1"); shift ;;
    esac
done

command -v gpg > /dev/null || die "gpg is not installed (apt-get install gpg)"
gnupg=$(mktemp -d /tmp/kioskpad-apt-gnupg.XXXXXX)
trap 'gpgconf --homedir "$gnupg" --kill all > /dev/null 2>&1 || true; rm -rf "$gnupg"' EXIT
export GNUPGHOME=$gnupg
chmod 700 "$gnupg"

if [ -n "$make_key" ]; then
    [ ! -e "$make_key" ] || die "--make-key $make_key exists already; a signing key is never overwritten"
    gpg --batch --quiet --pinentry-mode loopback --passphrase '' --quick-gen-key "$name" ed25519 sign never 2> /dev/null
    (umask 077 && gpg --batch --armor --export-secret-keys > "$make_key")
    say "signing key $(gpg --batch --with-colons --list-keys | awk -F: '/^fpr:/ { print $10; exit }') written to $make_key (mode 600; keep it off the web server)"
    exit 0
fi

[ -n "$repo" ] || die "--repo DIR is required (or --make-key FILE)"
[ -n "$key_file" ] || die "--key-file FILE is required: the secret key from --make-key"
[ -r "$key_file" ] || die "--key-file $key_file cannot be read"
case $suite in
    bookworm | trixie) ;;
    '') die "--suite is required: bookworm or trixie" ;;
    *) die "--suite '$suite' is not one this repository has (bookworm or trixie)" ;;
esac
[ ${#debs[@]} -gt 0 ] || die "no packages given (kioskpad_*.deb, kioskpad-verifier_*.deb)"
command -v reprepro > /dev/null || die "reprepro is not installed (apt-get install reprepro)"
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || die "$deb is not a file"
    package=$(dpkg-deb -f "$deb" Package) || die "$deb is not a Debian package"
    case $package in
        kioskpad | kioskpad-verifier) ;;
        *-dbgsym) ;;
        *) die "$deb is package '$package', not kioskpad or kioskpad-verifier" ;;
    esac
done

gpg --batch --quiet --import "$key_file" 2> /dev/null || die "--key-file $key_file holds no key gpg can import"
fingerprint=$(gpg --batch --with-colons --list-secret-keys | awk -F: '/^fpr:/ { print $10; exit }')
[ -n "$fingerprint" ] || die "--key-file $key_file holds no secret key (it must be the file --make-key wrote)"

mkdir -p "$repo/conf"
distribution() { # distribution CODENAME DESCRIPTION
    printf 'Origin: KioskPad\nLabel: KioskPad\nCodename: %s\nArchitectures: amd64 arm64\nComponents: main\nDescription: %s\nSignWith: %s\n\n' \
        "$1" "$2" "$fingerprint"
}
{
    distribution bookworm "KioskPad for Debian 12 and Raspberry Pi OS bookworm"
    distribution trixie "KioskPad for Debian 13 and Raspberry Pi OS trixie"
} > "$repo/conf/distributions"
: > "$repo/conf/options"

for deb in "${debs[@]}"; do
    case $(dpkg-deb -f "$deb" Package) in *-dbgsym) continue ;; esac
    reprepro --silent -b "$repo" --outdir "$repo/public" includedeb "$suite" "$deb"
    say "$suite: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)"
done
# Both suites' indexes and signatures, also the one no package went into this time.
reprepro --silent -b "$repo" --outdir "$repo/public" export

gpg --batch --export "$fingerprint" > "$repo/public/kioskpad-archive-keyring.gpg"
gpg --batch --armor --export "$fingerprint" > "$repo/public/kioskpad-archive-keyring.asc"
cat > "$repo/public/kioskpad.sources.example" <<SOURCES
# /etc/apt/sources.list.d/kioskpad.sources (Suites: bookworm or trixie, as the Pi's release)
Types: deb
URIs: https://apt.example.org/kioskpad
Suites: $suite
Components: main
Signed-By: /etc/apt/keyrings/kioskpad-archive-keyring.gpg
SOURCES
say "$repo/public: suite $suite signed with $fingerprint"
