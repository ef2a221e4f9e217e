/* Linux i2c-dev access for the LCD backpack: open /dev/i2c-N and select a 7-bit address. */
#ifndef KEYPAD_I2C_H
#define KEYPAD_I2C_H

#ifdef __cplusplus
extern "C" {
#endif

/* Opens /dev/i2c-<bus> and selects <address> with the I2C_SLAVE ioctl.
 * Returns the descriptor, or -1 with errno set and *stage = 1 (open) or 2 (ioctl). */
int kp_i2c_open(int bus, int address, int *stage);

/* Sends one byte as an SMBus "send byte" (on the wire the same as a one-byte I2C write:
 * START, address+W, byte, STOP), which SMBus-only adapters accept too. 0, or -1 + errno. */
int kp_i2c_send_byte(int fd, unsigned char value);

#ifdef __cplusplus
}
#endif

#endif
