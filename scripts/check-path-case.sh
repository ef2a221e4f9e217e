#!/usr/bin/env bash
# Fails when two tracked paths (files or the folders above them) differ only in letter
# case: on a case-insensitive file system (the macOS default) they would become one.
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(git ls-files \
    | awk -F/ '{ path = ""; for (i = 1; i <= NF; i++) { path = (i == 1 ? $i : path "/" $i); print path } }' \
    | sort -u | awk '{ print tolower($0) }' | sort | uniq -d)
if [ -n "$clashes" ]; then
    echo "check-path-case: tracked paths that differ only in letter case:" >&2
    while read -r lower; do
        git ls-files | awk -F/ -v want="$lower" '{ path = ""; for (i = 1; i <= NF; i++) { path = (i == 1 ? $i : path "/" $i); if (tolower(path) == want) print "  " path } }' | sort -u >&2
    done <<< "$clashes"
    exit 1
fi
echo "check-path-case: no two tracked paths differ only in case ($(git ls-files | wc -l) files)"
