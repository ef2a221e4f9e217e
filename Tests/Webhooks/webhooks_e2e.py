"""Webhooks out, end to end, against a real `kioskpad verifier serve` (Tests/Webhooks/run.sh).

Three receivers, each a small HTTP server on loopback that verifies what it is sent with PyPI's
standardwebhooks (the library a site's receiver would use):
  ok     verifies and answers 200 (every event type);
  flaky  answers 503 while told to fail, then recovers (user.changed only);
  hang   holds each request without answering while told to hang (every type).
The checks, each of which fails the run:
  - every delivery to every receiver carries a valid Standard Webhooks signature;
  - a forced door (a door's signed /v1/events) reaches `ok` within a second, while `hang` holds
    a request open: a hung receiver does not hold up another subscription;
  - the site's decisions (/verify) arrive as access.decided without the PIN; a one-time code
    issued on the command line arrives as code.changed without the code;
  - `flaky`, failing once, gets the same webhook-id again after the backoff, then the users
    created after it in the order they were created;
  - the site killed with SIGKILL while `flaky`'s deliveries are queued and `hang` holds one in
    flight, then started again: every queued message arrives, in order, and none is sent twice
    under a different webhook-id; the one in flight is sent again with its webhook-id;
  - a member's life through the API alone, as a membership system would drive it: joined with
    a PIN hash, a card added, their doors and validity changed, a one-time code for a visitor
    they host, disabled, enabled, left; each step checked at a door (/verify) and seen by `ok`;
  - the audit log followed a page at a time with its cursor, kept across the site's restart:
    nothing skipped, nothing given twice.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from standardwebhooks.webhooks import Webhook

FAILURES = []


def check(condition, message):
    """Records a failed check (the run goes on, and fails at the end)."""
    if not condition:
        FAILURES.append(message)
        print(f"webhooks: FAIL {message}", file=sys.stderr, flush=True)
    return condition


class Receiver:
    """One receiver: what it was sent (in order), and how it answers now."""

    def __init__(self, name, host="127.0.0.1"):
        self.name = name
        self.secret = None
        self.fail = 0  # answer 503 to this many more requests (-1: every one)
        self.hang = False
        self.requests = []  # (monotonic time, webhook-id, answered status)
        self.delivered = []  # (monotonic time, webhook-id, payload), answered 200
        self.invalid = []
        self.lock = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                headers = {key.lower(): value for key, value in self.headers.items()}
                with receiver.lock:
                    hang = receiver.hang
                    failing = receiver.fail != 0
                    if receiver.fail > 0:
                        receiver.fail -= 1
                    receiver.requests.append((time.monotonic(), headers.get("webhook-id"), 0 if hang else 503 if failing else 200))
                    receiver.lock.notify_all()
                if hang:
                    time.sleep(45)
                    return
                try:
                    payload = Webhook(receiver.secret).verify(body, headers)
                except Exception as error:  # the library's verification error, or anything else
                    with receiver.lock:
                        receiver.invalid.append(f"{headers.get('webhook-id')}: {error}")
                    self.send_response(400)
                    self.end_headers()
                    return
                status = 503 if failing else 200
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()
                if status == 200:
                    with receiver.lock:
                        receiver.delivered.append((time.monotonic(), headers["webhook-id"], payload))
                        receiver.lock.notify_all()

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://{host}:{self.server.server_address[1]}/hook"

    def wait(self, predicate, timeout):
        """Waits until `predicate(self)` holds; whether it did."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.lock.wait(left)
            return True

    def payloads(self, kind):
        with self.lock:
            return [(at, message, payload) for at, message, payload in self.delivered if payload["type"] == kind]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def now_text():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Site:
    """The site server under test, and what a door and an API client send it."""

    def __init__(self, binary, users, work, store_lines="", scopes="read,users,codes,webhooks"):
        self.binary = binary
        self.work = work
        self.port = free_port()
        self.console_port = free_port()
        self.config = os.path.join(work, "verifier.yaml")
        secret_file = os.path.join(work, "secret")
        with open(secret_file, "w") as out:
            out.write(self.run("verifier", "secret"))
        os.chmod(secret_file, 0o600)
        with open(secret_file) as text:
            self.secret = base64.b64decode(text.read().strip().removeprefix("whsec_"))
        with open(self.config, "w") as out:
            out.write(
                f"server:\n  listen: 127.0.0.1:{self.port}\n  state_dir: {work}\n  secret_file: {secret_file}\n"
                f"  console:\n    enabled: true\n    listen: 127.0.0.1:{self.console_port}\n"
                # The receivers are on loopback: inside the site's network, so listed here.
                f"  webhooks:\n    allow_targets: [127.0.0.1]\n" + store_lines
            )
        self.run("verifier", "import", "--users-file", users, "--config", self.config)
        self.token = self.run("verifier", "token", "create", "e2e", "--scope", scopes, "--config", self.config).strip()
        self.process = None

    def run(self, *arguments, stdin=None):
        return subprocess.run([self.binary, *arguments], check=True, capture_output=True, text=True, input=stdin).stdout

    def start(self):
        self.log = open(os.path.join(self.work, "serve.log"), "a")
        self.process = subprocess.Popen([self.binary, "verifier", "serve", "--config", self.config], stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                for port in (self.port, self.console_port):
                    socket.create_connection(("127.0.0.1", port), 1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("webhooks: the site server did not start (serve.log)")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def api(self, method, path, body=None):
        response = requests.request(
            method, f"http://127.0.0.1:{self.console_port}/api/v1/{path}", json=body, headers={"authorization": f"Bearer {self.token}"}, timeout=10
        )
        return response.status_code, response.json()

    def signed(self, path, body, message_id, door="door-1"):
        raw = json.dumps(body).encode()
        stamp = str(int(time.time()))
        mac = hmac.new(self.secret, f"{message_id}.{stamp}.".encode() + raw, hashlib.sha256).digest()
        headers = {
            "content-type": "application/json", "webhook-id": message_id, "webhook-timestamp": stamp,
            "webhook-signature": "v1," + base64.b64encode(mac).decode(), "kioskpad-terminal": door,
        }
        return requests.post(f"http://127.0.0.1:{self.port}{path}", data=raw, headers=headers, timeout=10)

    def door_record(self, kind):
        record = {"id": str(uuid.uuid4()), "terminal_id": "door-1", "type": kind, "time": now_text(), "seq": 1}
        return self.signed("/v1/events", [{"type": f"kioskpad.{kind}", "timestamp": now_text(), "data": record}], str(uuid.uuid4()))

    def attempt(self, value, kind="pin", door="door-1"):
        attempt = str(uuid.uuid4())
        body = {"terminal_id": door, "kind": kind, "value": value, "attempt_id": attempt, "entered_at": now_text()}
        return self.signed("/verify", body, attempt, door=door).json().get("decision")


def main():
    options = argparse.ArgumentParser()
    options.add_argument("--binary", required=True)
    options.add_argument("--users", required=True)
    arguments = options.parse_args()
    started = time.monotonic()
    demo_hash = next(line for line in open(arguments.users) if line.startswith("demo:")).strip().split(":", 1)[1]
    with tempfile.TemporaryDirectory(prefix="kioskpad-webhooks.") as work:
        site = Site(arguments.binary, arguments.users, work)
        site.start()
        try:
            run_checks(site, demo_hash)
        finally:
            if site.process and site.process.poll() is None:
                site.process.terminate()
                site.process.wait()
            if FAILURES:
                print(open(os.path.join(work, "serve.log")).read()[-3000:], file=sys.stderr)
    print(f"webhooks: {len(FAILURES)} failed, {time.monotonic() - started:.0f} s", file=sys.stderr)
    sys.exit(1 if FAILURES else 0)


def subscribe(site, receiver, events):
    status, body = site.api("POST", "webhooks", {"name": receiver.name, "url": receiver.url, "events": events})
    check(status == 201 and body.get("secret", "").startswith("whsec_"), f"subscribing {receiver.name}: {status} {body}")
    receiver.secret = body["secret"]


def run_checks(site, demo_hash):
    ok, flaky, hang = Receiver("ok"), Receiver("flaky"), Receiver("hang")
    # A listener on another loopback address, which the site's allow-list does not name: its
    # subscription is refused, through the API, and it must receive nothing all run.
    outside = Receiver("outside", host="127.0.0.2")
    status, body = site.api("POST", "webhooks", {"name": outside.name, "url": outside.url, "events": "*"})
    check(status == 400 and "allow_targets" in body.get("error", ""), f"a loopback receiver not in allow_targets was subscribed: {status} {body}")
    status, body = site.api("POST", "webhooks", {"name": outside.name, "url": outside.url, "events": "*", "allow_http": True})
    check(status == 400, f"a token widened the target policy with allow_http: {status} {body}")
    subscribe(site, ok, "*")
    subscribe(site, flaky, ["user.changed"])
    hang.hang = True
    subscribe(site, hang, "*")
    # hang is sent its own webhook_add (site.changed) and holds it.
    check(hang.wait(lambda r: len(r.requests) >= 1, 5), "hang was never sent its first message")

    # A forced door, while hang holds a request: at ok within a second.
    sent = time.monotonic()
    check(site.door_record("forced_open").status_code == 200, "the door's forced_open record was not taken")
    check(ok.wait(lambda r: any(p["type"] == "door.alert" for _, _, p in r.delivered), 5), "no door.alert reached ok")
    alerts = ok.payloads("door.alert")
    if alerts:
        latency = alerts[0][0] - sent
        print(f"webhooks: forced door to ok's 200: {latency * 1000:.0f} ms (hang holding a request)", file=sys.stderr)
        check(latency < 1.0, f"the forced door took {latency:.2f} s to reach ok")
        data = alerts[0][2]["data"]
        check(data.get("type") == "forced_open" and data.get("terminal_id") == "door-1", f"door.alert data: {data}")

    # The site's decisions, without the PIN; a code, without the code.
    check(site.attempt("1234") == "granted", "the demo PIN was not granted")
    check(site.attempt("9876") == "denied", "a wrong PIN was not denied")
    code = site.run("verifier", "code", "issue", "--user", "demo", "--config", site.config).strip().split()[-1]
    check(ok.wait(lambda r: len(r.payloads("access.decided")) >= 2 and r.payloads("code.changed"), 5), "decisions or the code did not reach ok")
    decisions = [p["data"] for _, _, p in ok.payloads("access.decided")]
    check([d.get("decision") for d in decisions] == ["granted", "denied"], f"access.decided: {decisions}")
    with ok.lock:
        bodies = [json.dumps(p) for _, _, p in ok.delivered]
    check(not any('"1234"' in b or "9876" in b or code in b for b in bodies), "a PIN or code appears in a delivered event")

    # flaky fails once: the same webhook-id again after the backoff, then the rest in order.
    flaky.fail = 1
    for name in ("a1", "a2", "a3"):
        status, body = site.api("POST", "users", {"name": name, "pin_hash": demo_hash})
        check(status == 201, f"POST users {name}: {status} {body}")
    check(flaky.wait(lambda r: len(r.delivered) >= 3, 20), f"flaky got {len(flaky.delivered)} of 3 after failing once")
    with flaky.lock:
        first_try = flaky.requests[0][1]
        order = [p["data"].get("user") for _, _, p in flaky.delivered]
        first_delivered = flaky.delivered[0][1] if flaky.delivered else None
        retry_wait = flaky.delivered[0][0] - flaky.requests[0][0] if flaky.delivered else 0
    check(first_delivered == first_try, "the retried message had a new webhook-id")
    check(order == ["a1", "a2", "a3"], f"flaky got the users out of order: {order}")
    print(f"webhooks: flaky's retry came {retry_wait:.1f} s after the 503", file=sys.stderr)

    # SIGKILL with flaky's deliveries queued (failing) and hang holding one in flight.
    flaky.fail = -1
    for name in ("b1", "b2", "b3"):
        site.api("POST", "users", {"name": name, "pin_hash": demo_hash})
    check(flaky.wait(lambda r: any(s == 503 for _, _, s in r.requests[3:]), 10), "flaky was not tried while failing")
    with hang.lock:
        in_flight = hang.requests[-1][1]
    cursor, before = follow(site, 0)
    site.kill()
    flaky.fail = 0
    hang.hang = False
    site.start()
    check(flaky.wait(lambda r: len(r.delivered) >= 6, 60), f"after the restart flaky got {len(flaky.delivered) - 3} of 3 queued users")
    with flaky.lock:
        order = [p["data"].get("user") for _, _, p in flaky.delivered]
    check(order[3:] == ["b1", "b2", "b3"], f"flaky's queued users after the restart: {order[3:]}")
    check(hang.wait(lambda r: any(message == in_flight for _, message, _ in r.delivered), 60), "the message in flight at the kill was not sent again")
    for receiver in (ok, flaky, hang):
        with receiver.lock:
            check(not receiver.invalid, f"{receiver.name} got deliveries that do not verify: {receiver.invalid}")
            ids = [message for _, message, _ in receiver.delivered]
            users = [(p["type"], json.dumps(p["data"], sort_keys=True)) for _, _, p in receiver.delivered]
        check(len(set(users)) == len(set(ids)), f"{receiver.name}: one event was sent under two webhook-ids")
    check(ok.wait(lambda r: {"a1", "a2", "a3", "b1", "b2", "b3"} <= {p["data"].get("user") for _, _, p in r.payloads("user.changed")}, 10),
          "ok lost a user.changed")
    status, body = site.api("GET", "webhooks/flaky/deliveries")
    states = [d["state"] for d in body.get("deliveries", [])]
    check(status == 200 and set(states) == {"delivered"} and len(states) == 6, f"flaky's deliveries: {status} {states}")
    member_life(site, ok, demo_hash)
    # The audit followed across the restart: from the cursor kept before the kill, nothing
    # skipped or given twice.
    _, after = follow(site, cursor)
    _, whole = follow(site, 0)
    check(not set(before) & set(after), "records given again after the restart")
    check(before + after == whole, f"the feed across the restart: {len(before)} + {len(after)} records, {len(whole)} in all")
    mia = [r["record"].get("action") for r in after_records(site, cursor) if r["record"].get("user") == "mia" and "action" in r["record"]]
    check(mia[:1] == ["user_add"] and mia[-1:] == ["user_remove"], f"mia's changes in the feed: {mia}")
    with outside.lock:
        check(not outside.requests, f"the refused receiver on 127.0.0.2 was sent {len(outside.requests)} requests")


def after_records(site, after):
    status, page = site.api("GET", f"audit?after={after}&limit=1000")
    return page.get("records", []) if status == 200 else []


def follow(site, after):
    """Reads the audit log from `after` to its end, a page at a time; the last id and the ids."""
    ids = []
    while True:
        status, page = site.api("GET", f"audit?after={after}&limit=7")
        check(status == 200, f"GET audit: {status} {page}")
        if status != 200 or not page["records"]:
            return after, ids
        ids += [record["id"] for record in page["records"]]
        after = page["next"]


def member_life(site, ok, demo_hash):
    """A member joins, gets a card, changes doors and dates, hosts a visitor, is disabled and
    enabled, and leaves: through the API with one token, each step tried at a door."""
    def step(method, path, body, expected, what):
        status, answer = site.api(method, path, body)
        check(status == expected, f"{what}: {status} {answer}")
        return answer

    step("POST", "users", {"name": "mia", "pin_hash": demo_hash, "doors": ["door-1"]}, 201, "mia joins")
    step("POST", "users/mia/cards", {"number": "10048576"}, 201, "mia's card")
    check(site.attempt("10048576", kind="card") == "granted", "mia's card at door-1")
    check(site.attempt("10048576", kind="card", door="door-2") == "denied", "mia's card at door-2, not hers")
    step("PATCH", "users/mia", {"doors": ["door-1", "door-2"]}, 200, "mia gets door-2")
    check(site.attempt("10048576", kind="card", door="door-2") == "granted", "mia's card at door-2 after the change")
    step("PATCH", "users/mia", {"valid_until": "2020-01-01"}, 200, "mia's membership lapses")
    check(site.attempt("10048576", kind="card") == "denied", "mia's card after her end date")
    step("PATCH", "users/mia", {"valid_until": None}, 200, "mia renews")
    code = step("POST", "users/mia/codes", {"minutes": 60, "door": "door-1"}, 201, "a code for mia's visitor").get("code", "")
    check(site.attempt(code, kind="code") == "granted", "the visitor's code")
    check(site.attempt(code, kind="code") == "denied", "the visitor's code a second time")
    step("POST", "users/mia/disable", None, 200, "mia disabled")
    check(site.attempt("10048576", kind="card") == "denied", "mia's card while disabled")
    step("POST", "users/mia/enable", None, 200, "mia enabled")
    check(site.attempt("10048576", kind="card") == "granted", "mia's card enabled again")
    step("DELETE", "users/mia", None, 200, "mia leaves")
    check(site.attempt("10048576", kind="card") == "denied", "mia's card after she left")
    step("GET", "users/mia", None, 404, "mia is gone")
    actions = lambda: [p["data"].get("action") for _, _, p in ok.delivered if p["data"].get("user") == "mia" and "action" in p["data"]]
    wanted = ["user_add", "card_add", "user_rule", "user_rule", "user_rule", "code_issue", "user_disable", "user_enable", "user_remove"]
    check(ok.wait(lambda r: actions() == wanted, 10), f"ok saw mia's changes as {actions()}")
    with ok.lock:
        check(not any(code in json.dumps(p) or "10048576" in json.dumps(p) for _, _, p in ok.delivered), "a code or card number in an event")


if __name__ == "__main__":
    main()
