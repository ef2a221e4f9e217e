/* A thin C layer over libgpiod for a key matrix: arrays of offsets in, bulk set/get,
 * edge waits, and errors that say which line failed and why. Plain C types only, so the
 * Swift side never touches libgpiod's structs. */
#ifndef KEYPAD_GPIO_H
#define KEYPAD_GPIO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rows and columns a matrix may have, each (Swift: MatrixLayout.maxLines, checked equal
 * by the HAL tests). */
#define KP_MAX_LINES 8

enum kp_error_code {
    KP_OK = 0,
    KP_ERR_CHIP_NOT_FOUND = 1,
    KP_ERR_PERMISSION = 2,
    KP_ERR_LINE_RANGE = 3,
    KP_ERR_LINE_NAME = 4,
    KP_ERR_BUSY = 5,
    KP_ERR_SYSTEM = 6,
    KP_ERR_UNSUPPORTED = 7,
};

enum kp_line_group { KP_GROUP_NONE = 0, KP_GROUP_ROWS = 1, KP_GROUP_COLUMNS = 2 };

/* What went wrong: the code, errno, which line (group + index), and text (chip list,
 * consumer of a busy line, library message). */
struct kp_error {
    int code;
    int sys_errno;
    int group;
    int index;
    char detail[512];
};

typedef struct kp_matrix kp_matrix;

/* Opens `chip` (name, /dev path, number or label) and requests the lines.
 * Each line is `offsets[i]` when >= 0, else looked up by `names[i]`.
 * Rows: outputs, open-drain with pull-up when active_low (open-source with pull-down
 * otherwise), all released. Columns: inputs with the matching pull, both-edge events. */
kp_matrix *kp_open(const char *chip, const int *row_offsets, const char *const *row_names, unsigned rows,
                   const int *column_offsets, const char *const *column_names, unsigned columns, int active_low,
                   const char *consumer, struct kp_error *error);

/* Requests `count` (1...8) lines as inputs with the pull for `active_low` and both-edge
 * events, and nothing to drive: a matrix with no rows (door contact, exit button, tamper).
 * kp_read_columns, kp_drain_edges, kp_wait_edge, kp_wake and kp_close work on it; errors
 * name the line in group KP_GROUP_COLUMNS. */
kp_matrix *kp_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                          int active_low, const char *consumer, struct kp_error *error);

/* Like kp_inputs_open, active low (pull-ups), but with falling-edge events only: pulses to
 * ground, one event each (a Wiegand reader's D0/D1), so the kernel's event buffer holds
 * twice as many pulses as with both edges. */
kp_matrix *kp_pulse_inputs_open(const char *chip, const int *offsets, const char *const *names, unsigned count,
                                const char *consumer, struct kp_error *error);

/* kp_drive() targets besides a row index. */
#define KP_ALL_ROWS (-1)
#define KP_NO_ROW (-2)
/* Makes only `row` active (KP_ALL_ROWS: every row; KP_NO_ROW: none, all released), in one
 * bulk set. 0 or -1 (errno set). */
int kp_drive(kp_matrix *matrix, int row);
/* Bit c set when column c reads active, in one bulk read. 0 or -1. */
int kp_read_columns(kp_matrix *matrix, uint8_t *mask);
/* Discards queued edge events; *first_ns and *last_ns (when not NULL) get the kernel
 * timestamps (CLOCK_MONOTONIC, ns) of the earliest and the latest, or 0 when none was
 * queued. 0 or -1. */
int kp_drain_edges(kp_matrix *matrix, uint64_t *first_ns, uint64_t *last_ns);
/* One edge event of an input: which line (index into the lines requested), its direction
 * on the wire (1 rising, 0 falling; not inverted by active_low) and the kernel's timestamp
 * (CLOCK_MONOTONIC, ns). */
struct kp_edge {
    uint64_t timestamp_ns;
    uint8_t line;
    uint8_t rising;
};
/* Reads up to `capacity` queued edge events without waiting (a Wiegand reader's pulses).
 * Events of different lines may come out of time order (v1 reads line by line): sort by
 * timestamp. The count read (0: none queued), or -1 (errno set). */
int kp_read_edges(kp_matrix *matrix, struct kp_edge *edges, unsigned capacity);
/* Waits for an edge or kp_wake(); timeout_ms < 0 waits forever. 1 woke, 0 timed out, -1 error. */
int kp_wait_edge(kp_matrix *matrix, int timeout_ms);
/* Makes a waiting kp_wait_edge() return; safe from any thread. */
void kp_wake(kp_matrix *matrix);
/* Bulk set + bulk get calls issued so far. */
unsigned long kp_value_calls(const kp_matrix *matrix);
/* Releases every line and closes the chip. */
void kp_close(kp_matrix *matrix);
/* Lists the GPIO chips present, "gpiochip0 [label] (N lines), ..." into buffer. */
void kp_list_chips(char *buffer, size_t length);
/* ---- single output lines (door relay, buzzer, LEDs) ------------------------------ */
typedef struct kp_output kp_output;

/* Requests one line as a push-pull output, initially inactive (so open + close is "switch it
 * off": `kioskpad door off`). The line is `offset` when
 * >= 0, else found by `name`. On error: NULL and *error filled (group KP_GROUP_NONE). */
kp_output *kp_output_open(const char *chip, int offset, const char *name, int active_low, const char *consumer,
                          struct kp_error *error);
/* Drives the line active (on != 0) or inactive. 0 or -1 (errno set). */
int kp_output_set(kp_output *output, int on);
/* Drives the line inactive, then releases it. */
void kp_output_close(kp_output *output);

/* Names the calling thread (visible in /proc/PID/task/TID/comm). */
void kp_set_thread_name(const char *name);
/* 1 when built against the libgpiod v1 API, 2 for v2, 0 without libgpiod. */
int kp_api_version(void);
/* The libgpiod library's own version ("1.6.3", "2.3"), or "none". */
const char *kp_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
