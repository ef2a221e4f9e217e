#!/usr/bin/env python3
"""A site of 200 doors on one site server (issue 65): what the doors' background traffic
costs the server, and what it does to the answers terminals wait for.

One `kioskpad verifier serve` (SQLite, the default store, or PostgreSQL with --store) with
10,000 users, every row tagged (a lookup key), ana at the default PBKDF2 cost and the others
at 1,000 iterations so the table is made in seconds. Two phases of --seconds each:

  quiet   20 terminals send signed /verify requests with ana's PIN, one after another each,
          as fast as they are answered: /verify p50 and p99, the server's CPU share.
  doors   the same 20 terminals while 200 doors each, every 60 s from a random phase, sync
          their credential replica (POST /v1/credentials with the version they hold, as
          the door's ReplicaSyncClient does), post a heartbeat (a `status` record to
          /v1/events, as the door's EventForwarder does) and check in (POST /v1/check-in).

A third phase, first, runs the doors alone (no terminals) for the server's CPU share of their
traffic by itself. With --change-every S a last phase, `changes`, runs the doors and the
terminals while one user is disabled or enabled through the management API every S seconds
(issue 80's load): each door sends back the mark of the replica it holds, as kioskpad does,
so it gets a delta after such a change; reported are the answers' kinds and bytes, the API's
PATCH p50/p99, and for every change and door the time from the change's commit to the door
holding its version (p50, p99, max, and how many pairs were not reached in the phase). With
--push each door also holds the site's push channel (POST /v1/watch, as kioskpad does with
verifier.offline.push) and syncs as soon as it answers a newer version. --only changes runs
that phase alone. Reported: /verify p50/p99 in each phase and their ratio (goal for p99: at
most 1.5x), the server's CPU share in each, the bytes of a first (full) replica and of an unchanged one, and
each door request's p50/p99. The doors are Python clients of the door protocol (signed as a
door signs, the site secret), not door processes: 200 `kioskpad run` would not fit beside
the server on this machine.

Usage:
  Benchmarks/ManyDoors/many_doors.py BINARY [--store sqlite|postgres] [--seconds N] [--doors N] [--users N]
      [--change-every S] [--push] [--only changes|burst|cost|unlock] [--unlocks N]
--only burst runs a quiet phase, then every door's whole replica at once (50 at a time) while
the terminals verify (issue 80: whole replicas built once per version, off the shared threads).
--only cost runs the doors alone (no terminals) without the channel, holding it, and holding
it with a change every --change-every s (10 by default): the server's CPU, memory and file
descriptors in each. --only unlock has every door hold the channel for remote commands and
sends --unlocks N (50) unlocks through the API one after another: API request to the door's
channel holding the command, p50/p99.
BINARY is a `kioskpad` (a release build for figures: swift build -c release --product kioskpad)."""
import argparse
import base64
import hashlib
import heapq
import hmac
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Webhooks"))
from webhooks_e2e import Site  # noqa: E402  (the e2e suite's site server under test)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from door_requests import signed_headers, verify_body  # noqa: E402  (a door's signed request)

TERMINALS = 20
PIN = "4826"
DEFAULT_ITERATIONS = 75_000


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def phc_hash(pin, iterations):
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    encode = lambda raw: base64.b64encode(raw).decode().rstrip("=")  # noqa: E731
    return f"$pbkdf2-sha256$i={iterations}${encode(salt)}${encode(digest)}"


def lookup_tag(key, pin):
    """The server's lookup tag of a PIN (KioskPadAccess's LookupKey: the key's id, '.', 16 bytes of HMAC)."""
    key_id = hashlib.sha256(key).digest()[:4].hex()
    mac = hmac.new(key, b"kioskpad-lookup-v1\0pin\0" + pin.encode(), hashlib.sha256).digest()[:16].hex()
    return f"{key_id}.{mac}"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Door:
    """Signed POSTs to the site as a door with the site secret."""

    def __init__(self, port, secret, terminal):
        self.port, self.secret, self.terminal = port, secret, terminal
        self.connection = None
        self.have = 0
        self.mark = None
        self.seq = 0
        # (monotonic time the answer came, version held after it), for the changes phase.
        self.held = []
        # The poll and the push channel sync one at a time, as kioskpad's OneSyncAtATime.
        self.lock = threading.Lock()
        self.connection_lock = threading.Lock()
        # The push channel's wait, and remote commands (--only unlock): the last one taken and
        # (monotonic time its answer came, its number) for each.
        self.wait_s = 5
        self.takes_commands = False
        self.have_command = 0
        self.commands = []

    def post(self, path, body):
        # One request at a time on the door's connection (the push channel has its own).
        with self.connection_lock:
            return self.post_now(path, body)

    def post_now(self, path, body):
        headers = signed_headers(self.secret, self.terminal, body)
        for attempt in (1, 2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                start = time.monotonic()
                self.connection.request("POST", path, body, headers)
                response = self.connection.getresponse()
                answer = response.read()
                return time.monotonic() - start, response.status, answer
            except (OSError, http.client.HTTPException):
                self.connection = None
                if attempt == 2:
                    raise

    def sync(self):
        with self.lock:
            return self.sync_now()

    def watch(self, stop, records):
        """The push channel as kioskpad holds it: a request the site holds until the version passes
        the one held (at most 5 s here, so the phase ends soon), then a sync."""
        connection = None
        while not stop.is_set():
            request = {"have_version": self.have, "terminal_id": self.terminal, "wait_s": self.wait_s}
            if self.takes_commands:
                request["nonce"] = base64.b64encode(os.urandom(16)).decode()
                request["have_command"] = self.have_command
            body = json.dumps(request, separators=(",", ":"))
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                connection.request("POST", "/v1/watch", body, signed_headers(self.secret, self.terminal, body))
                response = connection.getresponse()
                answer = response.read()
                if response.status != 200:
                    records.append(("watch", float("nan"), response.status, len(answer)))
                    stop.wait(1)
                    continue
                said = json.loads(answer)
                arrived = time.monotonic()
                for signed in said.get("commands", []):
                    number = json.loads(base64.b64decode(signed["payload"]))["command"]
                    self.commands.append((arrived, number))
                    self.have_command = max(self.have_command, number)
                if said["replica_version"] > self.have and not stop.is_set():
                    seconds, status, size = self.sync()
                    records.append(("sync", seconds, status, size))
                    records.append((f"sync: {self.kind} (push)", seconds, status, size))
            except (OSError, http.client.HTTPException):
                connection = None
                stop.wait(1)

    def sync_now(self):
        request = {"have_version": self.have, "terminal_id": self.terminal}
        if self.mark:
            request["have_mark"] = self.mark
        seconds, status, answer = self.post("/v1/credentials", json.dumps(request, separators=(",", ":")))
        self.kind = None
        if status == 200:
            # A replica, a delta or a confirmation: a signed payload (base64 of JSON) that names the version.
            payload = json.loads(base64.b64decode(json.loads(answer)["payload"]))
            self.have = int(payload.get("version", self.have))
            self.kind = payload.get("kind")
            if self.kind in ("replica", "delta"):
                self.mark = payload.get("mark")
            self.held.append((time.monotonic(), self.have))
        return seconds, status, len(answer)

    def heartbeat(self):
        self.seq += 1
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        record = {"type": "kioskpad.status", "timestamp": now,
                  "data": {"seq": self.seq, "id": str(uuid.uuid4()), "time": now, "type": "status", "terminal_id": self.terminal,
                           "keypad": "ok", "locked_out": False}}
        seconds, status, answer = self.post("/v1/events", json.dumps([record], separators=(",", ":")))
        return seconds, status, len(answer)

    def check_in(self):
        body = json.dumps({"settings_version": 0, "terminal_id": self.terminal}, separators=(",", ":"))
        seconds, status, answer = self.post("/v1/check-in", body)
        return seconds, status, len(answer)


def verify_once(connection_box, port, secret, terminal):
    attempt = str(uuid.uuid4())
    body = verify_body(terminal, PIN, attempt)
    headers = signed_headers(secret, terminal, body, attempt)
    start = time.monotonic()
    try:
        if connection_box[0] is None:
            connection_box[0] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection_box[0].request("POST", "/verify", body, headers)
        response = connection_box[0].getresponse()
        answer = response.read()
        ok = response.status == 200 and b'"granted"' in answer
    except (OSError, http.client.HTTPException):
        connection_box[0] = None
        ok = False
    return time.monotonic() - start, ok


def terminals(port, secret, stop, results):
    def loop(index):
        box = [None]
        while not stop.is_set():
            seconds, ok = verify_once(box, port, secret, f"terminal-{index:02d}")
            results.append((seconds, ok))
    threads = [threading.Thread(target=loop, args=(index,), daemon=True) for index in range(TERMINALS)]
    for thread in threads:
        thread.start()
    return threads


def doors_loop(doors, stop, records):
    """Each door's sync, heartbeat and check-in every 60 s from a random phase, on 8 workers."""
    schedule = [(time.monotonic() + random.uniform(0, 60), index) for index in range(len(doors))]
    heapq.heapify(schedule)
    pool = ThreadPoolExecutor(max_workers=8)

    def visit(door):
        for name, call in (("sync", door.sync), ("heartbeat", door.heartbeat), ("check-in", door.check_in)):
            try:
                seconds, status, size = call()
                records.append((name, seconds, status, size))
                if name == "sync" and door.kind:
                    records.append((f"sync: {door.kind}", seconds, status, size))
            except (OSError, http.client.HTTPException) as error:
                records.append((name, float("nan"), f"error {error}", 0))

    while not stop.is_set():
        due, index = schedule[0]
        wait = due - time.monotonic()
        if wait > 0:
            stop.wait(min(wait, 0.5))
            continue
        heapq.heapreplace(schedule, (due + 60, index))
        pool.submit(visit, doors[index])
    pool.shutdown(wait=True)


def changer(site, probe, every, stop, changes):
    """Every `every` s one user disabled or enabled through the API; then the probe door, which
    holds a mark, learns the version that change committed at (a delta of one user)."""
    index = 0
    while not stop.wait(every):
        index += 1
        user = f"user-{index % 9_000 + 1:05d}"
        started = time.monotonic()
        status, _ = site.api("PATCH", f"users/{user}", {"enabled": index // 9_000 % 2 == 1})
        committed = time.monotonic()
        probe.sync()
        changes.append((committed, probe.have, committed - started, status))


def reach(changes, doors, ended):
    """For each change and door: seconds from the commit to the door holding its version (None: not in the phase)."""
    pairs = []
    for committed, version, _, status in changes:
        if status != 200:
            continue
        for door in doors:
            first = next((at for at, held in door.held if at >= committed and held >= version), None)
            pairs.append(None if first is None or first > ended else first - committed)
    return pairs


def resources(pid):
    """The server's resident memory (MiB), open file descriptors and threads now."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, len(os.listdir(f"/proc/{pid}/fd")), int(fields["Threads"])


def unlocks(site, doors, count, stop):
    """`count` remote unlocks through the management API, each for a door picked at random
    among those holding the channel, one after another: the time from the API request to
    the door's channel answering with that command."""
    latencies, statuses = [], {}
    for _ in range(count):
        door = random.choice(doors)
        started = time.monotonic()
        status, answer = site.api("POST", f"doors/{door.terminal}/unlock", {"seconds": 1, "reason": "benchmark"})
        statuses[status] = statuses.get(status, 0) + 1
        if status != 202:
            continue
        number = answer["command"]
        deadline = started + 10
        while time.monotonic() < deadline and not any(n == number for _, n in door.commands):
            time.sleep(0.001)
        arrived = next((at for at, n in door.commands if n == number), None)
        latencies.append(None if arrived is None else arrived - started)
        stop.wait(random.uniform(0.1, 0.3))
    reached = [l * 1000 for l in latencies if l is not None]
    print(f"unlock: {count} through the API (statuses {statuses}): API request to the door's channel holding it, p50 "
          f"{percentile(reached, 0.5):.1f} ms, p99 {percentile(reached, 0.99):.1f} ms, max {max(reached) if reached else float('nan'):.1f} ms; "
          f"{len(latencies) - len(reached)} not reached within 10 s", flush=True)


def phase(name, site, seconds, doors=None, with_terminals=True, change_every=0, push=False):
    stop = threading.Event()
    verifies, records, changes = [], [], []
    before = cpu_seconds(site.process.pid)
    started = time.monotonic()
    threads = terminals(site.port, site.secret, stop, verifies) if with_terminals else []
    door_thread = None
    if doors:
        door_thread = threading.Thread(target=doors_loop, args=(doors, stop, records), daemon=True)
        door_thread.start()
    if change_every:
        probe = Door(site.port, site.secret, "probe-door")
        probe.sync()
        threads.append(threading.Thread(target=changer, args=(site, probe, change_every, stop, changes), daemon=True))
        threads[-1].start()
    if push:
        for door in doors:
            threads.append(threading.Thread(target=door.watch, args=(stop, records), daemon=True))
            threads[-1].start()
    time.sleep(seconds)
    ended = time.monotonic()
    # The CPU up to here: the phase's own, not the wait for the last held channels to return.
    cpu = cpu_seconds(site.process.pid) - before
    rss, fds, threads_now = resources(site.process.pid)
    print(f"{name}: the server at the phase's end: {rss:.1f} MiB resident, {fds} file descriptors, {threads_now} threads", flush=True)
    stop.set()
    for thread in threads:
        thread.join()
    if door_thread:
        door_thread.join()
    wall = ended - started
    latencies = [s for s, ok in verifies if ok]
    failed = sum(1 for _, ok in verifies if not ok)
    p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
    print(f"{name}: /verify {len(latencies)} granted ({len(latencies) / wall:.1f}/s), {failed} not; p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
          f"server CPU {cpu:.1f} s in {wall:.0f} s = {100 * cpu / wall / os.cpu_count():.1f}% of {os.cpu_count()} cores", flush=True)
    if change_every:
        patches = [c[2] * 1000 for c in changes]
        print(f"{name}: {len(changes)} changes through the API (statuses {sorted(set(c[3] for c in changes))}), PATCH p50 "
              f"{percentile(patches, 0.5):.1f} ms, p99 {percentile(patches, 0.99):.1f} ms", flush=True)
        pairs = reach(changes, doors, ended)
        reached = [p for p in pairs if p is not None]
        print(f"{name}: commit to door holding it: {len(pairs)} change-door pairs, p50 {percentile(reached, 0.5):.3f} s, "
              f"p99 {percentile(reached, 0.99):.3f} s, max {max(reached) if reached else float('nan'):.3f} s, "
              f"{len(pairs) - len(reached)} not reached within the phase", flush=True)
    for kind in ("sync", "sync: replica", "sync: delta", "sync: confirmation", "sync: delta (push)", "sync: replica (push)",
                 "sync: confirmation (push)", "watch", "heartbeat", "check-in"):
        rows = [r for r in records if r[0] == kind]
        if not rows:
            continue
        ok = [r for r in rows if r[2] == 200 or r[2] == 202 or r[2] == 204]
        sizes = [r[3] for r in ok]
        times = [r[1] * 1000 for r in ok]
        counts = {}
        for r in rows:
            counts[str(r[2])] = counts.get(str(r[2]), 0) + 1
        statuses = [f"{status} x{count}" for status, count in sorted(counts.items())]
        print(f"{name}: {kind}: {len(rows)} requests ({', '.join(statuses)}), p50 {percentile(times, 0.5):.1f} ms, p99 {percentile(times, 0.99):.1f} ms, "
              f"answer bytes median {statistics.median(sizes) if sizes else 0:.0f}, max {max(sizes) if sizes else 0}", flush=True)
    return p50, p99, cpu / wall


def burst(site, doors, workers=50):
    """Every door's whole replica at once (as after a schedule change: no delta can say it),
    from `workers` doors in parallel, while the terminals verify: the time until every door
    held it, its answers' p50/p99, /verify p50/p99 meanwhile and the server's CPU."""
    stop = threading.Event()
    verifies = []
    before = cpu_seconds(site.process.pid)
    threads = terminals(site.port, site.secret, stop, verifies)
    time.sleep(2)
    for door in doors:
        door.have, door.mark = 0, None
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        answers = list(pool.map(lambda door: door.sync(), doors))
    took = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join()
    cpu = cpu_seconds(site.process.pid) - before
    during = [seconds * 1000 for seconds, ok in verifies if ok]
    times = [a[0] * 1000 for a in answers if a[1] == 200]
    statuses = sorted(set(a[1] for a in answers))
    print(f"burst: {len(doors)} whole replicas, {workers} doors at a time (statuses {statuses}): all held in {took:.2f} s; "
          f"each p50 {percentile(times, 0.5):.0f} ms, p99 {percentile(times, 0.99):.0f} ms; /verify meanwhile {len(during)} granted, "
          f"{sum(1 for _, ok in verifies if not ok)} not, p50 {percentile(during, 0.5):.1f} ms, p99 {percentile(during, 0.99):.1f} ms; "
          f"server CPU {cpu:.1f} s", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--doors", type=int, default=200)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--change-every", type=float, default=0)
    parser.add_argument("--push", action="store_true")
    parser.add_argument("--only", choices=["changes", "burst", "cost", "unlock"])
    parser.add_argument("--unlocks", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kioskpad-manydoors.") as work:
        os.chmod(work, 0o755)
        server, store_lines = None, ""
        if options.store == "postgres":
            sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))
            from console_browser import Postgres  # the browser suite's private PostgreSQL
            server = Postgres(work)
            store_lines = (f"  store: postgres\n  postgres:\n    url: postgres://kioskpad@127.0.0.1:{server.port}/kioskpad\n"
                           f"    password_file: {server.password_file}\n    tls: disable\n")
        key_file = os.path.join(work, "lookup.key")
        key = base64.b64encode(os.urandom(32))
        with open(key_file, "wb") as out:
            out.write(key + b"\n")
        os.chmod(key_file, 0o600)
        users = os.path.join(work, "users")
        started = time.monotonic()
        with open(users, "w") as out:
            out.write(f"ana:{phc_hash(PIN, DEFAULT_ITERATIONS)}:tag={lookup_tag(key, PIN)}\n")
            for index in range(1, options.users):
                pin = f"{random.randrange(10_000, 100_000_000):08d}"
                out.write(f"user-{index:05d}:{phc_hash(pin, 1000)}:tag={lookup_tag(key, pin)}\n")
        os.chmod(users, 0o600)
        print(f"users file: {options.users} users in {time.monotonic() - started:.0f} s", flush=True)
        # Every simulated door connects from 127.0.0.1, where real ones each have an address of
        # their own: the per-address connection limit (64) is raised past the doors' connections
        # (two each: the requests and the push channel) and the terminals'.
        limits = f"  max_connections_per_source: {max(64, 2 * options.doors + 2 * TERMINALS + 8)}\n"
        site = Site(options.binary, users, work, store_lines=f"  lookup_key_file: {key_file}\n" + limits + store_lines,
                    scopes="read,users,codes,webhooks,doors")
        site.start()
        try:
            doors = [Door(site.port, site.secret, f"door-{index:03d}") for index in range(options.doors)]
            # Each door's first replica, before the phases: the full one, measured on its own.
            first = [door.sync() for door in doors[:5]]
            print(f"first replica ({options.users} users): {first[0][2]} bytes, status {first[0][1]}, {first[0][0] * 1000:.0f} ms", flush=True)
            started = time.monotonic()
            for door in doors[5:]:
                door.sync()
            print(f"first replicas of the other {len(doors) - 5} doors, one after another: {time.monotonic() - started:.1f} s", flush=True)
            if options.only == "burst":
                quiet = phase("quiet", site, options.seconds)
                burst(site, doors)
                return
            if options.only == "cost":
                # The doors alone (no terminals): their polls; then each holding the channel as
                # kioskpad does (25 s a wait); then a change every --change-every s (10 unless given).
                every = options.change_every or 10
                for door in doors:
                    door.wait_s = 25
                alone = phase(f"{options.doors} doors, no channels", site, options.seconds, doors, with_terminals=False)
                held = phase(f"{options.doors} doors holding the channel", site, options.seconds, doors, with_terminals=False, push=True)
                changing = phase(f"{options.doors} doors holding the channel, a change every {every:g} s", site, options.seconds, doors,
                                 with_terminals=False, change_every=every, push=True)
                print(f"ratio: server CPU with a change every {every:g} s / without = {changing[2] / held[2]:.2f}x (goal at most 1.2x); "
                      f"the channels held against none: {held[2] / alone[2]:.2f}x", flush=True)
                return
            if options.only == "unlock":
                # Every door holding the channel for commands, beside its polls; unlocks one after another.
                stop = threading.Event()
                records = []
                for door in doors:
                    door.takes_commands, door.wait_s = True, 25
                    door.heartbeat()  # a door the site has heard of: the API unlocks only those
                threads = [threading.Thread(target=door.watch, args=(stop, records), daemon=True) for door in doors]
                loop = threading.Thread(target=doors_loop, args=(doors, stop, records), daemon=True)
                for thread in threads + [loop]:
                    thread.start()
                time.sleep(3)
                unlocks(site, doors, options.unlocks, stop)
                stop.set()
                for thread in threads + [loop]:
                    thread.join()
                return
            if options.only != "changes":
                # The doors' traffic alone: its own CPU share, the terminals idle.
                phase(f"{options.doors} doors, no terminals", site, options.seconds, doors, with_terminals=False)
                quiet = phase("quiet", site, options.seconds)
                busy = phase(f"{options.doors} doors", site, options.seconds, doors)
                print(f"ratio: /verify p99 with {options.doors} doors / quiet = {busy[1] / quiet[1]:.2f}x (goal at most 1.5x); "
                      f"p50 {busy[0] / quiet[0]:.2f}x; server CPU share {100 * busy[2] / os.cpu_count():.0f}% against {100 * quiet[2] / os.cpu_count():.0f}%",
                      flush=True)
            if options.change_every:
                phase(f"{options.doors} doors{', push channel' if options.push else ''}, a change every {options.change_every:g} s", site,
                      options.seconds, doors, change_every=options.change_every, push=options.push)
        finally:
            site.process.terminate()
            site.process.wait()
            if server:
                server.stop()


if __name__ == "__main__":
    main()
