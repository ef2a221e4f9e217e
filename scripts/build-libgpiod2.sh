#!/usr/bin/env bash
# Builds the libgpiod 2.x C library (the v2 API that Debian 13 and Raspberry Pi OS trixie ship)
# into PREFIX, so KioskPad's v2 backend can be built and tested on Debian 12, which has only
# libgpiod 1.6. The source is the complete libgpiod C core vendored in the PyPI sdist of the
# Python bindings (`gpiod`), pinned by version and SHA-256.
#
#   scripts/build-libgpiod2.sh PREFIX
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig swift build --scratch-path .build-gpiod2
#
# PREFIX gets include/gpiod.h, lib/libgpiod.a (static, position-independent: a binary built
# against it needs no library path at run time) and lib/pkgconfig/libgpiod.pc. This is for
# tests only; on trixie, `apt install libgpiod-dev` gives the real thing.
set -euo pipefail
prefix=${1:?usage: scripts/build-libgpiod2.sh PREFIX}
sdist_version=2.5.0
sdist_sha256=53ae5a1f14d6388c155b591ca0fc0cfa73b44d4f6d8d117e8a9e68f5902d187a

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
if [ -f "$prefix/lib/libgpiod.a" ] && [ -f "$prefix/.sdist-$sdist_version" ]; then
    echo "libgpiod2: already built in $prefix ($(pkg-config --modversion "$prefix/lib/pkgconfig/libgpiod.pc"))" >&2
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --disable-pip-version-check --no-binary :all: --no-deps \
    --dest "$work" "gpiod==$sdist_version" >&2
archive="$work/gpiod-$sdist_version.tar.gz"
echo "$sdist_sha256  $archive" | sha256sum --check --quiet - \
    || { echo "libgpiod2: $archive does not have the pinned SHA-256" >&2; exit 1; }
tar -C "$work" -xzf "$archive"
src="$work/gpiod-$sdist_version"
# The C library's own version (2.3 in gpiod 2.5.0), as the library reports it.
version=$(tr -d '[:space:]' < "$src/libgpiod-version.txt")
[ -n "$version" ] || { echo "libgpiod2: no libgpiod-version.txt in the sdist" >&2; exit 1; }

mkdir -p "$prefix/include" "$prefix/lib/pkgconfig" "$work/obj"
for file in "$src"/lib/*.c; do
    cc -std=gnu11 -O2 -fPIC -D_GNU_SOURCE "-DGPIOD_API_VERSION_STR=\"$version\"" \
        -I"$src/include" -I"$src/lib" -c "$file" -o "$work/obj/$(basename "$file" .c).o"
done
rm -f "$prefix/lib/libgpiod.a"
ar rcs "$prefix/lib/libgpiod.a" "$work"/obj/*.o
install -m 0644 "$src/include/gpiod.h" "$prefix/include/gpiod.h"
cat > "$prefix/lib/pkgconfig/libgpiod.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libgpiod
Description: Library for interacting with Linux GPIO character devices (v2 API, built from the PyPI gpiod $sdist_version sdist for tests)
Version: $version
Libs: -L\${libdir} -lgpiod
Cflags: -I\${includedir}
PC
touch "$prefix/.sdist-$sdist_version"
echo "libgpiod2: built libgpiod $version into $prefix" >&2
