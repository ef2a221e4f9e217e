#ifndef KP_QRCODE_H
#define KP_QRCODE_H

#include <stddef.h>

/// Encodes `text` (8-bit mode, error correction level M) as a QR code with libqrencode,
/// loaded at run time (libqrencode.so.4, Debian's libqrencode4): the door terminal never
/// needs it, so the binary does not link it. On success returns 0, sets `*width` and
/// `*modules` (width*width bytes, 1 = dark, row by row; free() it). On failure returns -1
/// and writes why into `error`.
int kp_qr_encode(const char *text, unsigned char **modules, int *width, char *error, size_t error_size);

#endif
