#include "kp_mosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* One pointer per function, typed from mosquitto.h's own prototype, so a mismatch with the
 * header is a compile error. */
#define KP_FUNCTIONS(X) \
    X(mosquitto_lib_init) X(mosquitto_new) X(mosquitto_destroy) X(mosquitto_threaded_set) \
    X(mosquitto_int_option) X(mosquitto_reconnect_delay_set) X(mosquitto_will_set) \
    X(mosquitto_username_pw_set) X(mosquitto_tls_set) X(mosquitto_connect_callback_set) \
    X(mosquitto_disconnect_callback_set) X(mosquitto_message_callback_set) \
    X(mosquitto_connect_async) X(mosquitto_loop_forever) X(mosquitto_publish) \
    X(mosquitto_subscribe) X(mosquitto_disconnect) X(mosquitto_strerror) X(mosquitto_connack_string)

#define KP_POINTER(name) static __typeof__(name) *kp_##name##_fn;
KP_FUNCTIONS(KP_POINTER)

static pthread_once_t kp_once = PTHREAD_ONCE_INIT;
static int kp_loaded;
static char kp_load_error[256];

static void kp_load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(kp_load_error, sizeof kp_load_error,
                 "libmosquitto.so.1 cannot be loaded (%s); install libmosquitto1", why ? why : "unknown");
        return;
    }
#define KP_RESOLVE(name)                                                                         \
    kp_##name##_fn = (__typeof__(name) *)dlsym(library, #name);                                  \
    if (kp_##name##_fn == NULL) {                                                                \
        snprintf(kp_load_error, sizeof kp_load_error, "libmosquitto.so.1 has no %s; install libmosquitto1 1.6 or newer", #name); \
        return;                                                                                  \
    }
    KP_FUNCTIONS(KP_RESOLVE)
    int code = kp_mosquitto_lib_init_fn();
    if (code != MOSQ_ERR_SUCCESS) {
        snprintf(kp_load_error, sizeof kp_load_error, "mosquitto_lib_init failed: %s", kp_mosquitto_strerror_fn(code));
        return;
    }
    kp_loaded = 1;
}

int kp_mosquitto_load(char *error, size_t error_size) {
    pthread_once(&kp_once, kp_load);
    if (kp_loaded) return 0;
    snprintf(error, error_size, "%s", kp_load_error);
    return -1;
}

struct mosquitto *kp_mosquitto_new(const char *id, bool clean_session, void *obj) {
    return kp_mosquitto_new_fn(id, clean_session, obj);
}
void kp_mosquitto_destroy(struct mosquitto *mosq) { kp_mosquitto_destroy_fn(mosq); }
int kp_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded) { return kp_mosquitto_threaded_set_fn(mosq, threaded); }
int kp_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return kp_mosquitto_int_option_fn(mosq, option, value);
}
int kp_mosquitto_reconnect_delay_set(struct mosquitto *mosq, unsigned int delay, unsigned int delay_max, bool exponential) {
    return kp_mosquitto_reconnect_delay_set_fn(mosq, delay, delay_max, exponential);
}
int kp_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain) {
    return kp_mosquitto_will_set_fn(mosq, topic, payloadlen, payload, qos, retain);
}
int kp_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return kp_mosquitto_username_pw_set_fn(mosq, username, password);
}
int kp_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile) {
    return kp_mosquitto_tls_set_fn(mosq, cafile, capath, certfile, keyfile, NULL);
}
void kp_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    kp_mosquitto_connect_callback_set_fn(mosq, on_connect);
}
void kp_mosquitto_disconnect_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int)) {
    kp_mosquitto_disconnect_callback_set_fn(mosq, on_disconnect);
}
void kp_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)) {
    kp_mosquitto_message_callback_set_fn(mosq, on_message);
}
int kp_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return kp_mosquitto_connect_async_fn(mosq, host, port, keepalive);
}
int kp_mosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets) {
    return kp_mosquitto_loop_forever_fn(mosq, timeout, max_packets);
}
int kp_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain) {
    return kp_mosquitto_publish_fn(mosq, mid, topic, payloadlen, payload, qos, retain);
}
int kp_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) {
    return kp_mosquitto_subscribe_fn(mosq, mid, sub, qos);
}
int kp_mosquitto_disconnect(struct mosquitto *mosq) { return kp_mosquitto_disconnect_fn(mosq); }
const char *kp_mosquitto_strerror(int code) { return kp_mosquitto_strerror_fn(code); }
const char *kp_mosquitto_connack_string(int code) { return kp_mosquitto_connack_string_fn(code); }
