#!/usr/bin/env bash
# Fails on what the amd64 build (Swift 6.3.1) said took too long to type-check in the
# project's own sources: Package.swift gives every target the frontend's
# -warn-long-expression-type-checking and -warn-long-function-bodies limits, and a build log
# that holds such a warning for a file under Sources/, Tests/ or Plugins/ fails here. The
# limits sit well above the slowest expression and body measured (docs/development.md,
# "Compilers"), so a failure is code that got slow, not a busy machine.
#   scripts/check-type-check-times.sh BUILD_LOG
set -euo pipefail
log=${1:?usage: check-type-check-times.sh BUILD_LOG}
root=$(cd "$(dirname "$0")/.." && pwd)
slow=$(grep -aE "^$root/(Sources|Tests|Plugins)/.*warning: .* took [0-9]+ms to type-check \(limit: [0-9]+ms\)" "$log" | sort -u || true)
if [ -n "$slow" ]; then
    printf 'type-check: %s\n' "$slow" | sed "s#$root/##"
    echo "type-check: $(printf '%s\n' "$slow" | wc -l) expressions or bodies over the limit: break them up (Debian's Swift 6.2.3, the arm64 compiler, may refuse them)" >&2
    exit 1
fi
echo "type-check: no expression or function body over the limits in the project's sources"
