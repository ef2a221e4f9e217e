/* keypad_gpio.h without libgpiod (no libgpiod-dev, or not Linux): every call says why. */
#include "kp_internal.h"

#if !defined(KP_LIBGPIOD_V1) && !defined(KP_LIBGPIOD_V2)
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const missing = "this build has no libgpiod (install libgpiod-dev and rebuild)";

struct kp_matrix { int unused; };
struct kp_output { int unused; };

int kp_api_version(void) { return 0; }
const char *kp_library_version(void) { return "none"; }

static void unsupported(struct kp_error *error) {
    if (error) {
        memset(error, 0, sizeof *error);
        error->code = KP_ERR_UNSUPPORTED;
        snprintf(error->detail, sizeof error->detail, "%s", missing);
    }
    errno = ENOTSUP;
}

kp_matrix *kp_open(const char *chip, const int *row_offsets, const char *const *row_names, unsigned rows,
                   const int *column_offsets, const char *const *column_names, unsigned columns, int active_low,
                   const char *consumer, struct kp_error *error) {
    (void)chip; (void)row_offsets; (void)row_names; (void)rows; (void)column_offsets; (void)column_names;
    (void)columns; (void)active_low; (void)consumer;
    unsupported(error);
    return NULL;
}
kp_matrix *kp_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                          int active_low, const char *consumer, struct kp_error *error) {
    (void)chip; (void)offsets; (void)names; (void)count; (void)active_low; (void)consumer;
    unsupported(error);
    return NULL;
}
kp_matrix *kp_pulse_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                                const char *consumer, struct kp_error *error) {
    (void)chip; (void)offsets; (void)names; (void)count; (void)consumer;
    unsupported(error);
    return NULL;
}
int kp_drive(kp_matrix *m, int row) { (void)m; (void)row; errno = ENOTSUP; return -1; }
int kp_read_columns(kp_matrix *m, uint8_t *mask) { (void)m; (void)mask; errno = ENOTSUP; return -1; }
int kp_drain_edges(kp_matrix *m, uint64_t *first_ns, uint64_t *last_ns) {
    (void)m;
    *first_ns = 0;
    if (last_ns) *last_ns = 0;
    errno = ENOTSUP;
    return -1;
}
int kp_read_edges(kp_matrix *m, struct kp_edge *edges, unsigned capacity) {
    (void)m; (void)edges; (void)capacity; errno = ENOTSUP; return -1;
}
int kp_wait_edge(kp_matrix *m, int timeout_ms) { (void)m; (void)timeout_ms; errno = ENOTSUP; return -1; }
void kp_wake(kp_matrix *m) { (void)m; }
unsigned long kp_value_calls(const kp_matrix *m) { (void)m; return 0; }
void kp_close(kp_matrix *m) { (void)m; }
void kp_list_chips(char *buffer, size_t length) { if (length) buffer[0] = '\0'; }
kp_output *kp_output_open(const char *chip, int offset, const char *name, int active_low, const char *consumer,
                          struct kp_error *error) {
    (void)chip; (void)offset; (void)name; (void)active_low; (void)consumer;
    unsupported(error);
    return NULL;
}
int kp_output_set(kp_output *out, int on) { (void)out; (void)on; errno = ENOTSUP; return -1; }
void kp_output_close(kp_output *out) { (void)out; }
#endif
