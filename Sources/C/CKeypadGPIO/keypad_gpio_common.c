/* The parts of keypad_gpio.h that do not depend on the libgpiod API version. */
#define _GNU_SOURCE
#include "kp_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/prctl.h>
#include <unistd.h>
void kp_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

int kp_wait_with_wake(struct pollfd *fds, unsigned count, int wake_fd, int timeout_ms) {
    fds[count] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
    int ready;
    do {
        ready = poll(fds, count + 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return -1;
    if (fds[count].revents & POLLIN) {
        char sink[16];
        while (read(wake_fd, sink, sizeof sink) > 0) {}
    }
    return ready > 0 ? 1 : 0;
}

int kp_fd_readable(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready;
    do {
        ready = poll(&p, 1, 0);
    } while (ready < 0 && errno == EINTR);
    return ready < 0 ? -1 : ready > 0;
}

void kp_signal_wake(int wake_write_fd) {
    char byte = 1;
    ssize_t ignored = write(wake_write_fd, &byte, 1);
    (void)ignored;
}
#else
void kp_set_thread_name(const char *name) { (void)name; }
#endif

#if defined(KP_LIBGPIOD_V1) || defined(KP_LIBGPIOD_V2)
#include <dirent.h>

void kp_set_error(struct kp_error *error, int code, int group, int index, const char *detail) {
    if (!error) return;
    error->code = code;
    error->sys_errno = errno;
    error->group = group;
    error->index = index;
    snprintf(error->detail, sizeof error->detail, "%s", detail ? detail : "");
}

kp_matrix *kp_open(const char *chip, const int *row_offsets, const char *const *row_names, unsigned rows,
                   const int *column_offsets, const char *const *column_names, unsigned columns, int active_low,
                   const char *consumer, struct kp_error *error) {
    return kp_open_lines(chip, row_offsets, row_names, rows, 1, column_offsets, column_names, columns, active_low, 0,
                         consumer, error);
}

kp_matrix *kp_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                          int active_low, const char *consumer, struct kp_error *error) {
    return kp_open_lines(chip, NULL, NULL, 0, 0, offsets, names, count, active_low, 0, consumer, error);
}

kp_matrix *kp_pulse_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                                const char *consumer, struct kp_error *error) {
    return kp_open_lines(chip, NULL, NULL, 0, 0, offsets, names, count, 1, 1, consumer, error);
}

int kp_check_matrix_size(unsigned rows, unsigned min_rows, unsigned columns, struct kp_error *error) {
    if (error) memset(error, 0, sizeof *error);
    if (rows >= min_rows && columns >= 1 && rows <= KP_MAX_LINES && columns <= KP_MAX_LINES) return 0;
    errno = EINVAL;
    char text[64];
    snprintf(text, sizeof text, "a matrix has 1...%d rows and 1...%d columns", KP_MAX_LINES, KP_MAX_LINES);
    kp_set_error(error, KP_ERR_SYSTEM, KP_GROUP_NONE, -1, text);
    return -1;
}

void kp_chip_open_error(struct kp_error *error) {
    int saved = errno ? errno : ENOENT;
    char list[400];
    kp_list_chips(list, sizeof list);
    errno = saved;
    kp_set_error(error, (saved == EACCES || saved == EPERM) ? KP_ERR_PERMISSION : KP_ERR_CHIP_NOT_FOUND,
                 KP_GROUP_NONE, -1, list);
}

int kp_code_for_errno(int err) {
    if (err == EBUSY) return KP_ERR_BUSY;
    if (err == EACCES || err == EPERM) return KP_ERR_PERMISSION;
    return KP_ERR_SYSTEM;
}

static int by_name(const void *a, const void *b) {
    return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

void kp_list_chips(char *buffer, size_t length) {
    if (length == 0) return;
    buffer[0] = '\0';
    DIR *dir = opendir("/dev");
    if (!dir) return;
    char *names[64];
    unsigned count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < 64)
        if (strncmp(entry->d_name, "gpiochip", 8) == 0) names[count++] = strdup(entry->d_name);
    closedir(dir);
    qsort(names, count, sizeof names[0], by_name);
    size_t used = 0;
    for (unsigned i = 0; i < count; i++) {
        char about[256];
        if (kp_describe_chip(names[i], about, sizeof about) < 0)
            snprintf(about, sizeof about, "(cannot open: %s)", strerror(errno));
        int written = snprintf(buffer + used, length - used, "%s%s %s", used ? ", " : "", names[i], about);
        if (written < 0 || (size_t)written >= length - used) {
            buffer[used] = '\0';
            break;
        }
        used += (size_t)written;
    }
    for (unsigned i = 0; i < count; i++) free(names[i]);
}
#endif
