/* Eclipse Mosquitto's C client library, from the system (libmosquitto-dev; Debian 12: 2.0.11). */
#include <mosquitto.h>
