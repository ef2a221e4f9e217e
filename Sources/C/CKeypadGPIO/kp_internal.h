/* Shared by the libgpiod v1 and v2 backends of keypad_gpio.h: which API this build uses,
 * error reporting, and chip lookup helpers. Not part of the public header. */
#ifndef KP_INTERNAL_H
#define KP_INTERNAL_H

#include "keypad_gpio.h"

#if defined(__linux__) && __has_include(<gpiod.h>)
#include <gpiod.h>
/* Only the v1 header (1.x) defines GPIOD_LINE_BULK_MAX_LINES; v2 (2.x) has line requests. */
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define KP_LIBGPIOD_V1 1
#else
#define KP_LIBGPIOD_V2 1
#endif
#endif

#if defined(KP_LIBGPIOD_V1) || defined(KP_LIBGPIOD_V2)
/* Fills *error (when given) with code, the current errno, the line and a detail text. */
void kp_set_error(struct kp_error *error, int code, int group, int index, const char *detail);
/* The error code for a failed open or request: busy, permission, or a plain system error. */
int kp_code_for_errno(int err);
/* Writes "LABEL (N lines)" of the chip at /dev/NAME into out; -1 (errno set) if it cannot be
 * opened. Each backend implements it with its own API. */
int kp_describe_chip(const char *name, char *out, size_t length);
/* Clears *error; 0 for min_rows...8 rows and 1...8 columns, else -1 with *error filled (EINVAL). */
int kp_check_matrix_size(unsigned rows, unsigned min_rows, unsigned columns, struct kp_error *error);
/* kp_open (min_rows 1), kp_inputs_open and kp_pulse_inputs_open (no rows, min_rows 0), per
 * backend. The inputs report both edges, or only the edge into the active level when
 * active_edge_only (for an active-low input: falling). */
kp_matrix *kp_open_lines(const char *chip, const int *row_offsets, const char *const *row_names, unsigned rows,
                         unsigned min_rows, const int *column_offsets, const char *const *column_names,
                         unsigned columns, int active_low, int active_edge_only, const char *consumer,
                         struct kp_error *error);
/* After a failed chip open (errno set): a permission error, or "not found" listing the chips. */
void kp_chip_open_error(struct kp_error *error);
#endif

#if defined(__linux__)
#include <poll.h>
/* Waits on fds[0..count-1] and a wake pipe's read end (fds must have room for count + 1),
 * retrying on EINTR and draining the pipe when it fired. 1 woke, 0 timed out, -1 error. */
int kp_wait_with_wake(struct pollfd *fds, unsigned count, int wake_fd, int timeout_ms);
/* Makes a kp_wait_with_wake() on the pipe's read end return; safe from any thread. */
void kp_signal_wake(int wake_write_fd);
/* Whether `fd` can be read now (poll with no timeout, retried on EINTR): 1 yes, 0 no, -1 error. */
int kp_fd_readable(int fd);
#endif

#endif
