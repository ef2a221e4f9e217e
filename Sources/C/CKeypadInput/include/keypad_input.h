/* Kernel input devices (evdev: USB numeric keypads, the gpio-matrix-keypad driver): the
 * ioctls Swift cannot call (they are variadic in C). Needs no library. */
#ifndef KEYPAD_INPUT_H
#define KEYPAD_INPUT_H

#include <stddef.h>

/* Opens an input device read-only, non-blocking, close-on-exec. fd or -1 (errno set). */
int kp_evdev_open(const char *path);
/* Grabs it exclusively (EVIOCGRAB): its events reach no other reader. 0 or -1. */
int kp_evdev_grab(int fd);
/* The device's name (EVIOCGNAME) into buffer, NUL-terminated; its length or -1. */
int kp_evdev_name(int fd, char *buffer, size_t length);
/* A non-blocking, close-on-exec pipe (a wake-up for a poll loop). 0 or -1. */
int kp_wake_pipe(int fds[2]);
/* Names the calling thread (visible in /proc/PID/task/TID/comm). */
void kp_input_thread_name(const char *name);

#endif
