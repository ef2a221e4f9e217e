/* keypad_input.h on Linux (elsewhere every call fails with ENOTSUP). */
#define _GNU_SOURCE
#include "keypad_input.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/input.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

void kp_input_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

int kp_evdev_open(const char *path) { return open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); }

int kp_evdev_grab(int fd) { return ioctl(fd, EVIOCGRAB, 1); }

int kp_evdev_name(int fd, char *buffer, size_t length) {
    if (length == 0) return -1;
    int got = ioctl(fd, EVIOCGNAME(length), buffer);
    if (got < 0) return -1;
    buffer[length - 1] = '\0';
    return got;
}

int kp_wake_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC | O_NONBLOCK); }
#else
void kp_input_thread_name(const char *name) { (void)name; }
int kp_evdev_open(const char *path) { (void)path; errno = ENOTSUP; return -1; }
int kp_evdev_grab(int fd) { (void)fd; errno = ENOTSUP; return -1; }
int kp_evdev_name(int fd, char *buffer, size_t length) { (void)fd; (void)buffer; (void)length; errno = ENOTSUP; return -1; }
int kp_wake_pipe(int fds[2]) { return pipe(fds); }
#endif
