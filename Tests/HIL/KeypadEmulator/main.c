/* keypad-emu: emulates a key matrix on a gpio-sim chip for the hardware-in-loop suite.
 *
 *   keypad-emu SIMDIR ROWS COLUMNS SCRIPT
 *   keypad-emu --stamp    copies stdin to stdout, each line prefixed with the CLOCK_MONOTONIC
 *                         time in ms at which it arrived (for the latency benchmark)
 *     SIMDIR   /sys/devices/platform/gpio-sim.N/gpiochipM
 *     ROWS     comma-separated row line offsets (driven by the program under test)
 *     COLUMNS  comma-separated column line offsets (read by it, with pull-ups)
 *     SCRIPT   lines: "press R C [BOUNCE_MS]", "release R C [BOUNCE_MS]", "wait MS", "# ..."
 *   env DIODES=1 models a keypad with diodes (no phantom keys).
 *   env TRACE_BASE=N: learn which rows are driven from the kernel's gpio_direction
 *       tracepoint (tracefs trace_pipe; N is the chip's global GPIO base). Needed for
 *       open-drain rows: gpiolib emulates open drain by switching a released row to
 *       input, and gpio-sim then keeps showing the last driven value in sim_gpioN/value,
 *       so polling values cannot tell a released row from a driven one. On hardware
 *       the row's pull-up makes a released row read high.
 *   env EMU_LOG=FILE: for every "press" and "release" line, logs "press|release R C T" with T
 *       the CLOCK_MONOTONIC time in ms at which its first contact change had been applied to
 *       the column pulls (the moment the contact really changed, not when it was scheduled).
 *   env TRACE_STATE=FILE: with TRACE_BASE, the driven-row mask is loaded from FILE at start
 *       and saved at exit, so back-to-back runs against one idle program stay exact (the
 *       trace pipe hands each event to one reader only).
 *   env COLUMN_LAG_MS=X: a slow line (long cable, weak pull-up): a column that should go back
 *       high, because no driven row reaches it any more, stays low X ms longer. A scanner
 *       that reads the next row too soon sees the previous row's key in that column.
 *
 * Without TRACE_BASE it polls the rows' sim_gpioN/value (push-pull rows) and sets each
 * column's pull to what the matrix would produce: a column reads low when a closed contact
 * connects it to a row driven low - through other closed contacts too, unless the keypad
 * has diodes, so three keys of a rectangle make the fourth read pressed, as on hardware.
 * Bounce toggles the contact every 0.2-1 ms for BOUNCE_MS before it settles. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINES 8
#define MAX_STEPS 20000

struct step { double at_ms; int row, column, closed, first; };

static int rows, columns, row_lines[MAX_LINES], column_lines[MAX_LINES];
static int row_fd[MAX_LINES], pull_fd[MAX_LINES], column_state[MAX_LINES];
static unsigned contacts[MAX_LINES];
static double column_lag_ms, rise_due[MAX_LINES];
static int trace_fd = -1, trace_base = 0;
static unsigned traced_driven;
static char trace_buffer[1 << 16];
static size_t trace_used;

/* Applies "gpio_direction: N in|out" events for our rows; returns the driven-row mask. */
static unsigned traced_rows(void) {
    for (;;) {
        ssize_t got = read(trace_fd, trace_buffer + trace_used, sizeof trace_buffer - trace_used - 1);
        if (got <= 0) break;
        trace_used += (size_t)got;
        trace_buffer[trace_used] = '\0';
        char *line = trace_buffer, *end;
        while ((end = strchr(line, '\n')) != NULL) {
            *end = '\0';
            char *event = strstr(line, "gpio_direction: ");
            unsigned gpio;
            char direction[8];
            if (event && sscanf(event + 16, "%u %7s", &gpio, direction) == 2) {
                for (int r = 0; r < rows; r++) {
                    if ((int)gpio != trace_base + row_lines[r]) continue;
                    if (strcmp(direction, "out") == 0) traced_driven |= 1u << r; else traced_driven &= ~(1u << r);
                }
            }
            line = end + 1;
        }
        trace_used -= (size_t)(line - trace_buffer);
        memmove(trace_buffer, line, trace_used);
        if (trace_used >= sizeof trace_buffer - 1) trace_used = 0; /* an absurd line: drop it */
    }
    return traced_driven;
}
static struct step steps[MAX_STEPS];
static int step_count;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int parse_list(const char *text, int *out) {
    int n = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *part = strtok_r(copy, ",", &save); part && n < MAX_LINES; part = strtok_r(NULL, ",", &save)) out[n++] = atoi(part);
    free(copy);
    return n;
}

static void add(double at, int row, int column, int closed, int first) {
    if (step_count >= MAX_STEPS) { fprintf(stderr, "keypad-emu: script too long\n"); exit(2); }
    steps[step_count++] = (struct step){at, row, column, closed, first};
}

static void load_script(const char *path) {
    FILE *file = fopen(path, "r");
    if (!file) { perror(path); exit(2); }
    char line[256];
    double at = 0;
    unsigned seed = 12345;
    while (fgets(line, sizeof line, file)) {
        char verb[16];
        double a = 0, b = 0, c = 0;
        int fields = sscanf(line, "%15s %lf %lf %lf", verb, &a, &b, &c);
        if (fields < 1 || verb[0] == '#') continue;
        if (strcmp(verb, "wait") == 0) { at += a; continue; }
        int closed = strcmp(verb, "press") == 0;
        if (!closed && strcmp(verb, "release") != 0) { fprintf(stderr, "keypad-emu: bad line: %s", line); exit(2); }
        double bounce = fields >= 4 ? c : 0, t = at;
        int state = closed;
        while (t < at + bounce) {                 /* chatter, then settle */
            add(t, (int)a, (int)b, state, t == at);
            seed = seed * 1103515245u + 12345u;
            t += 0.2 + (seed >> 16) % 800 / 1000.0;
            state = !state;
        }
        add(at + bounce, (int)a, (int)b, closed, bounce <= 0);
    }
    fclose(file);
}

static int read_value(int fd) {
    char c = '0';
    if (pread(fd, &c, 1, 0) != 1) return -1;
    return c == '1';
}

static void set_pull(int column, int low) {
    if (column_state[column] == low) return;
    const char *text = low ? "pull-down" : "pull-up";
    if (pwrite(pull_fd[column], text, strlen(text), 0) < 0) { perror("pull"); exit(3); }
    column_state[column] = low;
}

static void update(void) {
    unsigned driven = 0;
    if (trace_fd >= 0) {
        driven = traced_rows();
    } else {
        for (int r = 0; r < rows; r++) if (read_value(row_fd[r]) == 0) driven |= 1u << r;
    }
    unsigned reached_rows = driven, reached_columns = 0;
    if (getenv("DIODES")) {
        for (int r = 0; r < rows; r++) if (driven & (1u << r)) reached_columns |= contacts[r];
    } else {
        int grew = 1;
        while (grew) {
            grew = 0;
            for (int r = 0; r < rows; r++) {
                if ((reached_rows & (1u << r)) && (contacts[r] & ~reached_columns)) { reached_columns |= contacts[r]; grew = 1; }
                if (!(reached_rows & (1u << r)) && (contacts[r] & reached_columns)) { reached_rows |= 1u << r; grew = 1; }
            }
        }
    }
    for (int c = 0; c < columns; c++) {
        int low = (reached_columns >> c) & 1;
        if (!low && column_state[c] == 1 && column_lag_ms > 0) {   /* the slow line rises late */
            double now = now_ms();
            if (rise_due[c] == 0) rise_due[c] = now + column_lag_ms;
            if (now < rise_due[c]) continue;
        }
        rise_due[c] = 0;
        set_pull(c, low);
    }
}

/* --stamp: each stdin line goes to stdout prefixed with its arrival time. */
static int stamp(void) {
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        printf("%.3f %s", now_ms(), line);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--stamp") == 0) return stamp();
    if (argc != 5) { fprintf(stderr, "usage: keypad-emu SIMDIR ROWS COLUMNS SCRIPT\n"); return 2; }
    rows = parse_list(argv[2], row_lines);
    columns = parse_list(argv[3], column_lines);
    load_script(argv[4]);
    if (getenv("COLUMN_LAG_MS")) column_lag_ms = atof(getenv("COLUMN_LAG_MS"));
    char path[512];
    const char *state_file = getenv("TRACE_STATE");
    if (getenv("TRACE_BASE")) {
        trace_base = atoi(getenv("TRACE_BASE"));
        FILE *state = state_file ? fopen(state_file, "r") : NULL;
        if (state) {
            if (fscanf(state, "%u", &traced_driven) != 1) traced_driven = 0;
            fclose(state);
        }
        trace_fd = open("/sys/kernel/tracing/trace_pipe", O_RDONLY | O_NONBLOCK);
        if (trace_fd < 0) { perror("/sys/kernel/tracing/trace_pipe"); return 2; }
    }
    for (int r = 0; r < rows; r++) {
        snprintf(path, sizeof path, "%s/sim_gpio%d/value", argv[1], row_lines[r]);
        if ((row_fd[r] = open(path, O_RDONLY)) < 0) { perror(path); return 2; }
    }
    for (int c = 0; c < columns; c++) {
        snprintf(path, sizeof path, "%s/sim_gpio%d/pull", argv[1], column_lines[c]);
        if ((pull_fd[c] = open(path, O_WRONLY)) < 0) { perror(path); return 2; }
        column_state[c] = -1;
        set_pull(c, 0);
    }
    FILE *log = getenv("EMU_LOG") ? fopen(getenv("EMU_LOG"), "w") : NULL;
    struct step *changed[MAX_LINES * MAX_LINES];
    double start = now_ms();
    int next = 0;
    struct timespec pause = {0, 50000};
    for (;;) {
        double elapsed = now_ms() - start;
        int logged = 0;
        while (next < step_count && steps[next].at_ms <= elapsed) {
            struct step *s = &steps[next++];
            if (s->closed) contacts[s->row] |= 1u << s->column; else contacts[s->row] &= ~(1u << s->column);
            if (s->first && logged < MAX_LINES * MAX_LINES) changed[logged++] = s;
        }
        update();
        if (log && logged) {
            double applied = now_ms();
            for (int i = 0; i < logged; i++)
                fprintf(log, "%s %d %d %.3f\n", changed[i]->closed ? "press" : "release", changed[i]->row, changed[i]->column, applied);
        }
        if (next >= step_count) break;
        nanosleep(&pause, NULL);
    }
    /* Keep the final state applied for a moment so the last release is seen. */
    double end = now_ms() + 300;
    while (now_ms() < end) { update(); nanosleep(&pause, NULL); }
    if (trace_fd >= 0 && state_file) {
        traced_rows();
        FILE *state = fopen(state_file, "w");
        if (state) {
            fprintf(state, "%u\n", traced_driven);
            fclose(state);
        }
    }
    if (log) fclose(log);
    fprintf(stderr, "keypad-emu: script done (%d steps)\n", step_count);
    return 0;
}
