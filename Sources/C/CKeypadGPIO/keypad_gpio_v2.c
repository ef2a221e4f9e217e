/* keypad_gpio.h on the libgpiod v2 API (2.x: Debian 13, Raspberry Pi OS trixie). Same
 * behaviour and errors as the v1 backend: rows are one request (open-drain outputs with
 * pull-ups, all released), columns another (inputs with pull-ups and both-edge events);
 * one bulk set and one bulk read per row; idle is poll(2) on the column request's fd. */
#define _GNU_SOURCE
#include "kp_internal.h"

#if defined(KP_LIBGPIOD_V2)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct kp_matrix {
    struct gpiod_line_request *rows;
    struct gpiod_line_request *columns;
    struct gpiod_edge_event_buffer *events;
    unsigned row_offsets[KP_MAX_LINES];
    unsigned column_offsets[KP_MAX_LINES];
    unsigned row_count;
    unsigned column_count;
    int active_low;
    int wake_pipe[2];
    unsigned long value_calls;
};

struct kp_output {
    struct gpiod_line_request *request;
    unsigned offset;
};

int kp_api_version(void) { return 2; }
const char *kp_library_version(void) { return gpiod_api_version(); }

static struct gpiod_chip *open_path(const char *path) {
    return gpiod_is_gpiochip_device(path) ? gpiod_chip_open(path) : NULL;
}

int kp_describe_chip(const char *name, char *out, size_t length) {
    char path[300];
    snprintf(path, sizeof path, "/dev/%s", name);
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (info) {
        snprintf(out, length, "[%s] (%zu lines)", gpiod_chip_info_get_label(info), gpiod_chip_info_get_num_lines(info));
        gpiod_chip_info_free(info);
    }
    gpiod_chip_close(chip);
    return info ? 0 : -1;
}

/* The chip whose label is `label`, searched over /dev/gpiochip*. */
static struct gpiod_chip *open_by_label(const char *label) {
    DIR *dir = opendir("/dev");
    if (!dir) return NULL;
    struct gpiod_chip *found = NULL;
    struct dirent *entry;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "gpiochip", 8) != 0) continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        struct gpiod_chip *chip = open_path(path);
        if (!chip) continue;
        struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
        if (info && strcmp(gpiod_chip_info_get_label(info), label) == 0) found = chip;
        if (info) gpiod_chip_info_free(info);
        if (!found) gpiod_chip_close(chip);
    }
    closedir(dir);
    if (!found) errno = ENOENT;
    return found;
}

static int all_digits(const char *text) {
    if (!*text) return 0;
    for (; *text; text++)
        if (!isdigit((unsigned char)*text)) return 0;
    return 1;
}

/* Like v1's gpiod_chip_open_lookup(): a /dev path, a name (gpiochip0), a number, or a label. */
static struct gpiod_chip *lookup_chip(const char *chip) {
    char path[300];
    if (strchr(chip, '/')) return open_path(chip);
    snprintf(path, sizeof path, all_digits(chip) ? "/dev/gpiochip%s" : "/dev/%s", chip);
    if (access(path, F_OK) == 0) return open_path(path);
    return open_by_label(chip);
}

/* Opens a chip; on failure says which chips exist (or that permission was denied). */
static struct gpiod_chip *open_chip(const char *chip, struct kp_error *error) {
    errno = 0;
    struct gpiod_chip *opened = lookup_chip(chip);
    if (!opened) kp_chip_open_error(error);
    return opened;
}

/* Offsets for a group of lines (by offset or by name), range-checked against the chip. */
static int resolve(struct gpiod_chip *chip, unsigned *out, const int *offsets, const char *const *names,
                   unsigned count, int group, struct kp_error *error) {
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) {
        kp_set_error(error, KP_ERR_SYSTEM, group, -1, strerror(errno));
        return -1;
    }
    size_t lines = gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    for (unsigned i = 0; i < count; i++) {
        if (offsets[i] >= 0) {
            if ((size_t)offsets[i] >= lines) {
                char detail[32];
                snprintf(detail, sizeof detail, "%zu", lines);
                errno = ERANGE;
                kp_set_error(error, KP_ERR_LINE_RANGE, group, (int)i, detail);
                return -1;
            }
            out[i] = (unsigned)offsets[i];
        } else {
            int offset = gpiod_chip_get_line_offset_from_name(chip, names[i]);
            if (offset < 0) {
                kp_set_error(error, KP_ERR_LINE_NAME, group, (int)i, names[i]);
                return -1;
            }
            out[i] = (unsigned)offset;
        }
    }
    return 0;
}

/* After a failed request: name the line another consumer holds, else the errno. */
static void explain_busy(struct gpiod_chip *chip, const unsigned *offsets, unsigned count, int group,
                         struct kp_error *error) {
    int saved = errno;
    for (unsigned i = 0; i < count; i++) {
        struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offsets[i]);
        if (!info) continue;
        if (gpiod_line_info_is_used(info)) {
            const char *consumer = gpiod_line_info_get_consumer(info);
            errno = saved;
            kp_set_error(error, KP_ERR_BUSY, group, (int)i,
                         consumer && *consumer ? consumer : "(unnamed consumer)");
            gpiod_line_info_free(info);
            return;
        }
        gpiod_line_info_free(info);
    }
    errno = saved;
    kp_set_error(error, kp_code_for_errno(saved), group, -1, strerror(saved));
}

/* Requests `count` lines with one set of settings; NULL and *error filled on failure. */
static struct gpiod_line_request *request(struct gpiod_chip *chip, const unsigned *offsets, unsigned count,
                                          struct gpiod_line_settings *settings, const char *consumer, int group,
                                          struct kp_error *error) {
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    struct gpiod_line_request *made = NULL;
    if (lines && config && gpiod_line_config_add_line_settings(lines, offsets, count, settings) == 0) {
        gpiod_request_config_set_consumer(config, consumer);
        made = gpiod_chip_request_lines(chip, config, lines);
        if (!made) explain_busy(chip, offsets, count, group, error);
    } else {
        kp_set_error(error, KP_ERR_SYSTEM, group, -1, strerror(errno));
    }
    gpiod_request_config_free(config);
    gpiod_line_config_free(lines);
    return made;
}

kp_matrix *kp_open_lines(const char *chip_name, const int *row_offsets, const char *const *row_names, unsigned rows,
                             unsigned min_rows, const int *column_offsets, const char *const *column_names,
                             unsigned columns, int active_low, int active_edge_only, const char *consumer, struct kp_error *error) {
    if (kp_check_matrix_size(rows, min_rows, columns, error) < 0) return NULL;
    kp_matrix *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->row_count = rows;
    m->column_count = columns;
    m->active_low = active_low;
    m->wake_pipe[0] = m->wake_pipe[1] = -1;
    struct gpiod_chip *chip = open_chip(chip_name, error);
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    int ok = chip && settings &&
             resolve(chip, m->row_offsets, row_offsets, row_names, rows, KP_GROUP_ROWS, error) == 0 &&
             resolve(chip, m->column_offsets, column_offsets, column_names, columns, KP_GROUP_COLUMNS, error) == 0;
    if (ok && rows > 0) {
        /* Rows: never driven to the inactive level, so two keys in one column cannot short
         * two outputs. Released = high impedance, held at the inactive level by the pull. */
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
        gpiod_line_settings_set_drive(settings, active_low ? GPIOD_LINE_DRIVE_OPEN_DRAIN : GPIOD_LINE_DRIVE_OPEN_SOURCE);
        gpiod_line_settings_set_bias(settings, active_low ? GPIOD_LINE_BIAS_PULL_UP : GPIOD_LINE_BIAS_PULL_DOWN);
        gpiod_line_settings_set_output_value(settings, active_low ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
        m->rows = request(chip, m->row_offsets, rows, settings, consumer, KP_GROUP_ROWS, error);
        ok = m->rows != NULL;
    }
    if (ok) {
        gpiod_line_settings_reset(settings);
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
        gpiod_line_settings_set_bias(settings, active_low ? GPIOD_LINE_BIAS_PULL_UP : GPIOD_LINE_BIAS_PULL_DOWN);
        gpiod_line_settings_set_edge_detection(settings, !active_edge_only ? GPIOD_LINE_EDGE_BOTH
                                                         : active_low      ? GPIOD_LINE_EDGE_FALLING
                                                                           : GPIOD_LINE_EDGE_RISING);
        m->columns = request(chip, m->column_offsets, columns, settings, consumer, KP_GROUP_COLUMNS, error);
        ok = m->columns != NULL;
    }
    if (ok) {
        m->events = gpiod_edge_event_buffer_new(16);
        ok = m->events && pipe2(m->wake_pipe, O_CLOEXEC | O_NONBLOCK) == 0;
        if (!ok) kp_set_error(error, KP_ERR_SYSTEM, KP_GROUP_NONE, -1, strerror(errno));
    }
    if (settings) gpiod_line_settings_free(settings);
    if (chip) gpiod_chip_close(chip); /* requests keep their own file descriptors */
    if (!ok) {
        kp_close(m);
        return NULL;
    }
    return m;
}

int kp_drive(kp_matrix *m, int row) {
    enum gpiod_line_value values[KP_MAX_LINES];
    enum gpiod_line_value active = m->active_low ? GPIOD_LINE_VALUE_INACTIVE : GPIOD_LINE_VALUE_ACTIVE;
    enum gpiod_line_value released = m->active_low ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    for (unsigned i = 0; i < m->row_count; i++) values[i] = (row == KP_ALL_ROWS || (unsigned)row == i) ? active : released;
    m->value_calls++;
    return gpiod_line_request_set_values_subset(m->rows, m->row_count, m->row_offsets, values);
}

int kp_read_columns(kp_matrix *m, uint8_t *mask) {
    enum gpiod_line_value values[KP_MAX_LINES];
    m->value_calls++;
    if (gpiod_line_request_get_values_subset(m->columns, m->column_count, m->column_offsets, values) < 0) return -1;
    enum gpiod_line_value active = m->active_low ? GPIOD_LINE_VALUE_INACTIVE : GPIOD_LINE_VALUE_ACTIVE;
    uint8_t bits = 0;
    for (unsigned i = 0; i < m->column_count; i++)
        if (values[i] == active) bits |= (uint8_t)(1u << i);
    *mask = bits;
    return 0;
}

int kp_drain_edges(kp_matrix *m, uint64_t *first_ns, uint64_t *last_ns) {
    int fd = gpiod_line_request_get_fd(m->columns);
    *first_ns = 0;
    if (last_ns) *last_ns = 0;
    for (;;) {
        int ready = kp_fd_readable(fd);
        if (ready < 0) return -1;
        if (ready == 0) return 0;
        int count = gpiod_line_request_read_edge_events(m->columns, m->events, gpiod_edge_event_buffer_get_capacity(m->events));
        if (count < 0) return -1;
        /* The request's event clock is the default, CLOCK_MONOTONIC. */
        for (int e = 0; e < count; e++) {
            uint64_t ns = gpiod_edge_event_get_timestamp_ns(gpiod_edge_event_buffer_get_event(m->events, (unsigned long)e));
            if (*first_ns == 0 || ns < *first_ns) *first_ns = ns;
            if (last_ns && ns > *last_ns) *last_ns = ns;
        }
    }
}

int kp_read_edges(kp_matrix *m, struct kp_edge *edges, unsigned capacity) {
    int fd = gpiod_line_request_get_fd(m->columns);
    unsigned filled = 0;
    while (filled < capacity) {
        int ready = kp_fd_readable(fd);
        if (ready < 0) return -1;
        if (ready == 0) break;
        size_t room = gpiod_edge_event_buffer_get_capacity(m->events);
        if (room > capacity - filled) room = capacity - filled;
        int count = gpiod_line_request_read_edge_events(m->columns, m->events, room);
        if (count < 0) return -1;
        for (int e = 0; e < count; e++) {
            struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(m->events, (unsigned long)e);
            unsigned offset = gpiod_edge_event_get_line_offset(event);
            unsigned line = 0;
            while (line + 1 < m->column_count && m->column_offsets[line] != offset) line++;
            edges[filled++] = (struct kp_edge){
                .timestamp_ns = gpiod_edge_event_get_timestamp_ns(event),
                .line = (uint8_t)line,
                .rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE,
            };
        }
    }
    return (int)filled;
}

int kp_wait_edge(kp_matrix *m, int timeout_ms) {
    struct pollfd fds[2] = {{.fd = gpiod_line_request_get_fd(m->columns), .events = POLLIN}};
    return kp_wait_with_wake(fds, 1, m->wake_pipe[0], timeout_ms);
}

void kp_wake(kp_matrix *m) { kp_signal_wake(m->wake_pipe[1]); }

unsigned long kp_value_calls(const kp_matrix *m) { return m->value_calls; }

void kp_close(kp_matrix *m) {
    if (!m) return;
    if (m->rows) gpiod_line_request_release(m->rows);
    if (m->columns) gpiod_line_request_release(m->columns);
    if (m->events) gpiod_edge_event_buffer_free(m->events);
    if (m->wake_pipe[0] >= 0) close(m->wake_pipe[0]);
    if (m->wake_pipe[1] >= 0) close(m->wake_pipe[1]);
    free(m);
}

kp_output *kp_output_open(const char *chip_name, int offset, const char *name, int active_low, const char *consumer,
                          struct kp_error *error) {
    if (error) memset(error, 0, sizeof *error);
    kp_output *out = calloc(1, sizeof *out);
    if (!out) return NULL;
    struct gpiod_chip *chip = open_chip(chip_name, error);
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    int ok = chip && settings && resolve(chip, &out->offset, &offset, &name, 1, KP_GROUP_NONE, error) == 0;
    if (ok) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
        gpiod_line_settings_set_drive(settings, GPIOD_LINE_DRIVE_PUSH_PULL);
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE);
        out->request = request(chip, &out->offset, 1, settings, consumer, KP_GROUP_NONE, error);
        ok = out->request != NULL;
    }
    if (settings) gpiod_line_settings_free(settings);
    if (chip) gpiod_chip_close(chip);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

int kp_output_set(kp_output *out, int on) {
    return gpiod_line_request_set_value(out->request, out->offset, on ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

void kp_output_close(kp_output *out) {
    if (!out) return;
    gpiod_line_request_set_value(out->request, out->offset, GPIOD_LINE_VALUE_INACTIVE);
    gpiod_line_request_release(out->request);
    free(out);
}
#endif
