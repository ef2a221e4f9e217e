#ifndef KERNEL_CLOCK_H
#define KERNEL_CLOCK_H

/* 1 when the kernel reports the wall clock synchronised (adjtimex(2), read only: STA_UNSYNC
   clear and the state not TIME_ERROR), 0 when not, -errno when the call fails. */
int kp_clock_synchronised(void);

#endif
