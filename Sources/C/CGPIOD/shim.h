/* libgpiod, from the system (libgpiod-dev). Debian 12 / Raspberry Pi OS bookworm: v1.6 API. */
#include <gpiod.h>
