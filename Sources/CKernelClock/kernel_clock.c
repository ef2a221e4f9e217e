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
