#!/usr/bin/env python3
"""The site killed mid-change: no change without its audit record, webhook message and
change-log entry, and no record without its change (issue 79).

A real `kioskpad verifier serve` on loopback, on SQLite or on PostgreSQL (--store), with a
webhook subscription for user changes whose receiver is down (so every message stays queued
and can be counted). Four API clients create users (POST /api/v1/users), every other request
with an Idempotency-Key, while the server is killed with SIGKILL at random moments and started
again (--kills times). A client whose request was cut off sends the same request again (the
same key) until it gets an answer. Then, with the server stopped, the database itself is read:

  - every user created has exactly one `user_add` audit record, one change-log entry and one
    queued `user.changed` message, and each of those has its user;
  - every user a client was answered 201 for is there (a commit is not lost);
  - a key's kept answer exists exactly when its user does, and a retried key made one user.

Prints a line per store: kills, users, records, entries and messages checked, mismatches.
Exit 0 when there are none.

  Tests/Crash/kill_test.py BINARY [--store sqlite|postgres] [--kills N] [--seed N]
"""
import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Webhooks"))
sys.path.insert(0, os.path.join(HERE, "..", "LocalServers"))
from webhooks_e2e import Site, free_port  # noqa: E402  (the webhook suite's site server)
from local_postgres import Postgres  # noqa: E402

CLIENTS = 4
USERS_FILE = "demo:$pbkdf2-sha256$i=1000$c2FsdHNhbHRzYWx0c2FsdA$" + "A" * 43 + "\n"


def phc_hash():
    """A well-formed PIN hash (the API checks its form; these users never sign in)."""
    return "$pbkdf2-sha256$i=1000$" + "c2FsdHNhbHRzYWx0c2FsdA" + "$" + "B" * 43


class Clients:
    """Four clients creating users while the server comes and goes."""

    def __init__(self, site, tokens, rng):
        self.site = site
        self.tokens = tokens
        self.rng = rng
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.answered = {}  # name -> status of the answer the client got
        self.keys = {}  # name -> Idempotency-Key it was sent with
        self.retried = 0

    def create(self, client, number):
        name = f"crash-{client}-{number:05d}"
        headers = {"authorization": f"Bearer {self.tokens[client]}"}
        if number % 2 == 0:
            headers["idempotency-key"] = str(uuid.uuid4())
            with self.lock:
                self.keys[name] = headers["idempotency-key"]
        body = {"name": name, "pin_hash": phc_hash(), "doors": ["front"]}
        url = f"http://127.0.0.1:{self.site.console_port}/api/v1/users"
        tries = 0
        while True:
            tries += 1
            try:
                response = requests.post(url, json=body, headers=headers, timeout=10)
            except requests.RequestException:
                # Cut off (the server was killed): the same request again once it is back.
                time.sleep(0.05)
                continue
            if response.status_code == 429:
                time.sleep(float(response.headers.get("retry-after", "1")))
                continue
            with self.lock:
                self.answered[name] = response.status_code
                if tries > 1:
                    self.retried += 1
            return

    def run(self, client):
        number = 0
        while not self.stop.is_set():
            self.create(client, number)
            number += 1


def read_sqlite(path):
    database = sqlite3.connect(path)
    try:
        return {
            "users": [row[0] for row in database.execute("SELECT name FROM kioskpad_users WHERE kind = 'pin' AND name LIKE 'crash-%'")],
            "audit": [row[0] for row in database.execute("SELECT record FROM kioskpad_audit")],
            "log": list(database.execute("SELECT kind, subject, action FROM kioskpad_change_log")),
            "messages": [row[0] for row in database.execute("SELECT body FROM kioskpad_webhook_deliveries WHERE type = 'user.changed'")],
            "keys": list(database.execute("SELECT idempotency_key, status FROM kioskpad_api_idempotency")),
            "dropped": database.execute("SELECT COALESCE(SUM(dropped), 0) FROM kioskpad_webhooks").fetchone()[0],
        }
    finally:
        database.close()


def read_postgres(server):
    def query(sql):
        output = subprocess.run(
            [f"{server.bin}/psql", "-h", "127.0.0.1", "-p", str(server.port), "-U", "kioskpad", "-d", "kioskpad", "-At", "-F", "\t", "-c", sql],
            check=True, capture_output=True, text=True, env={**os.environ, "PGPASSWORD": open(server.password_file).read().strip()},
        ).stdout
        return [line.split("\t") for line in output.splitlines() if line]

    return {
        "users": [row[0] for row in query("SELECT name FROM kioskpad_users WHERE kind = 'pin' AND name LIKE 'crash-%'")],
        "audit": [row[0] for row in query("SELECT record::text FROM kioskpad_audit")],
        "log": [tuple(row) for row in query("SELECT kind, subject, action FROM kioskpad_change_log")],
        "messages": [row[0] for row in query("SELECT body FROM kioskpad_webhook_deliveries WHERE type = 'user.changed'")],
        "keys": [(row[0], int(row[1]) if row[1] else None) for row in query("SELECT idempotency_key, status FROM kioskpad_api_idempotency")],
        "dropped": int(query("SELECT COALESCE(SUM(dropped), 0) FROM kioskpad_webhooks")[0][0]),
    }


def check(state, clients):
    """Mismatches between the users, their records, entries, messages and keys."""
    problems = []
    users = state["users"]
    created = set(users)
    if len(created) != len(users):
        problems.append(f"{len(users) - len(created)} users stored twice")
    audited = [json.loads(record).get("user") for record in state["audit"] if json.loads(record).get("action") == "user_add"]
    logged = [subject for kind, subject, action in state["log"] if action == "user_add"]
    messaged = []
    for body in state["messages"]:
        data = json.loads(body).get("data", {})
        if data.get("action") == "user_add":
            messaged.append(data.get("user"))
    # A full queue drops new messages and counts them (10,000 wait per subscription by
    # default): every change has its message, waiting or counted as dropped.
    for what, names, dropped in (("audit record", audited, 0), ("change-log entry", logged, 0), ("webhook message", messaged, state["dropped"])):
        counts = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        for name in created:
            if counts.get(name, 0) > 1 or (counts.get(name, 0) == 0 and not dropped):
                problems.append(f"{name}: {counts.get(name, 0)} {what}s")
        for name in set(names) - created:
            if name and name.startswith("crash-"):
                problems.append(f"a {what} for {name}, who is not stored")
        missing = sum(1 for name in created if counts.get(name, 0) == 0)
        if dropped and missing != dropped:
            problems.append(f"{missing} users without a {what}, {dropped} dropped from the full queue")
    for name, status in clients.answered.items():
        if status == 201 and name not in created:
            problems.append(f"{name}: answered 201 but not stored")
        if status not in (201, 409):
            problems.append(f"{name}: answered {status}")
    kept = {key for key, status in state["keys"] if status is not None}
    for name, key in clients.keys.items():
        if name in clients.answered and (key in kept) != (name in created):
            problems.append(f"{name}: key kept {key in kept}, user stored {name in created}")
    return problems, len(audited), len(logged), len(messaged)


def main():
    parser = argparse.ArgumentParser(description="the site killed mid-change")
    parser.add_argument("binary")
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument("--seed", type=int, default=None)
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="kioskpad-kill.") as work:
        os.chmod(work, 0o755)
        server = Postgres(work) if arguments.store == "postgres" else None
        lines = ""
        if server:
            lines = (f"  store: postgres\n  postgres:\n    url: postgres://kioskpad@127.0.0.1:{server.port}/kioskpad\n"
                     f"    password_file: {server.password_file}\n    tls: disable\n")
        users = os.path.join(work, "users")
        with open(users, "w") as out:
            out.write(USERS_FILE)
        os.chmod(users, 0o600)
        site = Site(arguments.binary, users, work, store_lines=lines, scopes="users,webhooks")
        tokens = [site.run("verifier", "token", "create", f"crash-{n}", "--scope", "users", "--config", site.config).strip() for n in range(CLIENTS)]
        site.start()
        # A receiver that is down: nothing listens on this port, so every message stays queued.
        status, body = site.api("POST", "webhooks", {"name": "down", "url": f"http://127.0.0.1:{free_port()}/", "events": ["user.changed"]})
        if status != 201:
            sys.exit(f"kill-test: the webhook was not made: {status} {body}")
        clients = Clients(site, tokens, rng)
        threads = [threading.Thread(target=clients.run, args=(client,), daemon=True) for client in range(CLIENTS)]
        for thread in threads:
            thread.start()
        started = time.monotonic()
        try:
            for _ in range(arguments.kills):
                time.sleep(rng.uniform(0.3, 1.5))
                site.kill()
                site.start()
            time.sleep(0.5)
        finally:
            clients.stop.set()
            for thread in threads:
                thread.join(timeout=30)
            site.process.terminate()
            site.process.wait()
        state = read_sqlite(os.path.join(work, "verifier.sqlite3")) if server is None else read_postgres(server)
        if server:
            server.stop()
    problems, audited, logged, messaged = check(state, clients)
    for problem in problems[:20]:
        print(f"kill-test: MISMATCH {problem}", flush=True)
    print(
        f"kill-test: {arguments.store}: {arguments.kills} kills in {time.monotonic() - started:.0f} s (seed {seed}), "
        f"{len(state['users'])} users, {audited} audit records, {logged} change-log entries, {messaged} webhook messages, "
        f"({state['dropped']} dropped from the full queue), {len(clients.keys)} keys, {clients.retried} requests retried after a kill, {len(problems)} mismatched",
        flush=True,
    )
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
