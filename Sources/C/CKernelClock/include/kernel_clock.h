#ifndef KERNEL_CLOCK_H
#define KERNEL_CLOCK_H

/* 1 when the kernel reports the wall clock synchronised (adjtimex(2), read only: STA_UNSYNC
   clear and the state not TIME_ERROR), 0 when not, -errno when the call fails. */
int kp_clock_synchronised(void);

/* Nanoseconds since boot, counting suspend (CLOCK_BOOTTIME); -errno when the call fails.
   Never set by anyone: a door counts offline time from its last sync with it. */
long long kp_clock_boottime_ns(void);

#endif
