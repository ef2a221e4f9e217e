#include "kp_qrcode.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libqrencode's ABI (qrencode.h, soname 4): the symbol as the library returns it. */
typedef struct {
    int version;
    int width;
    unsigned char *data;
} kp_qrcode_symbol;

typedef kp_qrcode_symbol *(*kp_encode_8bit)(const char *string, int version, int level);
typedef void (*kp_free)(kp_qrcode_symbol *symbol);

static pthread_once_t kp_once = PTHREAD_ONCE_INIT;
static kp_encode_8bit kp_encode_fn;
static kp_free kp_free_fn;
static char kp_load_error[256];

static void kp_load(void) {
    void *library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(kp_load_error, sizeof kp_load_error, "libqrencode.so.4 cannot be loaded (%s); install libqrencode4", why ? why : "unknown");
        return;
    }
    kp_encode_fn = (kp_encode_8bit)dlsym(library, "QRcode_encodeString8bit");
    kp_free_fn = (kp_free)dlsym(library, "QRcode_free");
    if (kp_encode_fn == NULL || kp_free_fn == NULL) {
        kp_encode_fn = NULL;
        snprintf(kp_load_error, sizeof kp_load_error, "libqrencode.so.4 has no QRcode_encodeString8bit or QRcode_free");
    }
}

int kp_qr_encode(const char *text, unsigned char **modules, int *width, char *error, size_t error_size) {
    pthread_once(&kp_once, kp_load);
    if (kp_encode_fn == NULL) {
        snprintf(error, error_size, "%s", kp_load_error);
        return -1;
    }
    /* Level M (1): about 15% of the symbol can be damaged; version 0: the smallest that fits. */
    kp_qrcode_symbol *symbol = kp_encode_fn(text, 0, 1);
    if (symbol == NULL) {
        snprintf(error, error_size, "libqrencode could not encode the text: %s", strerror(errno));
        return -1;
    }
    size_t count = (size_t)symbol->width * (size_t)symbol->width;
    unsigned char *copy = malloc(count);
    if (copy == NULL) {
        kp_free_fn(symbol);
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    for (size_t index = 0; index < count; index++) copy[index] = symbol->data[index] & 1;
    *width = symbol->width;
    *modules = copy;
    kp_free_fn(symbol);
    return 0;
}
