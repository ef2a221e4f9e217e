#!/usr/bin/env bash
# Lays out the Swift code as .swift-format says (swift-format ships with the toolchain), or with
# --check changes nothing and fails on any difference or lint finding (what .ci/run runs).
#
#   scripts/format.sh           format every Swift file in place
#   scripts/format.sh --check   report, change nothing; exit 1 on a finding
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null 2>&1 || PATH="/opt/swift/usr/bin:$PATH"
files=(Sources Tests Benchmarks/Benchmarks Package.swift Benchmarks/Package.swift)
case ${1:-} in
    '') exec swift format format --in-place --recursive "${files[@]}" ;;
    --check) exec swift format lint --strict --recursive "${files[@]}" ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
    *) echo "format.sh: unknown option '$1' (valid: --check, --help)" >&2; exit 2 ;;
esac
