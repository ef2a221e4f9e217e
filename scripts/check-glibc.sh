#!/usr/bin/env bash
# Checks that programs start on a glibc no newer than a release's: reads the glibc symbol
# versions each ELF binary requires (readelf -V, any architecture) and compares the newest with
# --max.
#
#   scripts/check-glibc.sh --max VERSION BINARY...    e.g. --max 2.36 (Debian 12 bookworm,
#                                                     Raspberry Pi OS bookworm); 2.41 for trixie
#
# Prints, per binary, the newest GLIBC_ version it needs and the symbols needing it; exits 1
# when one needs a version newer than VERSION, 2 on a usage error. CI runs it on every package's
# binaries (.ci/run for amd64, scripts/bookworm-arm64.sh for arm64).
set -euo pipefail
max=''
binaries=()
while [ $# -gt 0 ]; do
    case $1 in
        --max) max=${2:?--max needs a glibc version such as 2.36}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "check-glibc.sh: unknown option '$1' (valid: --max VERSION, --help)" >&2; exit 2 ;;
        *) binaries+=("$1"); shift ;;
    esac
done
[[ $max =~ ^2\.[0-9]+$ ]] || { echo "check-glibc.sh: --max must be a glibc version like 2.36, not '${max:-nothing}'" >&2; exit 2; }
[ ${#binaries[@]} -gt 0 ] || { echo "check-glibc.sh: name at least one binary" >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-glibc.sh: needs readelf (binutils)" >&2; exit 2; }
status=0
for binary in "${binaries[@]}"; do
    [ -f "$binary" ] || { echo "check-glibc.sh: no such file: $binary" >&2; exit 2; }
    newest=$(readelf -V --wide "$binary" | sed -n 's/.*Name: GLIBC_\(2\.[0-9.]*\) .*/\1/p' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
    [ -n "$newest" ] || { echo "check-glibc.sh: $binary requires no glibc version (not a dynamically linked glibc program?)" >&2; exit 2; }
    symbols=$(readelf --dyn-syms --wide "$binary" | awk -v v="GLIBC_$newest" '$8 ~ "@" v "( |$|\\()" { sub(/@.*/, "", $8); print $8 }' | sort -u | tr '\n' ' ')
    if [ "$(printf '%s\n%s\n' "$newest" "$max" | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)" = "$max" ]; then
        echo "ok: $binary needs GLIBC_$newest at most (<= $max): ${symbols% }"
    else
        echo "too new: $binary needs GLIBC_$newest (> $max) for: ${symbols% }"
        status=1
    fi
done
exit $status
