#!/usr/bin/env python3
"""The management API and webhooks out, measured against a real `kioskpad verifier serve` on
loopback (one instance, console and API on), from Python clients on the same machine.

  users   A site of 10,000 users (imported), on SQLite or PostgreSQL (--store): pages of 100
          users read one after another from random places in the list, then users created one
          after another with a PIN hash; requests a second, and each request's p50 and p99.
          A token may make 20 requests a second (bursts of 100) on each instance, so the
          client spreads its requests over 50 tokens to find the server's own pace.
  hooks   A forced door's record (signed /v1/events) to each receiver's 200: p50 and p99, with
          1 and with 10 subscriptions (receivers built on PyPI's standardwebhooks, each
          verifying every message), 4 records a second.
  queue   A day of door records at 1 a second (86,400, --records) sent as fast as the site
          takes them, with one subscription whose receiver is down throughout, and with none:
          the database's size after each, the queue the caps kept and what they dropped.
  verify  /verify from 20 terminals at the default PBKDF2 cost (the demo user of
          config/users.example): p50 and p99 with no subscription, with one receiver that
          answers at once, and with one that never answers (each request held open).

Usage:
  Benchmarks/ManagementAPI/api_bench.py BINARY [--store sqlite|postgres] [--seconds N] [--only users|hooks|verify|queue] [--records N]
BINARY is a `kioskpad` (a release build for figures: swift build -c release --product kioskpad).
Needs python3-requests and PyPI's standardwebhooks (Tests/Webhooks/run.sh installs it)."""
import argparse
import base64
import hashlib
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Webhooks"))
from webhooks_e2e import Receiver, Site, free_port, now_text  # noqa: E402  (the e2e suite's site and receivers)

USERS = 10_000
TOKENS = 50
TERMINALS = 20


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def describe(name, latencies, seconds):
    ms = [value * 1000 for value in latencies]
    print(f"{name}: {len(ms)} in {seconds:.0f} s, {len(ms) / seconds:.0f}/s, p50 {statistics.median(ms):.1f} ms, "
          f"p99 {percentile(ms, 0.99):.1f} ms", flush=True)
    return statistics.median(ms), percentile(ms, 0.99)


def phc_hash(pin, iterations=1000):
    """A PIN hash as `kioskpad pin hash` writes it (cheap iterations: listing and creating do not check it)."""
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    encode = lambda raw: base64.b64encode(raw).decode().rstrip("=")  # noqa: E731
    return f"$pbkdf2-sha256$i={iterations}${encode(salt)}${encode(digest)}"


def postgres_lines(work):
    sys.path.insert(0, os.path.join(ROOT, "Tests", "LocalServers"))
    from local_postgres import Postgres  # a PostgreSQL server of the run's own (initdb, loopback)
    server = Postgres(work)
    lines = (f"  store: postgres\n  postgres:\n    url: postgres://kioskpad@127.0.0.1:{server.port}/kioskpad\n"
             f"    password_file: {server.password_file}\n    tls: disable\n")
    return server, lines


def measure_users(binary, store, seconds):
    with tempfile.TemporaryDirectory(prefix="kioskpad-apibench.") as work:
        os.chmod(work, 0o755)
        server, lines = postgres_lines(work) if store == "postgres" else (None, "")
        users = os.path.join(work, "users")
        names = [f"user-{index:05d}" for index in range(USERS)]
        with open(users, "w") as out:
            for name in names:
                out.write(f"{name}:{phc_hash('4826')}\n")
        os.chmod(users, 0o600)
        site = Site(binary, users, work, store_lines=lines)
        tokens = [site.run("verifier", "token", "create", f"bench-{index}", "--scope", "users", "--config", site.config).strip()
                  for index in range(TOKENS)]
        site.start()
        try:
            session = requests.Session()
            url = f"http://127.0.0.1:{site.console_port}/api/v1/users"
            latencies, count, end = [], 0, time.monotonic() + seconds
            started = time.monotonic()
            while time.monotonic() < end:
                after = random.choice(names)
                begin = time.monotonic()
                response = session.get(url, params={"limit": 100, "after": after}, headers={"authorization": f"Bearer {tokens[count % TOKENS]}"})
                latencies.append(time.monotonic() - begin)
                assert response.status_code == 200 and len(response.json()["users"]) <= 100, response.text
                count += 1
            describe(f"{store}: GET /api/v1/users?limit=100&after=... ({USERS:,} users)", latencies, time.monotonic() - started)
            latencies, count = [], 0
            hashes = [phc_hash("5937") for _ in range(2000)]
            end = time.monotonic() + seconds
            started = time.monotonic()
            while time.monotonic() < end:
                body = {"name": f"new-{count:06d}", "pin_hash": hashes[count % len(hashes)], "doors": ["front"]}
                begin = time.monotonic()
                response = session.post(url, json=body, headers={"authorization": f"Bearer {tokens[count % TOKENS]}"})
                latencies.append(time.monotonic() - begin)
                assert response.status_code == 201, response.text
                count += 1
            describe(f"{store}: POST /api/v1/users ({USERS:,} users and more)", latencies, time.monotonic() - started)
        finally:
            site.process.terminate()
            site.process.wait()
            if server:
                server.stop()


def demo_site(binary, work):
    site = Site(binary, os.path.join(ROOT, "config", "users.example"), work)
    site.start()
    return site


def subscribe(site, receiver, events):
    status, body = site.api("POST", "webhooks", {"name": receiver.name, "url": receiver.url, "events": events})
    assert status == 201, body
    receiver.secret = body["secret"]


def measure_hooks(binary, subscriptions, seconds):
    with tempfile.TemporaryDirectory(prefix="kioskpad-apibench.") as work:
        site = demo_site(binary, work)
        try:
            receivers = [Receiver(f"r{index}") for index in range(subscriptions)]
            for receiver in receivers:
                subscribe(site, receiver, ["door.alert"])
            sent = {}
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                record = str(uuid.uuid4())
                body = {"id": record, "terminal_id": "door-1", "type": "forced_open", "time": now_text(), "seq": len(sent) + 1}
                sent[record] = time.monotonic()
                response = site.signed("/v1/events", [{"type": "kioskpad.forced_open", "timestamp": now_text(), "data": body}], str(uuid.uuid4()))
                assert response.status_code == 200, response.text
                time.sleep(0.25)
            for receiver in receivers:
                assert receiver.wait(lambda r: len(r.payloads("door.alert")) >= len(sent), 30), f"{receiver.name} missed records"
            latencies = [at - sent[payload["data"]["id"]] for receiver in receivers for at, _, payload in receiver.payloads("door.alert")]
            assert all(not receiver.invalid for receiver in receivers)
            describe(f"forced door to the receiver's 200, {subscriptions} subscription{'s' if subscriptions > 1 else ''} "
                     f"({len(sent)} records x {subscriptions})", latencies, seconds)
        finally:
            site.process.terminate()
            site.process.wait()


def measure_verify(binary, receiver_kind, seconds):
    with tempfile.TemporaryDirectory(prefix="kioskpad-apibench.") as work:
        site = demo_site(binary, work)
        try:
            if receiver_kind:
                receiver = Receiver(receiver_kind)
                receiver.hang = receiver_kind == "hung"
                subscribe(site, receiver, ["access.decided"])
            results, stop = [], threading.Event()

            def terminal(index):
                while not stop.is_set():
                    begin = time.monotonic()
                    decision = site.attempt("1234", door=f"door-{index}")
                    results.append((time.monotonic() - begin, decision))

            threads = [threading.Thread(target=terminal, args=(index,), daemon=True) for index in range(TERMINALS)]
            for thread in threads:
                thread.start()
            time.sleep(3)  # warm up: connections made, the hashing pool busy
            results.clear()
            time.sleep(seconds)
            stop.set()
            for thread in threads:
                thread.join(60)
            assert all(decision == "granted" for _, decision in results), {decision for _, decision in results}
            return describe(f"/verify from {TERMINALS} terminals, {receiver_kind or 'no'} receiver", [value for value, _ in results], seconds)
        finally:
            site.process.terminate()
            site.process.wait()


def database_bytes(work):
    """The SQLite database's bytes on disk, with its write-ahead log."""
    return sum(os.path.getsize(os.path.join(work, name)) for name in os.listdir(work) if name.startswith("verifier.sqlite3"))


def measure_queue(binary, records, subscribed):
    """A day of door alerts at 1 a second (`records` forced-open records, each a `door.alert`
    message, sent as fast as the site takes them, 50 a batch) with one subscription whose receiver is down the whole time (nothing
    listens on its port), or none: the database's size after, and the queue the cap kept."""
    with tempfile.TemporaryDirectory(prefix="kioskpad-apibench.") as work:
        quota = "  events:\n    max_records_per_minute: 1000000\n    max_bytes_per_day: 10000000000\n"
        site = Site(binary, os.path.join(ROOT, "config", "users.example"), work, store_lines=quota)
        site.start()
        try:
            if subscribed:
                status, body = site.api("POST", "webhooks", {"name": "down", "url": f"http://127.0.0.1:{free_port()}/hook", "events": ["door.alert"]})
                assert status == 201, body
            started, sequence = time.monotonic(), 0
            while sequence < records:
                batch = []
                for _ in range(min(50, records - sequence)):
                    sequence += 1
                    data = {"id": str(uuid.uuid4()), "terminal_id": "door-1", "type": "forced_open", "time": now_text(), "seq": sequence}
                    batch.append({"type": "kioskpad.forced_open", "timestamp": now_text(), "data": data})
                response = site.signed("/v1/events", batch, str(uuid.uuid4()))
                assert response.status_code == 200, response.text
            took = time.monotonic() - started
            hooks = site.api("GET", "webhooks")[1]["webhooks"] if subscribed else []
        finally:
            site.process.terminate()
            site.process.wait()
        size = database_bytes(work)
        queue = ""
        if subscribed:
            with sqlite3.connect(os.path.join(work, "verifier.sqlite3")) as database:
                pending, body_bytes = database.execute(
                    "SELECT count(*), COALESCE(sum(body_bytes), 0) FROM kioskpad_webhook_deliveries WHERE state = 'pending'").fetchone()
            hook = hooks[0]
            queue = (f"; the queue: {pending:,} pending ({body_bytes / 1e6:.1f} MB of bodies), {hook.get('dropped', 0):,} dropped by the cap "
                     f"(server.webhooks.max_pending, max_pending_bytes)")
        print(f"{records:,} door records in {took:.0f} s, {'a receiver down' if subscribed else 'no subscription'}: "
              f"the database {size / 1e6:.1f} MB{queue}", flush=True)
        return size


def main():
    options = argparse.ArgumentParser()
    options.add_argument("binary")
    options.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    options.add_argument("--seconds", type=float, default=20)
    options.add_argument("--only", choices=["users", "hooks", "verify", "queue"])
    options.add_argument("--records", type=int, default=86_400, help="queue: door records sent (a day at 1 a second)")
    arguments = options.parse_args()
    if arguments.only in (None, "users"):
        measure_users(arguments.binary, arguments.store, arguments.seconds)
    if arguments.only in (None, "hooks"):
        for subscriptions in (1, 10):
            measure_hooks(arguments.binary, subscriptions, arguments.seconds)
    if arguments.only in (None, "verify"):
        _, quiet = measure_verify(arguments.binary, None, arguments.seconds)
        measure_verify(arguments.binary, "ok", arguments.seconds)
        _, hung = measure_verify(arguments.binary, "hung", arguments.seconds)
        print(f"/verify p99 with a hung receiver / without: {hung / quiet:.2f}x", flush=True)
    if arguments.only in (None, "queue"):
        alone = measure_queue(arguments.binary, arguments.records, False)
        down = measure_queue(arguments.binary, arguments.records, True)
        print(f"what the receiver down added to the database: {(down - alone) / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
