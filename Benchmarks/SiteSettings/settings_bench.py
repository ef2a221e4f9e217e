#!/usr/bin/env python3
"""Settings from the site, measured with real processes on loopback: a release
`kioskpad verifier serve` (SQLite) and ten `kioskpad run` doors adopted from it with their
pairing codes (`kioskpad pair`), each with libosdp's reader (Tests/OSDP/osdp-reader.py, the
Secure Channel, over a socat pseudo-terminal pair) as its keypad and a plain display.

  applied   From `verifier settings set` to every door reporting that it runs the new version
            (what `verifier settings show` reads), for a display text (applied in place) and for
            an entry timing (each door starts again in place once idle). The doors check in
            every `--check-in` seconds (the site's server.check_in_seconds; 60 by default in a
            real site, where this time is up to a minute more).
  check-in  One door's check-in (POST /v1/check-in, signed with its own secret) with nothing new,
            and with settings it does not run yet: the answer's bytes, and the server's CPU time
            per check-in (read from /proc over --requests check-ins, one after another).

Usage:
  Benchmarks/SiteSettings/settings_bench.py BINARY [--doors 10] [--check-in 2] [--requests 300]
BINARY is a release `kioskpad` with `kioskpad-verifier` beside it (swift build -c release)."""
import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEY = "5a1f00d3c2b4e6a798310fedcba98765"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Site:
    def __init__(self, binary, work, check_in):
        self.binary, self.work = binary, work
        self.port = free_port()
        self.config = os.path.join(work, "verifier.yaml")
        secret = subprocess.run([binary, "verifier", "secret"], capture_output=True, text=True, check=True).stdout
        open(os.path.join(work, "secret"), "w").write(secret)
        open(self.config, "w").write(
            f"server:\n  listen: 127.0.0.1:{self.port}\n  state_dir: {work}/state\n  secret_file: {work}/secret\n  check_in_seconds: {check_in}\n")
        self.log = open(os.path.join(work, "serve.log"), "w")
        self.process = subprocess.Popen([binary, "verifier", "serve", "--config", self.config, "--log-level", "warning"],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                break
            except OSError:
                time.sleep(0.1)

    def cli(self, *arguments):
        return subprocess.run([self.binary, "verifier", *arguments, "--config", self.config], capture_output=True, text=True)

    def running(self):
        shown = self.cli("settings", "show").stdout
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+): runs version (\d+)$", shown, re.M)}


def adopt(site, binary, work, name):
    state = os.path.join(work, name)
    os.makedirs(state)
    pair = subprocess.Popen([binary, "pair", "--site", f"http://127.0.0.1:{site.port}", "--state-dir", state, "--wait-s", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    code = None
    for line in pair.stdout:
        found = re.search(r"pairing code: (\d{4}-\d{4}-\d{4})", line)
        if found:
            code = found.group(1)
            break
    adopted = site.cli("terminal", "adopt", code, "--name", name)
    assert adopted.returncode == 0, adopted.stderr
    pair.stdout.read()
    assert pair.wait(60) == 0
    # libosdp's reader on one end of a pseudo-terminal pair, the door's panel on the other.
    line = os.path.join(work, name + "-line")
    os.makedirs(line)
    peers = [subprocess.Popen(["socat", f"pty,raw,echo=0,link={line}/panel", f"pty,raw,echo=0,link={line}/reader"])]
    for _ in range(500):
        if os.path.exists(f"{line}/reader"):
            break
        time.sleep(0.01)
    peers.append(subprocess.Popen(["python3", os.path.join(ROOT, "Tests", "OSDP", "osdp-reader.py"), "--device", f"{line}/reader", "--address", "1",
                                   "--key", KEY, "--enforce-secure"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=open(f"{line}/reader.log", "w")))
    key_file = f"{line}/reader1.scbk"
    with os.fdopen(os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
        handle.write(KEY + "\n")
    config = os.path.join(work, name + ".yaml")
    open(config, "w").write(
        f"site: http://127.0.0.1:{site.port}\nstate_dir: {state}\n"
        f"keypad: {{driver: osdp, device: {line}/panel, baud: 115200, readers: [{{address: 1, scbk_file: {key_file}}}]}}\n"
        "display: {driver: plain}\nmetrics: {listen: \"off\"}\n")
    out = open(os.path.join(work, name + ".out"), "w")
    door = subprocess.Popen([binary, "run", "--config", config], stdout=out, stderr=subprocess.STDOUT)
    return [door] + peers, state


def until_all(site, names, version, limit=300):
    start = time.monotonic()
    while time.monotonic() - start < limit:
        running = site.running()
        if all(running.get(name) == version for name in names):
            return time.monotonic() - start
        time.sleep(0.1)
    raise SystemExit(f"not every door runs version {version}: {site.running()}")


def check_in(site, name, secret, running):
    body = json.dumps({"terminal_id": name, "settings_version": running}, separators=(",", ":")).encode()
    msg_id, stamp = str(uuid.uuid4()), str(int(time.time()))
    key = base64.b64decode(secret.strip()[len("whsec_"):])
    signature = base64.b64encode(hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()).decode()
    request = urllib.request.Request(f"http://127.0.0.1:{site.port}/v1/check-in", data=body, method="POST", headers={
        "Content-Type": "application/json", "webhook-id": msg_id, "webhook-timestamp": stamp,
        "webhook-signature": "v1," + signature, "kioskpad-terminal": name})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def main():
    options = argparse.ArgumentParser()
    options.add_argument("binary")
    options.add_argument("--doors", type=int, default=10)
    options.add_argument("--check-in", type=int, default=2)
    options.add_argument("--requests", type=int, default=300)
    arguments = options.parse_args()
    with tempfile.TemporaryDirectory(prefix="kioskpad-settings.") as work:
        site = Site(os.path.abspath(arguments.binary), work, arguments.check_in)
        doors, states = [], {}
        try:
            names = [f"door-{index:02d}" for index in range(1, arguments.doors + 1)]
            for name in names:
                processes, states[name] = adopt(site, site.binary, work, name)
                doors += processes
            try:
                until_all(site, names, 0, limit=60)
            except SystemExit:
                print(open(os.path.join(work, names[0] + ".out")).read()[-2000:])
                raise
            print(f"{len(names)} doors adopted and checking in every {arguments.check_in} s")
            for label, assignment, version in [("a display text (in place)", "display.texts.enter_pin=PIN please", 1),
                                               ("entry.result_s (each door starts again in place)", "entry.result_s=2", 2)]:
                changed = site.cli("settings", "set", assignment)
                assert changed.returncode == 0, changed.stderr
                took = until_all(site, names, version)
                print(f"settings change to all {len(names)} doors running it, {label}: {took:.2f} s")
            restarted = sum(open(os.path.join(work, n + ".out")).read().count("terminal starting again") for n in names)
            print(f"doors that started again in place for entry.result_s: {restarted} of {len(names)}")
            secret = open(os.path.join(states[names[0]], "site.secret")).read()
            for label, running in [("nothing new", 2), ("settings it does not run", 0)]:
                sizes = [len(check_in(site, names[0], secret, running)) for _ in range(3)]
                before, started = cpu_seconds(site.process.pid), time.monotonic()
                latencies = []
                for _ in range(arguments.requests):
                    begin = time.monotonic()
                    check_in(site, names[0], secret, running)
                    latencies.append(time.monotonic() - begin)
                cpu = (cpu_seconds(site.process.pid) - before) / arguments.requests
                latencies.sort()
                print(f"check-in, {label}: answer {sizes[0]} bytes; server CPU {cpu * 1e6:.0f} us a check-in; "
                      f"p50 {statistics.median(latencies) * 1e3:.2f} ms, p99 {latencies[int(len(latencies) * 0.99) - 1] * 1e3:.2f} ms "
                      f"({arguments.requests} one after another)")
        finally:
            for door in doors:
                door.terminate()
            for door in doors:
                door.wait(10)
            site.process.terminate()
            site.process.wait(10)


if __name__ == "__main__":
    main()
