"""Schemathesis hooks for KioskPad's site server: every request is signed the way a door signs
it (Standard Webhooks, HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>"), after
Schemathesis has built the body, so the server checks what the fuzzer generated rather than
refusing it as unsigned. The site secret comes from KIOSKPAD_FUZZ_SECRET_FILE.

A batch of events has each record's valid `time` and `timestamp` set to now, as a door's are,
so that the server's window (5 minutes ahead, `keep_days` back), which a schema cannot state,
does not refuse every generated batch before the rest of it is checked; an invalid time is
sent as generated.

A request carries `kioskpad-terminal` only when Schemathesis generated that header. A valid one
is then set to the door the body names, as a door sends it (the document states in words that
the two must agree, which a schema cannot); an invalid one is sent as generated. The server
takes the key by it: the site secret, as no door in the fuzzed database has one of its own.

A valid `kioskpad-wait-ms` is raised to at least 10 s, as long as a door could wait: a shorter
wait is a request the verifier may rightly answer 503 (decided after the door stopped
waiting), which is no fault of the schema; an invalid one is sent as generated (ignored).

A push-channel request (`/v1/watch`) whose body is an object waits 1 s at most: a valid
`wait_s` (10.0 too, a whole number) is set to 1, and one left out or null is added as 1, since the site would otherwise hold the
request for up to 55 s (25 by default), past the fuzzer's 10 s request timeout; an invalid one
is sent as generated.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import time
import uuid
from datetime import datetime

import requests
import schemathesis

with open(os.environ["KIOSKPAD_FUZZ_SECRET_FILE"]) as secret_file:
    SECRET = base64.b64decode(secret_file.read().strip().removeprefix("whsec_"))


TERMINAL_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def valid_time(text):
    """Whether `text` is an RFC 3339 date-time (a real one: not 12:99)."""
    if not isinstance(text, str) or not RFC3339.fullmatch(text):
        return False
    try:
        datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def dated_now(body):
    """A batch's body with each record's valid time and timestamp now; any other body as it is."""
    try:
        batch = json.loads(body)
    except ValueError:
        return body
    if not isinstance(batch, list):
        return body
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for envelope in batch:
        if not isinstance(envelope, dict):
            continue
        if valid_time(envelope.get("timestamp")):
            envelope["timestamp"] = now
        data = envelope.get("data")
        if isinstance(data, dict) and valid_time(data.get("time")):
            data["time"] = now
    return json.dumps(batch).encode()


def short_wait(body):
    """A push-channel body with a valid or missing wait_s set to 1; any other body as it is."""
    try:
        value = json.loads(body)
    except ValueError:
        return body
    if not isinstance(value, dict):
        return body
    wait = value.get("wait_s", 1)
    if wait is None:
        wait = 1
    # A whole number, as JSON Schema counts one: 10.0 too.
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait == int(wait) and 1 <= wait <= 55:
        value["wait_s"] = 1
        return json.dumps(value).encode()
    return body


def named_terminal(body):
    """The terminal_id the body names (a request's, or a batch's first record's), if any."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, list) and value and isinstance(value[0], dict) and isinstance(value[0].get("data"), dict):
        value = value[0]["data"]
    named = value.get("terminal_id") if isinstance(value, dict) else None
    return named if isinstance(named, str) and TERMINAL_ID.fullmatch(named) else None


class DoorSignature(requests.auth.AuthBase):
    """Adds fresh Standard Webhooks headers over the prepared request's exact body bytes."""

    def __call__(self, request):
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        if request.path_url.startswith("/v1/events"):
            body = dated_now(body)
            request.body = body
            request.headers["Content-Length"] = str(len(body))
        if request.path_url.startswith("/v1/watch"):
            body = short_wait(body)
            request.body = body
            request.headers["Content-Length"] = str(len(body))
        claimed = request.headers.get("kioskpad-terminal")
        named = named_terminal(body)
        if claimed is not None and TERMINAL_ID.fullmatch(claimed) and named is not None:
            request.headers["kioskpad-terminal"] = named
        wait = request.headers.get("kioskpad-wait-ms")
        if wait is not None and re.fullmatch(r"[1-9][0-9]{0,5}", wait):
            request.headers["kioskpad-wait-ms"] = str(max(int(wait), 10000))
        webhook_id, timestamp = str(uuid.uuid4()), str(int(time.time()))
        mac = hmac.new(SECRET, f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        request.headers["webhook-id"] = webhook_id
        request.headers["webhook-timestamp"] = timestamp
        request.headers["webhook-signature"] = "v1," + base64.b64encode(mac).decode()
        return request


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() == "POST":
        kwargs["auth"] = DoorSignature()
