#!/usr/bin/env python3
"""An OSDP reader for KioskPad's tests: libosdp's peripheral device (the reference C
implementation, through its PyPI binding) on a tty, driven from stdin, reporting on stdout.

    osdp-reader.py --device /dev/pts/N --address 1 [--key HEX | --install-mode] [--enforce-secure]

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
import tty

import osdp


class TtyChannel(osdp.Channel):
    def __init__(self, path):
        super().__init__()
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.paused = False

    def read(self, max_bytes):
        try:
            data = os.read(self.fd, max_bytes)
        except BlockingIOError:
            return b""
        return b"" if self.paused else data

    def write(self, buf):
        if self.paused:
            return len(buf)
        try:
            return os.write(self.fd, bytes(buf))
        except BlockingIOError:
            return 0

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
    args = parser.parse_args()

    channel = TtyChannel(args.device)
    flags = []
    if args.install_mode:
        flags.append(osdp.LibFlag.InstallMode)
    if args.enforce_secure:
        flags.append(osdp.LibFlag.EnforceSecure)
    key = bytes.fromhex(args.key) if args.key else None
    info = osdp.PDInfo(args.address, channel, scbk=key, flags=flags)
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

    pd = osdp.PeripheralDevice(info, osdp.PDCapabilities(capabilities), log_level=osdp.LogLevel.Error,
                               command_handler=on_command)
    pd.start()
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
            channel.paused = True
        elif verb == "resume":
            channel.paused = False
        elif verb == "state":
            say({"online": pd.is_online(), "secure": pd.is_sc_active()})
        elif verb == "quit":
            break
    pd.stop()


if __name__ == "__main__":
    main()
