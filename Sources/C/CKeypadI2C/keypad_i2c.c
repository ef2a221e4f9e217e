#include "keypad_i2c.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <sys/ioctl.h>

int kp_i2c_send_byte(int fd, unsigned char value) {
    struct i2c_smbus_ioctl_data args = {
        .read_write = I2C_SMBUS_WRITE, .command = value, .size = I2C_SMBUS_BYTE, .data = NULL};
    int result;
    do {
        result = ioctl(fd, I2C_SMBUS, &args);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? -1 : 0;
}

int kp_i2c_open(int bus, int address, int *stage) {
    char path[32];
    snprintf(path, sizeof path, "/dev/i2c-%d", bus);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        *stage = 1;
        return -1;
    }
    if (ioctl(fd, I2C_SLAVE, address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        *stage = 2;
        return -1;
    }
    return fd;
}
#else
int kp_i2c_send_byte(int fd, unsigned char value) {
    (void)fd; (void)value;
    errno = ENOTSUP;
    return -1;
}

int kp_i2c_open(int bus, int address, int *stage) {
    (void)bus; (void)address;
    *stage = 1;
    errno = ENOTSUP;
    return -1;
}
#endif
