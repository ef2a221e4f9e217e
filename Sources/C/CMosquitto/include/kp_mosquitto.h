#ifndef KP_MOSQUITTO_H
#define KP_MOSQUITTO_H

/* Eclipse Mosquitto's MQTT client library (libmosquitto.so.1; Debian 12: 2.0.11), loaded at
 * run time by kp_mosquitto_load: a door without `mqtt:` never maps it, nor the OpenSSL it
 * links. Its header (libmosquitto-dev) is used at build time for the types, constants and
 * the prototypes the kp_ functions below must match; the binary does not link the library,
 * so call only the kp_ functions, never mosquitto_* directly. */
#include <mosquitto.h>
#include <stddef.h>

/* Loads libmosquitto.so.1 and initialises it, once per process. Returns 0 when it is ready;
 * else -1, with why (and what to install) in `error`. Every kp_mosquitto_* function below
 * may be called only after it returned 0. */
int kp_mosquitto_load(char *error, size_t error_size);

/* The library's functions of the same name without `kp_`, called through the loaded library. */
struct mosquitto *kp_mosquitto_new(const char *id, bool clean_session, void *obj);
void kp_mosquitto_destroy(struct mosquitto *mosq);
int kp_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded);
int kp_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
int kp_mosquitto_reconnect_delay_set(struct mosquitto *mosq, unsigned int delay, unsigned int delay_max, bool exponential);
int kp_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
int kp_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int kp_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile);
void kp_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
void kp_mosquitto_disconnect_callback_set(struct mosquitto *mosq, void (*on_disconnect)(struct mosquitto *, void *, int));
void kp_mosquitto_message_callback_set(struct mosquitto *mosq, void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
int kp_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive);
int kp_mosquitto_loop_forever(struct mosquitto *mosq, int timeout, int max_packets);
int kp_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain);
int kp_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
int kp_mosquitto_disconnect(struct mosquitto *mosq);
const char *kp_mosquitto_strerror(int code);
const char *kp_mosquitto_connack_string(int code);

#endif
