#!/usr/bin/env python3
"""A Wiegand reader on a gpio-sim chip, for the HIL guest. D0 and D1 idle high (kioskpad
requests them with pull-ups); a bit is a low pulse on D0 (0) or D1 (1), made by writing
the line's sim_gpioN/pull. Frames are built here, independently of KioskPad's encoder.

    wiegand-emu.py SIM_DIR D0_OFFSET D1_OFFSET < SCRIPT

Script lines (one frame each, then FRAME_SPACING_MS of silence):
    key N      4-bit key frame, N 0-15 (10 is *, 11 is #)
    key8 N     8-bit key frame: the inverted nibble, then N
    w26 N      26-bit frame carrying N (< 2^24), even and odd parity right
    w34 N      34-bit frame carrying N (< 2^32)
    bits B     these bits as they are (bad parity, truncated frames, noise)
    wait MS    silence

Timing (environment, milliseconds): PULSE_MS low time (1), PERIOD_MS from one bit to the next
(5), FRAME_SPACING_MS (250). Real readers pulse 50-100 us every 1-2 ms; under QEMU a pull
write takes 0.1-2 ms, so the pulses here are wider and slower, and the terminal's
frame_gap_ms must exceed PERIOD_MS plus the guest's scheduling stalls. Prints one line per
frame sent."""
import os
import sys
import time

sim, d0, d1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pulse = float(os.environ.get("PULSE_MS", "1")) / 1000
period = float(os.environ.get("PERIOD_MS", "5")) / 1000
spacing = float(os.environ.get("FRAME_SPACING_MS", "250")) / 1000
pulls = {bit: os.open(f"{sim}/sim_gpio{line}/pull", os.O_WRONLY) for bit, line in ((0, d0), (1, d1))}


def level(bit, low):
    os.pwrite(pulls[bit], b"pull-down" if low else b"pull-up", 0)


def send(bits):
    for bit in bits:
        start = time.monotonic()
        level(bit, True)
        time.sleep(max(0.0, pulse - (time.monotonic() - start)))
        level(bit, False)
        time.sleep(max(0.0, period - (time.monotonic() - start)))


def number(value, width):
    return [(value >> (width - 1 - i)) & 1 for i in range(width)]


def with_parity(data):
    half = len(data) // 2
    even = sum(data[:half]) % 2          # makes the first half (with it) even
    odd = 1 - sum(data[half:]) % 2       # makes the second half (with it) odd
    return [even] + data + [odd]


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    verb, arg = words[0], words[1] if len(words) > 1 else ""
    if verb == "wait":
        time.sleep(int(arg) / 1000)
        continue
    if verb == "key":
        bits = number(int(arg), 4)
    elif verb == "key8":
        low = number(int(arg), 4)
        bits = [1 - b for b in low] + low
    elif verb == "w26":
        bits = with_parity(number(int(arg), 24))
    elif verb == "w34":
        bits = with_parity(number(int(arg), 32))
    elif verb == "bits":
        bits = [int(c) for c in arg]
    else:
        sys.exit(f"wiegand-emu: unknown line '{line.strip()}' (valid: key, key8, w26, w34, bits, wait)")
    send(bits)
    print(f"sent {verb} {len(bits)} bits", flush=True)
    time.sleep(spacing)
