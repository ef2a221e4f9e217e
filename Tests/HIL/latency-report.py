#!/usr/bin/env python3
"""Scores one HIL latency run: what the emulator typed (its EMU_LOG) against what the program
printed (its output through `keypad-emu --stamp`). Prints one line:
  correct C wrong W missed M doubled D of N; latency ms median A p90 B max C

  latency-report.py keytest EMU_LOG STAMPED_OUTPUT
  latency-report.py run     EMU_LOG STAMPED_OUTPUT

keytest: every 'press ... key L' line is a key event. run: every frame (ended by '----') is one;
its slot row (the frame's second line, entry mode code) must show the previous slot row plus
the digit typed, or minus its last digit for the back key '*'. A press owns the events that
arrive before the next press; the first is scored, the rest count as doubled."""
import re
import statistics
import sys

KEYS = "123A456B789C*0#D"


def presses(path):
    out = []
    for line in open(path):
        verb, row, column, at = line.split()
        if verb == "press":
            out.append((float(at), KEYS[int(row) * 4 + int(column)]))
    return sorted(out)


def keytest_events(path):
    pattern = re.compile(r"^(\d+\.\d+) press   row \d column \d key '(.)'$")
    return [(float(m.group(1)), m.group(2)) for m in map(pattern.match, open(path)) if m]


def run_frames(path):
    frames, lines = [], []
    for line in open(path):
        stamp, _, text = line.rstrip("\n").partition(" ")
        if text == "----":
            frames.append((float(stamp), lines[1] if len(lines) > 1 else ""))
            lines = []
        else:
            lines.append(text)
    return frames


def slot_digits(row):
    return "".join(c for c in row if c.isdigit())


def score(kind, typed, events):
    correct = wrong = missed = doubled = 0
    latencies = []
    shown = ""
    if kind == "run":
        before = [e for e in events if e[0] < typed[0][0]] if typed else []
        shown = slot_digits(before[-1][1]) if before else ""
    for index, (at, label) in enumerate(typed):
        end = typed[index + 1][0] if index + 1 < len(typed) else float("inf")
        owned = [e for e in events if at <= e[0] < end]
        if not owned:
            missed += 1
            continue
        first_at, value = owned[0]
        if kind == "keytest":
            ok = value == label
        else:
            expected = shown[:-1] if label == "*" else shown + label
            ok = slot_digits(value) == expected
            shown = slot_digits(owned[-1][1])
        if ok:
            correct += 1
            latencies.append(first_at - at)
        else:
            wrong += 1
        doubled += len(owned) - 1
    return correct, wrong, missed, doubled, latencies


def main():
    kind, log, output = sys.argv[1:4]
    typed = presses(log)
    events = keytest_events(output) if kind == "keytest" else run_frames(output)
    correct, wrong, missed, doubled, latencies = score(kind, typed, events)
    if latencies:
        ordered = sorted(latencies)
        p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
        timing = f"latency ms median {statistics.median(ordered):.1f} p90 {p90:.1f} max {ordered[-1]:.1f}"
    else:
        timing = "latency ms none"
    print(f"correct {correct} wrong {wrong} missed {missed} doubled {doubled} of {len(typed)}; {timing}")


main()
