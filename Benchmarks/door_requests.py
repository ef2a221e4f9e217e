"""What the Python benchmarks send as a door: the headers of a request signed as a door signs
it (Standard Webhooks with the door's or the site's secret, the door named in
kioskpad-terminal), and the body of a /verify attempt."""
import base64
import hashlib
import hmac
import json
import time
import uuid


def signed_headers(secret, terminal, body, webhook_id=None):
    """The headers of a door's signed POST of `body` (`secret`: the raw key bytes)."""
    webhook_id = webhook_id or str(uuid.uuid4())
    timestamp = str(int(time.time()))
    mac = hmac.new(secret, f"{webhook_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {"content-type": "application/json", "webhook-id": webhook_id, "webhook-timestamp": timestamp,
            "webhook-signature": "v1," + base64.b64encode(mac).decode(), "kioskpad-terminal": terminal}


def verify_body(terminal, pin, attempt):
    """A /verify body for `pin` typed at `terminal`, attempt id `attempt`."""
    return json.dumps({"terminal_id": terminal, "kind": "pin", "value": pin, "attempt_id": attempt,
                       "entered_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, separators=(",", ":"))
