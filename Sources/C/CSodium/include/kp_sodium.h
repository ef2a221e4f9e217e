#ifndef KP_SODIUM_H
#define KP_SODIUM_H

#include <stddef.h>

/// libsodium's ristretto255 primitives (the group CPace runs in), loaded at run time from
/// libsodium.so.23 (Debian's and Raspberry Pi OS's libsodium23): only pairing needs them, so
/// neither program links the library and a build needs no libsodium headers.

/// Loads the library and runs sodium_init() once. Returns 0 when the functions below may be
/// called; -1, with why in `error`, when they may not.
int kp_sodium_load(char *error, size_t error_size);

/// crypto_core_ristretto255_from_hash: the one-way map of 64 uniform bytes to a point (its
/// 32-byte encoding in `point`). Returns 0, or -1 when the library is not loaded.
int kp_ristretto255_from_hash(unsigned char point[32], const unsigned char hash[64]);

/// crypto_scalarmult_ristretto255: `result` = `scalar` times the point `point` encodes.
/// Returns -1 when `point` is not a valid encoding, when the result is the identity, or when
/// the library is not loaded; 0 otherwise.
int kp_ristretto255_scalarmult(unsigned char result[32], const unsigned char scalar[32], const unsigned char point[32]);

/// crypto_core_ristretto255_scalar_random: a uniform scalar in [1, L). Returns 0, or -1 when
/// the library is not loaded.
int kp_ristretto255_scalar_random(unsigned char scalar[32]);

#endif
