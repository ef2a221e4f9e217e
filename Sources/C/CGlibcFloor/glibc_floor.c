/* The glibc 2.38 symbols a program built against trixie calls, defined in the program so that
 * it needs glibc 2.36 at most.
 *
 * Debian's Swift runtime (the static libraries the arm64 programs are linked with) was compiled
 * against glibc 2.38 headers or newer, so it calls the C23 entry points __isoc23_strtol,
 * __isoc23_strtoll, __isoc23_strtoul and __isoc23_sscanf, and strlcpy and strlcat, all new in
 * glibc 2.38 (C code compiled against the trixie sysroot calls __isoc23_fscanf too); and linked against trixie's libm, fmod and fmodf take their GLIBC_2.38 version.
 * Raspberry Pi OS bookworm has glibc 2.36. A definition in the program wins over a shared
 * library's, so every call in the binary lands here, and from here on the functions glibc has
 * had since long before bookworm (bound by symbol name or version, never through headers that
 * would redirect them back to the C23 names).
 *
 * The C23 difference these keep: strtol and friends read a binary number after "0b" or "0B"
 * when the base is 0 or 2. sscanf forwards to the pre-C23 vsscanf: its new %b conversion and
 * "0b" under %i are not read (the runtime's formats use neither). */
#include "glibc_floor.h"

#include <errno.h>
#include <limits.h> /* and with it, on glibc, <features.h> and __GLIBC__ */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__linux__) && defined(__GLIBC__)

/* The pre-C23 functions, named by their symbols: glibc 2.38's headers would redirect a call to
 * strtol to __isoc23_strtol, which here is the function being defined. */
extern long kp_c17_strtol(const char *, char **, int) __asm__("strtol");
extern long long kp_c17_strtoll(const char *, char **, int) __asm__("strtoll");
extern unsigned long kp_c17_strtoul(const char *, char **, int) __asm__("strtoul");
extern int kp_c17_vsscanf(const char *, const char *, va_list) __asm__("vsscanf");
extern int kp_c17_vfscanf(FILE *, const char *, va_list) __asm__("vfscanf");

const char *kp_glibc_floor_replaces(void) { return "GLIBC_2.38"; }

/* After white space and a sign: the binary digits of a C23 "0b" number, or NULL when `text`
 * is not one for this base (then the C17 function reads it, with the same result as C23's). */
static const char *binary_digits(const char *text, int base, int *negative) {
    const char *p = text;
    if (base != 0 && base != 2) return NULL;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) p++;
    *negative = 0;
    if (*p == '+' || *p == '-') {
        *negative = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B') && (p[2] == '0' || p[2] == '1')) return p + 2;
    return NULL;
}

/* The magnitude of binary `digits`, at most `limit`: beyond it, `limit` and *overflow set. */
static unsigned long long binary_magnitude(const char *digits, char **end, unsigned long long limit, int *overflow) {
    unsigned long long value = 0;
    const char *p = digits;
    *overflow = 0;
    for (; *p == '0' || *p == '1'; p++) {
        if (value > (limit - (unsigned)(*p - '0')) / 2) *overflow = 1;
        if (!*overflow) value = value * 2 + (unsigned)(*p - '0');
    }
    if (end) *end = (char *)p;
    if (*overflow) {
        errno = ERANGE;
        return limit;
    }
    return value;
}

static long long signed_binary(const char *digits, char **end, int negative, long long max) {
    int overflow;
    unsigned long long limit = negative ? (unsigned long long)max + 1 : (unsigned long long)max;
    unsigned long long magnitude = binary_magnitude(digits, end, limit, &overflow);
    if (!negative) return (long long)magnitude;
    return magnitude == limit ? -max - 1 : -(long long)magnitude;
}

long __isoc23_strtol(const char *text, char **end, int base) {
    int negative;
    const char *digits = binary_digits(text, base, &negative);
    if (!digits) return kp_c17_strtol(text, end, base);
    return (long)signed_binary(digits, end, negative, LONG_MAX);
}

long long __isoc23_strtoll(const char *text, char **end, int base) {
    int negative;
    const char *digits = binary_digits(text, base, &negative);
    if (!digits) return kp_c17_strtoll(text, end, base);
    return signed_binary(digits, end, negative, LLONG_MAX);
}

unsigned long __isoc23_strtoul(const char *text, char **end, int base) {
    int negative, overflow;
    const char *digits = binary_digits(text, base, &negative);
    if (!digits) return kp_c17_strtoul(text, end, base);
    unsigned long magnitude = (unsigned long)binary_magnitude(digits, end, ULONG_MAX, &overflow);
    if (overflow) return ULONG_MAX;
    return negative ? -magnitude : magnitude;
}

int __isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned = kp_c17_vsscanf(text, format, arguments);
    va_end(arguments);
    return assigned;
}

/* The hardware-in-loop keypad emulator's own (Tests/HIL/KeypadEmulator, C compiled against the
 * trixie sysroot); the programs do not call it. */
int __isoc23_fscanf(FILE *stream, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned = kp_c17_vfscanf(stream, format, arguments);
    va_end(arguments);
    return assigned;
}

/* BSD's strlcpy and strlcat, as glibc 2.38 has them: the length of what they tried to make. */
size_t strlcpy(char *destination, const char *source, size_t size) {
    size_t length = 0;
    while (source[length]) length++;
    if (size) {
        size_t copied = length < size - 1 ? length : size - 1;
        for (size_t index = 0; index < copied; index++) destination[index] = source[index];
        destination[copied] = 0;
    }
    return length;
}

size_t strlcat(char *destination, const char *source, size_t size) {
    size_t used = 0;
    while (used < size && destination[used]) used++;
    if (used == size) {
        size_t length = 0;
        while (source[length]) length++;
        return size + length;
    }
    return used + strlcpy(destination + used, source, size - used);
}

/* fmod and fmodf through fmodl, which kept its first version in glibc 2.38 (fmod and fmodf
 * took a new one, without the SVID error wrapper). The remainder is exact in any precision, so
 * the long double one, rounded back, is the same number; y = 0 or an infinite x give NaN and
 * EDOM as before. Compiled with -fno-builtin, so the compiler cannot turn these back into calls
 * to fmod (a versioned reference would not do: the linker binds fmod@GLIBC_2.17 to the program's
 * own fmod, defined here). */
extern long double kp_fmodl(long double, long double) __asm__("fmodl");
double fmod(double x, double y) { return (double)kp_fmodl(x, y); }
float fmodf(float x, float y) { return (float)kp_fmodl(x, y); }

#else
const char *kp_glibc_floor_replaces(void) { return ""; }
#endif
