#!/usr/bin/env python3
"""Door answers while the site server is flooded: /verify latency (p50, p99) from 20
terminals at the default PBKDF2 cost (the demo user of config/users.example, 75,000
iterations), first quiet; then while 4 clients post console logins with unknown names as
fast as they are answered, each from its own run of loopback addresses (127.x.y.z; the
console refuses an address after 10 failures, so the flood moves on to a new one); then
while one door (the site secret) posts batches of 50 records with 900-byte fields to
/v1/events as fast as they are answered, ignoring 429 and Retry-After (its quota), with the
database's growth. One `kioskpad verifier serve` on SQLite, console on, one administrator
(600,000 iterations).
Usage:
  Benchmarks/Floods/floods.py BINARY [SECONDS]
BINARY is a `kioskpad` (the site server beside it as `kioskpad-verifier`)."""
import base64
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from door_requests import signed_headers, verify_body  # noqa: E402  (a door's signed request)

TERMINALS = 20
FLOODERS = 4
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def signed_verify(port, secret, terminal):
    """One signed /verify of the demo PIN; (seconds, status)."""
    attempt = str(uuid.uuid4())
    body = verify_body(terminal, "1234", attempt)
    headers = signed_headers(secret, terminal, body, attempt)
    start = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("POST", "/verify", body, headers)
        response = connection.getresponse()
        answer = response.read()
        connection.close()
        status = response.status if b'"granted"' in answer else f"{response.status} not granted"
    except OSError as error:
        status = f"error: {error}"
    return time.monotonic() - start, status


def terminal_loop(port, secret, index, stop, results):
    while not stop.is_set():
        results.append(signed_verify(port, secret, f"door-{index}"))


def flood_loop(port, index, stop, counts):
    """Unknown-name logins, 9 per source address (under the console's limit of 10)."""
    address = 0
    while not stop.is_set():
        address += 1
        source = f"127.{10 + index}.{address // 250 % 250}.{address % 250 + 1}"
        for _ in range(9):
            if stop.is_set():
                return
            token = uuid.uuid4().hex
            form = f"login_token={token}&name=nobody{uuid.uuid4().hex[:8]}&password=not-the-password"
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
                connection.request("POST", "/console/login", form, {
                    "content-type": "application/x-www-form-urlencoded", "cookie": f"kp_login={token}"})
                status = connection.getresponse().status
                connection.close()
            except OSError:
                status = "error"
            counts[status] = counts.get(status, 0) + 1


def events_loop(port, secret, stop, counts):
    """Signed batches of 50 records, 900-byte fields, from one door, without pause. A batch is
    made and signed once a second and sent again until then (new records each second), so the
    flooding client, on the same two cores, costs little beside the server it floods."""
    seq, made, body, headers = 0, 0.0, "", {}
    while not stop.is_set():
        if time.monotonic() - made >= 1.0:
            records = []
            for _ in range(50):
                seq += 1
                records.append({"type": "kioskpad.fault", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                "data": {"seq": seq, "id": str(uuid.uuid4()), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                         "type": "fault", "terminal_id": "flood-door", "detail": "x" * 900}})
            body = json.dumps(records, separators=(",", ":"))
            headers = signed_headers(secret, "flood-door", body)
            made = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("POST", "/v1/events", body, headers)
            status = connection.getresponse().status
            connection.close()
        except OSError:
            status = "error"
        counts[status] = counts.get(status, 0) + 1


def database_bytes(work):
    return sum(os.path.getsize(os.path.join(work, name)) for name in os.listdir(work) if name.startswith("verifier.sqlite3"))


def phase(name, port, console, secret, seconds, flood, events=False):
    stop = threading.Event()
    results, counts = [], {}
    threads = [threading.Thread(target=terminal_loop, args=(port, secret, i, stop, results)) for i in range(TERMINALS)]
    if flood:
        threads += [threading.Thread(target=flood_loop, args=(console, i, stop, counts)) for i in range(FLOODERS)]
    if events:
        threads += [threading.Thread(target=events_loop, args=(port, secret, stop, counts)) for _ in range(FLOODERS)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    latencies = sorted(r[0] for r in results if r[1] == 200)
    failed = [r[1] for r in results if r[1] != 200]
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000 if latencies else float("nan")
    print(f"{name}: /verify granted {len(latencies)} in {seconds} s, p50 {p50:.0f} ms, p99 {p99:.0f} ms, "
          f"not granted or failed {len(failed)} {sorted(set(map(str, failed)))[:3]}; flood answers {counts}")
    return p99


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    work = tempfile.mkdtemp(prefix="kp-login-flood-")
    port, console = free_port(), free_port()
    secret_text = subprocess.run([binary, "verifier", "secret"], capture_output=True, text=True, check=True).stdout.strip()
    with open(f"{work}/secret", "w") as f:
        f.write(secret_text + "\n")
    os.chmod(f"{work}/secret", 0o600)
    config = f"{work}/verifier.yaml"
    with open(config, "w") as f:
        f.write(f"server:\n  listen: 127.0.0.1:{port}\n  state_dir: {work}\n  secret_file: {work}/secret\n"
                f"  console:\n    enabled: true\n    listen: 127.0.0.1:{console}\n")
    subprocess.run([binary, "verifier", "import", "--users-file", f"{ROOT}/config/users.example", "--config", config],
                   check=True, capture_output=True)
    subprocess.run([binary, "verifier", "admin", "add", "alice", "--role", "owner", "--config", config], input="a long admin password\n",
                   text=True, check=True, capture_output=True)
    server = subprocess.Popen([binary, "verifier", "serve", "--config", config], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                socket.create_connection(("127.0.0.1", console), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        secret = base64.b64decode(secret_text.removeprefix("whsec_"))
        phase("warm-up", port, console, secret, 3, False)
        quiet = phase("quiet", port, console, secret, seconds, False)
        flooded = phase("console login flood", port, console, secret, seconds, True)
        print(f"p99 with the login flood / quiet p99: {flooded / quiet:.2f}")
        before = database_bytes(work)
        evented = phase("event flood from one door", port, console, secret, seconds, False, events=True)
        print(f"p99 with the event flood / quiet p99: {evented / quiet:.2f}; database and WAL grew "
              f"{(database_bytes(work) - before) / 1e6:.1f} MB (from {before / 1e6:.1f} MB)")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
