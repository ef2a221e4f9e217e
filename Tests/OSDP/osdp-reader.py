#!/usr/bin/env python3
"""An OSDP reader for KioskPad's tests: libosdp's peripheral device (the reference C
implementation, through its PyPI binding) on a tty, driven from stdin, reporting on stdout.

    osdp-reader.py --device /dev/pts/N --address 1 [--key HEX | --install-mode] [--enforce-secure]
                   [--more-readers 2,3,4]

With --more-readers, further readers (same key and flags) share the line as on an RS-485 bus:
every reader sees every byte and answers its own address; the commands below go to the first.

stdin, one command a line:
    keys 1234#          keys typed at the reader (* and # sent as OSDP's 0x7F and 0x0D)
    card BITS HEX       a raw Wiegand card of BITS bits (data bits, first bit first)
    status TAMPER POWER local status: 1 = tamper active / power failed
    pause | resume      stop answering the panel, and start again
    state               prints {"online": ..., "secure": ...}
    quit
stdout, one JSON object a line: {"ready": true}, each command the panel sent
({"command": "led", ...}; a key set's key is reported by its length only), and state lines.
"""
import argparse
import json
import os
import sys
import time
import threading
import tty

import osdp


class Line:
    """The tty, read by one thread that hands every byte to every reader on it (a bus)."""

    def __init__(self, path, readers):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.lock = threading.Lock()
        self.buffers = [bytearray() for _ in range(readers)]
        self.paused = False
        threading.Thread(target=self.pump, daemon=True).start()

    def pump(self):
        while True:
            data = os.read(self.fd, 512)
            if not data:
                return
            if self.paused:
                continue
            with self.lock:
                for buffer in self.buffers:
                    buffer.extend(data)


class BusChannel(osdp.Channel):
    def __init__(self, line, index):
        super().__init__()
        self.line = line
        self.index = index

    def read(self, max_bytes):
        with self.line.lock:
            buffer = self.line.buffers[self.index]
            data = bytes(buffer[:max_bytes])
            del buffer[:max_bytes]
        return data

    def write(self, buf):
        if self.line.paused:
            return len(buf)
        with self.line.lock:
            return os.write(self.line.fd, bytes(buf))

    def flush(self):
        pass


COMMAND_NAMES = {
    osdp.Command.LED: "led", osdp.Command.Buzzer: "buzzer", osdp.Command.Text: "text",
    osdp.Command.Keyset: "keyset", osdp.Command.Output: "output", osdp.Command.Status: "status",
}


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", required=True)
    parser.add_argument("--address", type=int, default=1)
    parser.add_argument("--key", help="the reader's SCBK, 32 hex digits")
    parser.add_argument("--install-mode", action="store_true")
    parser.add_argument("--enforce-secure", action="store_true")
    parser.add_argument("--no-secure-channel", action="store_true", help="do not offer the Secure Channel")
    parser.add_argument("--more-readers", default="", help="more addresses on the same line, e.g. 2,3,4")
    args = parser.parse_args()

    addresses = [args.address] + [int(a) for a in args.more_readers.split(",") if a]
    bus = Line(args.device, len(addresses))
    flags = []
    if args.install_mode:
        flags.append(osdp.LibFlag.InstallMode)
    if args.enforce_secure:
        flags.append(osdp.LibFlag.EnforceSecure)
    key = bytes.fromhex(args.key) if args.key else None
    capabilities = [
        (osdp.Capability.LEDControl, 1, 1),
        (osdp.Capability.AudibleControl, 1, 1),
        (osdp.Capability.TextOutput, 1, 1),
        (osdp.Capability.CardDataFormat, 1, 1),
    ]
    local_status = [0, 0]
    if not args.no_secure_channel:
        capabilities.append((osdp.Capability.CommunicationSecurity, 1, 1))

    def on_command(command):
        name = COMMAND_NAMES.get(command.get("command"), str(command.get("command")))
        shown = {k: v for k, v in command.items() if k not in ("command", "data")}
        if name == "keyset":
            shown["key_length"] = len(command.get("data", b""))
        elif name == "text":
            shown["data"] = command.get("data")
        say({"command": name, **shown})
        if name == "status":
            return 0, {"command": osdp.Command.Status, "type": osdp.StatusReportType.Local, "nr_entries": 2,
                       "report": bytes(local_status)}
        return 0, None

    devices = []
    lock = threading.Lock()
    for index, address in enumerate(addresses):
        info = osdp.PDInfo(address, BusChannel(bus, index), scbk=key, flags=flags)
        device = osdp.PeripheralDevice(info, osdp.PDCapabilities(capabilities), log_level=osdp.LogLevel.Error,
                                       command_handler=on_command if index == 0 else None)
        device.lock = lock
        devices.append(device)
    pd = devices[0]
    stopping = threading.Event()

    def refresh():
        # libosdp asks for a refresh at least every 50 ms; its Python wrapper's own thread sleeps
        # 20 ms between them, which would add up to 20 ms to every reply. A real reader answers
        # in a few ms, so the readers here are refreshed every millisecond.
        while not stopping.is_set():
            with lock:
                for device in devices:
                    device.ctx.refresh()
            time.sleep(0.001)

    refresher = threading.Thread(target=refresh, daemon=True)
    refresher.start()
    say({"ready": True})
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        verb = words[0]
        if verb == "keys":
            data = bytes({"*": 0x7F, "#": 0x0D}.get(c, ord(c)) for c in words[1])
            pd.submit_event({"event": osdp.Event.KeyPress, "reader_no": 0, "data": data})
        elif verb == "card":
            bits = int(words[1])
            pd.submit_event({"event": osdp.Event.CardRead, "reader_no": 0, "format": osdp.CardFormat.Wiegand,
                             "direction": 0, "length": bits, "data": bytes.fromhex(words[2])})
        elif verb == "status":
            local_status[:] = [int(words[1]), int(words[2])]
            pd.submit_event({"event": osdp.Event.Status, "type": osdp.StatusReportType.Local,
                             "nr_entries": 2, "report": bytes(local_status)})
        elif verb == "pause":
            bus.paused = True
        elif verb == "resume":
            bus.paused = False
        elif verb == "state":
            say({"online": pd.is_online(), "secure": pd.is_sc_active()})
        elif verb == "stamp":
            # The monotonic clock (CLOCK_MONOTONIC, as the door's), then keys: for latency.
            say({"stamp_ns": time.monotonic_ns()})
            pd.submit_event({"event": osdp.Event.KeyPress, "reader_no": 0, "data": bytes(words[1], "ascii")})
        elif verb == "quit":
            break
    stopping.set()
    refresher.join(2)


if __name__ == "__main__":
    main()
