#include "kernel_clock.h"

#include <errno.h>
#include <sys/timex.h>

int kp_clock_synchronised(void) {
    struct timex state = {0};
    state.modes = 0; /* read only */
    int result = adjtimex(&state);
    if (result < 0) return -errno;
    return result != TIME_ERROR && (state.status & STA_UNSYNC) == 0;
}

#include <time.h>

long long kp_clock_boottime_ns(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -errno;
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}
