#include "kp_sodium.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libsodium's ABI (soname 23): the four functions pairing uses. */
typedef int (*kp_init_fn)(void);
typedef int (*kp_from_hash_fn)(unsigned char *p, const unsigned char *r);
typedef int (*kp_scalarmult_fn)(unsigned char *q, const unsigned char *n, const unsigned char *p);
typedef void (*kp_scalar_random_fn)(unsigned char *r);

static pthread_once_t kp_once = PTHREAD_ONCE_INIT;
static kp_from_hash_fn kp_from_hash;
static kp_scalarmult_fn kp_scalarmult;
static kp_scalar_random_fn kp_scalar_random;
static char kp_load_error[256];

static void kp_load(void) {
    void *library = dlopen("libsodium.so.23", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(kp_load_error, sizeof kp_load_error, "libsodium.so.23 cannot be loaded (%s); install libsodium23", why ? why : "unknown");
        return;
    }
    kp_init_fn init = (kp_init_fn)dlsym(library, "sodium_init");
    kp_from_hash_fn from_hash = (kp_from_hash_fn)dlsym(library, "crypto_core_ristretto255_from_hash");
    kp_scalarmult_fn scalarmult = (kp_scalarmult_fn)dlsym(library, "crypto_scalarmult_ristretto255");
    kp_scalar_random_fn scalar_random = (kp_scalar_random_fn)dlsym(library, "crypto_core_ristretto255_scalar_random");
    if (init == NULL || from_hash == NULL || scalarmult == NULL || scalar_random == NULL) {
        snprintf(kp_load_error, sizeof kp_load_error, "libsodium.so.23 has no ristretto255 functions (libsodium 1.0.18 or newer has them)");
        return;
    }
    if (init() < 0) {
        snprintf(kp_load_error, sizeof kp_load_error, "libsodium's sodium_init() failed");
        return;
    }
    kp_from_hash = from_hash;
    kp_scalarmult = scalarmult;
    kp_scalar_random = scalar_random;
}

int kp_sodium_load(char *error, size_t error_size) {
    pthread_once(&kp_once, kp_load);
    if (kp_scalarmult == NULL) {
        snprintf(error, error_size, "%s", kp_load_error);
        return -1;
    }
    return 0;
}

int kp_ristretto255_from_hash(unsigned char point[32], const unsigned char hash[64]) {
    pthread_once(&kp_once, kp_load);
    if (kp_from_hash == NULL) return -1;
    return kp_from_hash(point, hash) == 0 ? 0 : -1;
}

int kp_ristretto255_scalarmult(unsigned char result[32], const unsigned char scalar[32], const unsigned char point[32]) {
    pthread_once(&kp_once, kp_load);
    if (kp_scalarmult == NULL) return -1;
    return kp_scalarmult(result, scalar, point) == 0 ? 0 : -1;
}

int kp_ristretto255_scalar_random(unsigned char scalar[32]) {
    pthread_once(&kp_once, kp_load);
    if (kp_scalar_random == NULL) return -1;
    kp_scalar_random(scalar);
    return 0;
}
