/* CGlibcFloor: what lets one binary, linked against glibc 2.38 or newer (Debian trixie), start
 * on glibc 2.36 (Debian 12 bookworm, Raspberry Pi OS bookworm) as well. Linked into both
 * programs; see glibc_floor.c. Nothing here is called from Swift but the version probe. */
#ifndef KIOSKPAD_GLIBC_FLOOR_H
#define KIOSKPAD_GLIBC_FLOOR_H

/* The newest glibc symbol version these definitions stand in for ("GLIBC_2.38"), or "" on a
 * libc other than glibc: the binary's ceiling is checked by scripts/check-glibc.sh. */
const char *kp_glibc_floor_replaces(void);

#endif
