#!/usr/bin/env python3
"""Footprint of a kioskpad binary in simulated mode (no GPIO needed): start -> first frame,
RSS when ready and after 10,000 keys, and the stripped binary size; once as plain
`simulate`, once with the journal and the metrics endpoint on (what `run` adds around entry).
Usage:
  Benchmarks/Footprint/footprint.py BINARY [RUNS]
`kioskpad run` needs a GPIO keypad; Tests/HIL/latency.sh reports its RSS in the HIL guest."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CONFIG = """keypad:
  driver: terminal
display:
  driver: plain
  columns: 16
  rows: 2
entry:
  result_s: 0.5
verifier:
  kind: demo
"""

DAEMON = """state_dir: {work}/state
metrics:
  listen: 127.0.0.1:0
"""


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def one_run(binary, config):
    started = time.monotonic()
    process = subprocess.Popen([binary, "simulate", "--config", config, "--display", "plain"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    while process.stdout.readline().rstrip(b"\n") != b"----":
        pass
    first_frame = time.monotonic() - started
    ready = rss_kb(process.pid)
    # 10,000 keys: PINs typed 4 digits at a time (the demo verifier answers each), with back keys.
    keys = ("12*34" * 2000).encode()
    for start in range(0, len(keys), 100):
        process.stdin.write(keys[start:start + 100])
        process.stdin.flush()
        time.sleep(0.01)
    time.sleep(1.5)
    after = rss_kb(process.pid)
    process.stdin.close()
    process.terminate()
    # Under emulation (Tests/arm64/hil.sh) the 10,000 keys can still be queued: it sets more.
    process.wait(timeout=float(os.environ.get("FOOTPRINT_STOP_TIMEOUT_S", "10")))
    return first_frame, ready, after


def main():
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "state"))
        measured = {}
        for name, text in (("simulate", CONFIG), ("simulate + journal + metrics", CONFIG + DAEMON.format(work=work))):
            config = os.path.join(work, "simulate.yaml")
            open(config, "w").write(text)
            measured[name] = [one_run(binary, config) for _ in range(runs)]
        stripped = os.path.join(work, "kioskpad.stripped")
        shutil.copy(binary, stripped)
        subprocess.run(["strip", stripped], check=True)
        size = os.path.getsize(stripped)
    for name, results in measured.items():
        print(f"footprint: {binary}, {runs} runs of {name}")
        print(f"footprint:   start -> first frame median {statistics.median(r[0] for r in results) * 1000:.0f} ms (max {max(r[0] for r in results) * 1000:.0f} ms)")
        print(f"footprint:   RSS at ready median {statistics.median(r[1] for r in results) / 1024:.1f} MB")
        print(f"footprint:   RSS after 10,000 keys median {statistics.median(r[2] for r in results) / 1024:.1f} MB")
    print(f"footprint: stripped binary {size / 1e6:.1f} MB")


main()
