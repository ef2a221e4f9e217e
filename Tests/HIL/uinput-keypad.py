#!/usr/bin/env python3
"""A virtual USB numeric keypad through /dev/uinput, driven by commands on stdin.

  create [card]   make the device ("KioskPad HIL keypad", bus USB; with card: "KioskPad
                  HIL card reader", a reader that types; with another word W: "KioskPad HIL W",
                  so that several doors each find their own keypad)
  destroy         remove it (an unplug)
  type KEYS       tap each key: 0-9 main row, k0-k9 numeric keypad (space separated),
                  enter, kpenter, bs, esc; 60 ms down, 60 ms apart
  card DIGITS     type a card as a USB reader does: the digits on the main row, then Enter,
                  4 ms down and 4 ms apart
  wait SECONDS
  play SCRIPT LOG play a keypad-emu script ("press R C B", "wait MS", "release R C B") on the
                  numeric keypad: the key at row R, column C of 123A456B789C*0#D, digits as
                  k0-k9 and * as Backspace; logs "press R C T" to LOG for each press, T the
                  CLOCK_MONOTONIC ms just before the write (the kernel stamps the event in
                  it; taken after, a preemption could date the press after its frame),
                  as keypad-emu's EMU_LOG does, for Tests/HIL/latency-report.py
  quit

Uses only the kernel ABI (ioctl numbers from linux/uinput.h), no python-evdev.
Prints "created /dev/input/eventN" after each create.
"""
import fcntl
import os
import struct
import sys
import time

UI_SET_EVBIT = 0x40045564
UI_SET_KEYBIT = 0x40045565
UI_DEV_SETUP = 0x405C5503  # _IOW('U', 3, struct uinput_setup), 92 bytes
UI_DEV_CREATE = 0x5501
UI_DEV_DESTROY = 0x5502
UI_GET_SYSNAME = 0x8041552C  # _IOC(_IOC_READ, 'U', 44, 65)
EV_SYN, EV_KEY = 0, 1
NAMES = {"keypad": b"KioskPad HIL keypad", "card": b"KioskPad HIL card reader"}

MAIN = {str(d): (11 if d == 0 else d + 1) for d in range(10)}
PAD = {"k0": 82, "k1": 79, "k2": 80, "k3": 81, "k4": 75, "k5": 76, "k6": 77, "k7": 71, "k8": 72, "k9": 73}
NAMED = {"enter": 28, "kpenter": 96, "bs": 14, "esc": 1}
CODES = {**MAIN, **PAD, **NAMED}
LONG = struct.calcsize("l")


def emit(fd, kind, code, value):
    now = time.time()
    os.write(fd, struct.pack("llHHi", int(now), int((now % 1) * 1e6), kind, code, value))


def create(kind):
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
    for code in sorted(set(CODES.values())):
        fcntl.ioctl(fd, UI_SET_KEYBIT, code)
    fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("HHHH80sI", 0x03, 0x1234, 0x5678, 1, NAMES.get(kind, b"KioskPad HIL " + kind.encode()), 0))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    buffer = bytearray(65)
    fcntl.ioctl(fd, UI_GET_SYSNAME, buffer)
    sysname = buffer.split(b"\0")[0].decode()
    node = ""
    for _ in range(50):
        entries = [e for e in os.listdir(f"/sys/devices/virtual/input/{sysname}") if e.startswith("event")]
        if entries and os.path.exists("/dev/input/" + entries[0]):
            node = "/dev/input/" + entries[0]
            break
        time.sleep(0.05)
    print(f"created {node}", flush=True)
    return fd


def play(fd, script, log_path):
    labels = "123A456B789C*0#D"
    with open(script) as lines, open(log_path, "w") as log:
        for line in lines:
            words = line.split()
            if not words:
                continue
            if words[0] == "wait":
                time.sleep(int(words[1]) / 1000)
                continue
            row, column = int(words[1]), int(words[2])
            label = labels[row * 4 + column]
            code = CODES["bs"] if label == "*" else CODES["k" + label]
            written = time.monotonic() * 1000
            emit(fd, EV_KEY, code, 1 if words[0] == "press" else 0)
            emit(fd, EV_SYN, 0, 0)
            if words[0] == "press":
                log.write(f"press {row} {column} {written:.3f}\n")


def main():
    fd = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "create":
            fd = create(words[1] if len(words) > 1 else "keypad")
        elif words[0] == "destroy" and fd is not None:
            fcntl.ioctl(fd, UI_DEV_DESTROY)
            os.close(fd)
            fd = None
            print("destroyed", flush=True)
        elif words[0] == "type" and fd is not None:
            keys = words[1:] if len(words) > 2 or words[1] in CODES and len(words[1]) > 1 else list(words[1])
            for key in keys:
                emit(fd, EV_KEY, CODES[key], 1)
                emit(fd, EV_SYN, 0, 0)
                time.sleep(0.06)
                emit(fd, EV_KEY, CODES[key], 0)
                emit(fd, EV_SYN, 0, 0)
                time.sleep(0.06)
            print("typed " + " ".join(keys), flush=True)
        elif words[0] == "card" and fd is not None:
            for key in list(words[1]) + ["enter"]:
                for value in (1, 0):
                    emit(fd, EV_KEY, CODES[key], value)
                    emit(fd, EV_SYN, 0, 0)
                    time.sleep(0.004)
            print("card typed", flush=True)
        elif words[0] == "play" and fd is not None:
            play(fd, words[1], words[2])
            print("played", flush=True)
        elif words[0] == "wait":
            time.sleep(float(words[1]))
        elif words[0] == "quit":
            break
    if fd is not None:
        fcntl.ioctl(fd, UI_DEV_DESTROY)


if __name__ == "__main__":
    main()
