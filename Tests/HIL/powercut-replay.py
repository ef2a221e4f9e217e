#!/usr/bin/env python3
"""Replays a dm-log-writes record of the door's state device to crash states and checks each.

The record's format is the kernel's (drivers/md/dm-log-writes.c): sector 0 holds the super
(magic, version, entry count, sector size); then each entry is one sector (sector, sector
count, flags, data length, and a mark's name inline) followed by the data written. Writes
are logged in the order they completed; an entry flagged FLUSH or FUA is a flush point:
everything logged before it was on stable storage once it completed.

A crash state is the base image (the file system as mkfs left it) with every entry up to a
flush point applied, or (a state "between" two flush points) up to one flush point plus a
random subset of the writes that came before the next, in random order: what a card may
hold after a power cut, having written some of its cache and not the rest.

Each state is mounted (ext4 replays its journal) and checked: the door's journal reads, a
torn last record is set aside and counted, the records are the first ones of the run (none
lost, none changed), every attempt whose result was shown before that point is there; the
forwarding cursor is not ahead of the journal; the replica is whole, and there once the
first one was synced. On every Nth state the door itself starts on it (verifier offline, so
it decides from the replica; events to the live site server) and must decide, repair and
forward: afterwards the site server holds every record of that journal. e2fsck -fn must
find the file system clean.
"""
import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import struct
import subprocess
import sys

MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8


class Entry:
    def __init__(self, index, sector, count, flags, data_at, mark):
        self.index, self.sector, self.count, self.flags = index, sector, count, flags
        self.data_at, self.mark = data_at, mark

    @property
    def is_write(self):
        return not self.flags & MARK and self.count > 0

    @property
    def mark_name(self):
        """A mark's name and the guest's uptime when it was made (NAME@SECONDS)."""
        name, _, when = self.mark.partition("@")
        return name, float(when or 0)

    @property
    def is_flush(self):
        return bool(self.flags & (FLUSH | FUA))


def read_log(path):
    with open(path, "rb") as log:
        magic, version, count, sector_size = struct.unpack("<QQQI", log.read(28))
        if magic != MAGIC or version != 1:
            sys.exit(f"powercut: {path} is not a dm-log-writes record (magic {magic:#x}, version {version})")
        entries, at = [], sector_size
        for index in range(count):
            log.seek(at)
            header = log.read(sector_size)
            sector, sectors, flags, length = struct.unpack("<QQQQ", header[:32])
            mark = header[32 : 32 + length].decode() if flags & MARK else None
            at += sector_size
            entries.append(Entry(index, sector, sectors, flags, at, mark))
            if not flags & (MARK | DISCARD):
                at += sectors * sector_size
    return entries, sector_size


class Replayer:
    """Applies entries to an image file; the record stays open for the data."""

    def __init__(self, log_path, sector_size):
        self.log = open(log_path, "rb")
        self.sector_size = sector_size

    def apply(self, image, entry):
        if not entry.is_write:
            return
        size = entry.count * self.sector_size
        if entry.flags & DISCARD:
            data = bytes(size)
        else:
            self.log.seek(entry.data_at)
            data = self.log.read(size)
        image.seek(entry.sector * self.sector_size)
        image.write(data)


def marks_before(entries, position):
    """{name: seconds} of the marks logged before entry `position`."""
    return dict(entry.mark_name for entry in entries[:position] if entry.mark)


def read_journal(directory):
    """(records [(seq, id, type, line)], torn bytes, problems) of a state directory."""
    problems, records, torn = [], [], 0
    if not os.path.isdir(directory):
        return records, torn, problems
    names = sorted(n for n in os.listdir(directory) if n.startswith("journal-") and n.endswith(".jsonl"))
    if os.path.exists(os.path.join(directory, "journal.jsonl")):
        names.append("journal.jsonl")
    for name in names:
        data = open(os.path.join(directory, name), "rb").read()
        lines = data.split(b"\n")
        tail = lines.pop()  # after the last newline: empty, or a torn record
        if tail:
            if name != "journal.jsonl":
                problems.append(f"{name}: a closed segment ends in a torn record")
            torn += len(tail)
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                records.append((record["seq"], record["id"], record["type"], line))
            except (ValueError, KeyError) as error:
                problems.append(f"{name} line {number}: not a whole record ({error}): {line[:60]!r}")
    for before, after in zip(records, records[1:]):
        if after[0] != before[0] + 1:
            problems.append(f"sequence {before[0]} is followed by {after[0]}")
    return records, torn, problems


def check_state(args, image_path, expect, final_records, site):
    """Mounts one state, checks it (and starts the door on it if asked); a list of problems."""
    problems, mount = [], os.path.join(args.work, "check-mnt")
    state = os.path.join(mount, "kioskpad")
    os.makedirs(mount, exist_ok=True)
    run = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True)
    mounted = run("mount", "-o", "loop,noatime", image_path, mount)
    if mounted.returncode != 0:
        return [f"the file system does not mount: {mounted.stderr.strip()}"], {}
    facts = {}
    try:
        records, torn, found = read_journal(state)
        problems += found
        facts["torn"] = torn
        keys = [(r[0], r[1]) for r in records]
        if keys != [(r[0], r[1]) for r in final_records[: len(keys)]]:
            problems.append(f"the journal's {len(keys)} records are not the run's first {len(keys)}: a record was lost or changed")
        attempts = sum(1 for r in records if r[2] == "attempt")
        if attempts < expect["shown"]:
            problems.append(f"{attempts} attempts journaled, {expect['shown']} were shown before this point: lost")
        last_seq = records[-1][0] if records else 0
        cursor, delivered = os.path.join(state, "journal.cursor"), 0
        if os.path.exists(cursor):
            fields = open(cursor).read().split()
            if not fields or not fields[0].isdigit():
                problems.append(f"journal.cursor is not whole: {fields!r}")
            elif int(fields[0]) > last_seq:
                problems.append(f"journal.cursor says {fields[0]} delivered, the journal ends at {last_seq}: later records would be skipped")
            else:
                delivered = int(fields[0])
        # Records after the cursor are sent again at the next start; the site server had
        # them all from the run (it stores each once, by id).
        facts["sent_again"] = sum(1 for r in records if r[0] > delivered)
        replica = os.path.join(state, "replica.json")
        has_replica = os.path.exists(replica)
        if has_replica:
            try:
                json.load(open(replica))["replica"]
            except (ValueError, KeyError) as error:
                problems.append(f"replica.json is neither the old nor the new one: {error}")
        elif expect["replica"] > 0:
            problems.append(f"no replica.json, though version {expect['replica']} had been synced before this point")
        if expect["door"]:
            problems += check_door(args, state, records, torn, has_replica, expect, site, facts)
    finally:
        umounted = run("umount", mount)
        if umounted.returncode != 0:
            problems.append(f"umount: {umounted.stderr.strip()}")
    fsck = run("e2fsck", "-fn", image_path)
    if fsck.returncode != 0:
        problems.append(f"e2fsck -fn: exit {fsck.returncode}: {fsck.stdout.strip().splitlines()[-1:]}")
    return problems, facts


def check_door(args, state, before, torn, has_replica, expect, site, facts):
    """Starts the door on the state (offline: it decides from the replica), types the PIN."""
    problems, out = [], os.path.join(args.work, "check-door.out")
    result = subprocess.run(args.check_door.split() + [out], capture_output=True, text=True)
    text = open(out, errors="replace").read() if os.path.exists(out) else ""
    if result.returncode != 0:
        return [f"the door did not start, decide and stop: {result.stdout.strip()} {text[-300:]!r}"]
    said = re.findall(r"attempt decided .*decision=(granted|denied|verifier unavailable)", text)
    decided = said[-1] if said else "nothing"
    wanted = "granted" if has_replica else "verifier unavailable"
    if decided != wanted:
        shown = " | ".join(line for line in text.splitlines()[-8:])
        problems.append(f"the door decided '{decided}', expected '{wanted}' (replica {'held' if has_replica else 'absent'}); it said: {shown}")
    after, after_torn, found = read_journal(state)
    problems += [f"after the door ran: {p}" for p in found]
    if [(r[0], r[1]) for r in after[: len(before)]] != [(r[0], r[1]) for r in before]:
        problems.append("the door's start changed or dropped records it had")
    repaired = [json.loads(r[3]) for r in after[len(before) :] if r[2] == "journal_repaired"]
    if torn and not repaired:
        problems.append(f"a torn record of {torn} bytes was cut without a journal_repaired record")
    grants = [json.loads(r[3]) for r in after[len(before) :] if r[2] == "attempt" and json.loads(r[3]).get("decision") == "granted"]
    if has_replica and not any(g.get("offline") and g.get("replica_version", 0) >= expect["replica"] for g in grants):
        problems.append(f"no offline grant from replica version >= {expect['replica']}: {grants}")
    ids = [r[1] for r in after]
    stored = {row[0] for row in site.execute(f"SELECT id FROM kioskpad_events WHERE id IN ({','.join('?' * len(ids))})", ids)} if ids else set()
    missing = [r[0] for r in after if r[1] not in stored]
    cursor = os.path.join(state, "journal.cursor")
    fields = open(cursor).read().split() if os.path.exists(cursor) else []
    delivered = int(fields[0]) if fields and fields[0].isdigit() else 0
    # A record the cursor counts as delivered must be at the site; one after the cursor was
    # not confirmed within the stop's drain and waits on disk for the next start, which the
    # door must say (docs/door-daemon.md).
    lost = [seq for seq in missing if seq <= delivered]
    waiting = [seq for seq in missing if seq > delivered]
    if lost:
        problems.append(f"records {lost[:8]} of this journal are behind the cursor ({delivered}) but never reached the site server: lost")
    if waiting and "were not forwarded before stopping" not in text:
        problems.append(f"records {waiting[:8]} neither reached the site server nor were reported as queued for the next start: lost")
    facts["waiting"] = len(waiting)
    facts["door"] = decided
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wear-only", action="store_true", help="only the bytes written between marks (wear-guest.sh)")
    parser.add_argument("--log", required=True)
    parser.add_argument("--summary", required=True)
    for name in ("base", "work", "final", "site-db", "check-door"):
        parser.add_argument("--" + name)
    for name in ("states", "seed", "door-every", "attempts"):
        parser.add_argument("--" + name, type=int)
    args = parser.parse_args()
    entries, sector_size = read_log(args.log)
    if args.wear_only:
        summary = wear_figures(entries, sector_size)
        open(args.summary, "w").write("\n".join(summary) + "\n")
        print("\n".join(summary))
        return
    flushes = [e.index for e in entries if e.is_flush]
    final_records, _, final_problems = read_journal(args.final)
    if final_problems or not final_records:
        sys.exit(f"powercut: the run's own journal does not read: {final_problems}")
    rng = random.Random(args.seed)
    # States between two flush points only where writes came between them.
    gaps = [f for f, following in zip(flushes, flushes[1:]) if any(e.is_write for e in entries[f + 1 : following])]
    if args.states == 0:
        chosen = [(f, False) for f in flushes] + [(f, True) for f in gaps[::4]]
    else:
        at_flush = max(1, args.states * 3 // 4)
        step = max(1, len(flushes) // at_flush)
        picked = sorted(set(flushes[::step][: at_flush - 1] + [flushes[-1]]))
        chosen = [(f, False) for f in picked] + [(f, True) for f in rng.sample(gaps, min(len(gaps), args.states - len(picked)))]
    chosen.sort()
    replayer = Replayer(args.log, sector_size)
    working = os.path.join(args.work, "replay.img")
    shutil.copyfile(args.base, working)
    image_path = os.path.join(args.work, "state.img")
    site = sqlite3.connect(f"file:{args.site_db}?mode=ro", uri=True)
    applied, failed, lost, torn_states, doors, sent_again, waiting = 0, 0, 0, 0, 0, 0, 0
    with open(working, "r+b") as image:
        for number, (flush, between) in enumerate(chosen, 1):
            while applied <= flush:
                replayer.apply(image, entries[applied])
                applied += 1
            image.flush()
            shutil.copyfile(working, image_path)
            label = f"flush point at entry {flush} of {len(entries)}"
            if between:
                following = next((f for f in flushes if f > flush), len(entries))
                writes = [e for e in entries[flush + 1 : following] if e.is_write]
                kept = rng.sample(writes, rng.randint(0, len(writes))) if writes else []
                with open(image_path, "r+b") as state:
                    for entry in kept:  # in random order: the card wrote its cache as it chose
                        replayer.apply(state, entry)
                label = f"after entry {flush}, {len(kept)} of the {len(writes)} unflushed writes before the next flush point kept, reordered"
            marks = marks_before(entries, flush)
            expect = {
                "shown": max([int(n[6:]) for n in marks if n.startswith("shown-")] or [0]),
                "replica": max([int(n[8:]) for n in marks if n.startswith("replica-")] or [0]),
                "door": (number - 1) % args.door_every == 0 or number == len(chosen),
            }
            problems, facts = check_state(args, image_path, expect, final_records, site)
            doors += 1 if expect["door"] else 0
            torn_states += 1 if facts.get("torn") else 0
            sent_again += facts.get("sent_again", 0) if expect["door"] else 0
            waiting += facts.get("waiting", 0)
            lost += sum(1 for p in problems if p.endswith("lost"))
            failed += 1 if problems else 0
            verdict = "ok" if not problems else "FAIL " + "; ".join(problems)
            print(f"powercut: state {number}/{len(chosen)} ({label}; {expect['shown']} shown, replica {expect['replica']}"
                  f"{', door ' + facts.get('door', '?') if expect['door'] else ''}): {verdict}", flush=True)
    controls = check_controls(args, entries, flushes, replayer, image_path, final_records, site)
    failed += sum(1 for flagged in controls if not flagged)
    wear = wear_figures(entries, sector_size)
    summary = [
        f"powercut: {len(chosen)} states checked ({sum(1 for _, b in chosen if not b)} at flush points, {sum(1 for _, b in chosen if b)} between),"
        f" of {len(flushes)} flush points in {len(entries)} logged entries; {failed} failed",
        f"powercut: records lost {lost}; states with a torn last record set aside {torn_states}; the door started on {doors} states"
        f" and sent {sent_again} records again that the site server already held (stored once, by id),"
        f" leaving {waiting} unconfirmed at its stop, queued for the next start;"
        f" {len(controls)} controls (an attempt's writes dropped), {sum(controls)} of them flagged",
    ] + wear
    with open(args.summary, "w") as out:
        out.write("\n".join(summary) + "\n")
    print("\n".join(summary))
    sys.exit(1 if failed else 0)


def check_controls(args, entries, flushes, replayer, image_path, final_records, site):
    """Impossible states, to show the checks can fail: up to the first flush point after the
    mark shown-K, but without any write logged between the marks shown-(K-1) and shown-K
    (the writes that put attempt K on the card). Each must be flagged; True per flagged one."""
    where = {e.mark_name[0]: e.index for e in entries if e.mark}
    flagged = []
    for k in (3, 8):
        if f"shown-{k}" not in where or f"shown-{k - 1}" not in where:
            continue
        start, end = where[f"shown-{k - 1}"], where[f"shown-{k}"]
        flush = next(f for f in flushes if f > end)
        shutil.copyfile(args.base, image_path)
        with open(image_path, "r+b") as image:
            for entry in entries[: flush + 1]:
                if not start < entry.index < end:
                    replayer.apply(image, entry)
        expect = {"shown": k, "replica": 0, "door": False}
        problems, _ = check_state(args, image_path, expect, final_records, site)
        flagged.append(bool(problems))
        verdict = "flagged: " + "; ".join(problems) if problems else "FAIL: the checks found nothing wrong"
        print(f"powercut: control {len(flagged)} (attempt {k}'s writes, entries {start + 1}..{end - 1}, dropped): {verdict}", flush=True)
    return flagged


def wear_figures(entries, sector_size):
    """Bytes written to the state device between the marks NAME-start and NAME-end (idle,
    busy), per day at that rate, with the flush points among them."""
    lines, marks, written, flushes = [], {}, 0, 0
    for entry in entries:
        if entry.is_write and not entry.flags & DISCARD:
            written += entry.count * sector_size
        flushes += 1 if entry.is_flush else 0
        if entry.mark:
            name, when = entry.mark_name
            marks[name] = (written, flushes, when)
    for window in ("idle", "busy"):
        if f"{window}-start" in marks and f"{window}-end" in marks:
            (b0, f0, t0), (b1, f1, t1) = marks[f"{window}-start"], marks[f"{window}-end"]
            lines.append(
                f"powercut: {window}: {b1 - b0} bytes written ({f1 - f0} flush points) in {t1 - t0:.0f} s:"
                f" {(b1 - b0) / (t1 - t0) * 86400 / 1e6:.2f} MB a day at that rate")
    return lines


if __name__ == "__main__":
    main()
