/* keypad_gpio.h on the libgpiod v1 API (1.6: Debian 12, Raspberry Pi OS bookworm). */
#define _GNU_SOURCE
#include "kp_internal.h"

#if defined(KP_LIBGPIOD_V1)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kp_matrix {
    struct gpiod_chip *chip;
    struct gpiod_line_bulk rows;
    struct gpiod_line_bulk columns;
    unsigned row_count;
    unsigned column_count;
    int active_low;
    int wake_pipe[2];
    unsigned long value_calls;
};

int kp_api_version(void) { return 1; }
const char *kp_library_version(void) { return gpiod_version_string(); }

int kp_describe_chip(const char *name, char *out, size_t length) {
    struct gpiod_chip *chip = gpiod_chip_open_by_name(name);
    if (!chip) return -1;
    snprintf(out, length, "[%s] (%u lines)", gpiod_chip_label(chip), gpiod_chip_num_lines(chip));
    gpiod_chip_close(chip);
    return 0;
}

/* Opens a chip by name, path, number or label; on failure says which chips exist. */
static struct gpiod_chip *open_chip(const char *chip, struct kp_error *error) {
    errno = 0;
    struct gpiod_chip *opened = gpiod_chip_open_lookup(chip);
    if (!opened) kp_chip_open_error(error);
    return opened;
}

static int resolve(kp_matrix *m, struct gpiod_line_bulk *bulk, const int *offsets, const char *const *names,
                   unsigned count, int group, struct kp_error *error) {
    unsigned lines = gpiod_chip_num_lines(m->chip);
    gpiod_line_bulk_init(bulk);
    for (unsigned i = 0; i < count; i++) {
        struct gpiod_line *line;
        if (offsets[i] >= 0) {
            if ((unsigned)offsets[i] >= lines) {
                char detail[128];
                snprintf(detail, sizeof detail, "%u", lines);
                errno = ERANGE;
                kp_set_error(error, KP_ERR_LINE_RANGE, group, (int)i, detail);
                return -1;
            }
            line = gpiod_chip_get_line(m->chip, (unsigned)offsets[i]);
        } else {
            line = gpiod_chip_find_line(m->chip, names[i]);
            if (!line) {
                kp_set_error(error, KP_ERR_LINE_NAME, group, (int)i, names[i]);
                return -1;
            }
        }
        if (!line) {
            kp_set_error(error, KP_ERR_SYSTEM, group, (int)i, strerror(errno));
            return -1;
        }
        gpiod_line_bulk_add(bulk, line);
    }
    return 0;
}

/* After a failed request: find the line another consumer holds. */
static void explain_busy(struct gpiod_line_bulk *bulk, int group, struct kp_error *error) {
    int saved = errno;
    for (unsigned i = 0; i < gpiod_line_bulk_num_lines(bulk); i++) {
        struct gpiod_line *line = gpiod_line_bulk_get_line(bulk, i);
        gpiod_line_update(line);
        if (gpiod_line_is_used(line)) {
            const char *consumer = gpiod_line_consumer(line);
            errno = saved;
            kp_set_error(error, KP_ERR_BUSY, group, (int)i, consumer ? consumer : "(unnamed consumer)");
            return;
        }
    }
    errno = saved;
    kp_set_error(error, kp_code_for_errno(saved), group, -1, strerror(saved));
}

kp_matrix *kp_open_lines(const char *chip, const int *row_offsets, const char *const *row_names, unsigned rows,
                             unsigned min_rows, const int *column_offsets, const char *const *column_names,
                             unsigned columns, int active_low, int active_edge_only, const char *consumer, struct kp_error *error) {
    if (kp_check_matrix_size(rows, min_rows, columns, error) < 0) return NULL;
    kp_matrix *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->row_count = rows;
    m->column_count = columns;
    m->active_low = active_low;
    m->wake_pipe[0] = m->wake_pipe[1] = -1;
    m->chip = open_chip(chip, error);
    if (!m->chip) {
        free(m);
        return NULL;
    }
    if (resolve(m, &m->rows, row_offsets, row_names, rows, KP_GROUP_ROWS, error) < 0 ||
        resolve(m, &m->columns, column_offsets, column_names, columns, KP_GROUP_COLUMNS, error) < 0) {
        gpiod_chip_close(m->chip);
        free(m);
        return NULL;
    }
    /* Rows: never driven to the inactive level, so two keys in one column cannot short
     * two outputs. Released = high impedance, held at the inactive level by the pull. */
    int row_flags = active_low ? (GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN | GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
                               : (GPIOD_LINE_REQUEST_FLAG_OPEN_SOURCE | GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN);
    int released[GPIOD_LINE_BULK_MAX_LINES];
    for (unsigned i = 0; i < rows; i++) released[i] = active_low ? 1 : 0;
    struct gpiod_line_request_config config = {
        .consumer = consumer, .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT, .flags = row_flags};
    if (rows > 0 && gpiod_line_request_bulk(&m->rows, &config, released) < 0) {
        explain_busy(&m->rows, KP_GROUP_ROWS, error);
        gpiod_chip_close(m->chip);
        free(m);
        return NULL;
    }
    int column_flags = active_low ? GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP : GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    int requested = !active_edge_only ? gpiod_line_request_bulk_both_edges_events_flags(&m->columns, consumer, column_flags)
                    : active_low      ? gpiod_line_request_bulk_falling_edge_events_flags(&m->columns, consumer, column_flags)
                                      : gpiod_line_request_bulk_rising_edge_events_flags(&m->columns, consumer, column_flags);
    if (requested < 0) {
        explain_busy(&m->columns, KP_GROUP_COLUMNS, error);
        if (rows > 0) gpiod_line_release_bulk(&m->rows);
        gpiod_chip_close(m->chip);
        free(m);
        return NULL;
    }
    if (pipe2(m->wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        kp_set_error(error, KP_ERR_SYSTEM, KP_GROUP_NONE, -1, strerror(errno));
        kp_close(m);
        return NULL;
    }
    return m;
}

int kp_drive(kp_matrix *m, int row) {
    int values[GPIOD_LINE_BULK_MAX_LINES];
    int active = m->active_low ? 0 : 1;
    for (unsigned i = 0; i < m->row_count; i++) values[i] = (row == KP_ALL_ROWS || (unsigned)row == i) ? active : !active;
    m->value_calls++;
    return gpiod_line_set_value_bulk(&m->rows, values);
}

int kp_read_columns(kp_matrix *m, uint8_t *mask) {
    int values[GPIOD_LINE_BULK_MAX_LINES];
    m->value_calls++;
    if (gpiod_line_get_value_bulk(&m->columns, values) < 0) return -1;
    uint8_t bits = 0;
    int active = m->active_low ? 0 : 1;
    for (unsigned i = 0; i < m->column_count; i++)
        if (values[i] == active) bits |= (uint8_t)(1u << i);
    *mask = bits;
    return 0;
}

int kp_drain_edges(kp_matrix *m, uint64_t *first_ns, uint64_t *last_ns) {
    struct gpiod_line_event events[16];
    *first_ns = 0;
    uint64_t last = 0;
    for (unsigned i = 0; i < m->column_count; i++) {
        int fd = gpiod_line_event_get_fd(gpiod_line_bulk_get_line(&m->columns, i));
        if (fd < 0) return -1;
        for (;;) {
            int ready = kp_fd_readable(fd);
            if (ready < 0) return -1;
            if (ready == 0) break;
            int count = gpiod_line_event_read_fd_multiple(fd, events, 16);
            if (count < 0) return -1;
            /* Since Linux 5.7 the v1 uAPI stamps events with CLOCK_MONOTONIC. */
            for (int e = 0; e < count; e++) {
                uint64_t ns = (uint64_t)events[e].ts.tv_sec * 1000000000u + (uint64_t)events[e].ts.tv_nsec;
                if (*first_ns == 0 || ns < *first_ns) *first_ns = ns;
                if (ns > last) last = ns;
            }
        }
    }
    if (last_ns) *last_ns = last;
    return 0;
}

int kp_read_edges(kp_matrix *m, struct kp_edge *edges, unsigned capacity) {
    struct gpiod_line_event events[16];
    unsigned filled = 0;
    for (unsigned i = 0; i < m->column_count && filled < capacity; i++) {
        int fd = gpiod_line_event_get_fd(gpiod_line_bulk_get_line(&m->columns, i));
        if (fd < 0) return -1;
        while (filled < capacity) {
            int ready = kp_fd_readable(fd);
            if (ready < 0) return -1;
            if (ready == 0) break;
            unsigned room = capacity - filled < 16 ? capacity - filled : 16;
            int count = gpiod_line_event_read_fd_multiple(fd, events, room);
            if (count < 0) return -1;
            for (int e = 0; e < count; e++) {
                edges[filled++] = (struct kp_edge){
                    .timestamp_ns = (uint64_t)events[e].ts.tv_sec * 1000000000u + (uint64_t)events[e].ts.tv_nsec,
                    .line = (uint8_t)i,
                    .rising = events[e].event_type == GPIOD_LINE_EVENT_RISING_EDGE,
                };
            }
        }
    }
    return (int)filled;
}

int kp_wait_edge(kp_matrix *m, int timeout_ms) {
    struct pollfd fds[GPIOD_LINE_BULK_MAX_LINES + 1];
    for (unsigned i = 0; i < m->column_count; i++)
        fds[i] = (struct pollfd){.fd = gpiod_line_event_get_fd(gpiod_line_bulk_get_line(&m->columns, i)), .events = POLLIN};
    return kp_wait_with_wake(fds, m->column_count, m->wake_pipe[0], timeout_ms);
}

void kp_wake(kp_matrix *m) { kp_signal_wake(m->wake_pipe[1]); }

unsigned long kp_value_calls(const kp_matrix *m) { return m->value_calls; }

void kp_close(kp_matrix *m) {
    if (!m) return;
    if (gpiod_line_bulk_num_lines(&m->rows) > 0) {
        gpiod_line_release_bulk(&m->rows);
    }
    if (gpiod_line_bulk_num_lines(&m->columns) > 0) gpiod_line_release_bulk(&m->columns);
    if (m->wake_pipe[0] >= 0) close(m->wake_pipe[0]);
    if (m->wake_pipe[1] >= 0) close(m->wake_pipe[1]);
    gpiod_chip_close(m->chip);
    free(m);
}

struct kp_output {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
};

kp_output *kp_output_open(const char *chip, int offset, const char *name, int active_low, const char *consumer,
                          struct kp_error *error) {
    if (error) memset(error, 0, sizeof *error);
    kp_output *out = calloc(1, sizeof *out);
    if (!out) return NULL;
    out->chip = open_chip(chip, error);
    if (!out->chip) {
        free(out);
        return NULL;
    }
    if (offset >= 0) {
        unsigned lines = gpiod_chip_num_lines(out->chip);
        if ((unsigned)offset >= lines) {
            char detail[32];
            snprintf(detail, sizeof detail, "%u", lines);
            errno = ERANGE;
            kp_set_error(error, KP_ERR_LINE_RANGE, KP_GROUP_NONE, 0, detail);
            gpiod_chip_close(out->chip);
            free(out);
            return NULL;
        }
        out->line = gpiod_chip_get_line(out->chip, (unsigned)offset);
    } else {
        out->line = gpiod_chip_find_line(out->chip, name);
        if (!out->line) {
            kp_set_error(error, KP_ERR_LINE_NAME, KP_GROUP_NONE, 0, name);
            gpiod_chip_close(out->chip);
            free(out);
            return NULL;
        }
    }
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (gpiod_line_request_output_flags(out->line, consumer, flags, 0) < 0) {
        struct gpiod_line_bulk bulk;
        gpiod_line_bulk_init(&bulk);
        gpiod_line_bulk_add(&bulk, out->line);
        explain_busy(&bulk, KP_GROUP_NONE, error);
        gpiod_chip_close(out->chip);
        free(out);
        return NULL;
    }
    return out;
}

int kp_output_set(kp_output *out, int on) { return gpiod_line_set_value(out->line, on ? 1 : 0); }

void kp_output_close(kp_output *out) {
    if (!out) return;
    gpiod_line_set_value(out->line, 0);
    gpiod_line_release(out->line);
    gpiod_chip_close(out->chip);
    free(out);
}

#endif
