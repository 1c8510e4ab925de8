#!/usr/bin/env python3
"""A Standard Webhooks receiver for tests and benchmarks (Python standard library only).

Verifies every request's signature independently of livelocd's code (hmac + base64 here), records
each request as one JSON line, deduplicates by webhook-id, and answers from a script.

    webhook-receiver.py --secret-file FILE --records FILE [--port N] [--script TOKENS]
                        [--default STATUS] [--tls-cert PEM --tls-key PEM]

Prints "listening PORT" on stdout once it accepts connections (port 0 picks a free one), then
nothing more on stdout. Binds 127.0.0.1 only.

--script is a comma-separated list of answers, used one per request in arrival order; when it runs
out, every request gets --default (200). Tokens:
    STATUS          e.g. 200, 204, 400, 500, 410
    STATUS:SECONDS  STATUS with "Retry-After: SECONDS", e.g. 429:2, 503:1
    301 / 302 / 307 a redirect with "Location: /moved" (a client must not follow it)
    drip:SECONDS    sends a 200 status line and headers promising 1000 bytes, then one byte every
                    100 ms for SECONDS and closes: an answer slower than the client's timeout
    close           closes the connection without answering
    slow:SECONDS    waits SECONDS, then answers 200 (a slow receiver)

Each record: {"id", "timestamp", "signature", "signature_valid", "timestamp_fresh", "body",
"content_type", "path", "response", "duplicate", "received"}. "duplicate" is true when a 2xx was already sent for that
webhook-id (the receiver deduplicates: a repeat is acknowledged but is not new). "response" is the
token used. "received" is the arrival time, Unix seconds (float).
"""
import argparse
import base64
import hashlib
import hmac
import threading
import time

from loopback_server import QuietHandler, Records, ResponseScript, serve


def load_keys(path):
    keys = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if not line.startswith("whsec_"):
                raise SystemExit(f"{path}: not a whsec_ secret")
            keys.append(base64.b64decode(line[len("whsec_"):], validate=True))
    if not keys:
        raise SystemExit(f"{path}: no secret")
    return keys


def signature_valid(keys, msg_id, timestamp, body, header):
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = [base64.b64encode(hmac.new(k, signed, hashlib.sha256).digest()).decode() for k in keys]
    for part in header.split(" "):
        version, _, value = part.partition(",")
        if version == "v1" and any(hmac.compare_digest(value, e) for e in expected):
            return True
    return False


class Handler(QuietHandler):
    keys = []
    script = None
    records = None
    acknowledged = set()
    lock = threading.Lock()

    def record(self, entry, acknowledged_id=None):
        """Records `entry`, marked a duplicate when its webhook-id was acknowledged before."""
        with self.lock:
            entry["duplicate"] = entry["id"] in self.acknowledged
            if acknowledged_id is not None:
                self.acknowledged.add(acknowledged_id)
        self.records.write(entry)

    def do_POST(self):
        body = self.read_body()
        msg_id = self.headers.get("webhook-id", "")
        timestamp = self.headers.get("webhook-timestamp", "")
        signature = self.headers.get("webhook-signature", "")
        try:
            fresh = abs(time.time() - int(timestamp)) <= 300
        except ValueError:
            fresh = False
        token = self.script.next()
        entry = {
            "id": msg_id, "timestamp": timestamp, "signature": signature,
            "signature_valid": signature_valid(self.keys, msg_id, timestamp, body, signature),
            "timestamp_fresh": fresh, "body": body.decode("utf-8", "replace"),
            "content_type": self.headers.get("Content-Type", ""),
            "path": self.path, "response": token, "received": time.time(),
        }
        if token == "close":
            self.record(entry)
            self.close_connection = True
            return
        if token.startswith("drip:"):
            self.record(entry)
            seconds = float(token.split(":", 1)[1])
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            deadline = time.time() + seconds
            try:
                while time.time() < deadline:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
            self.close_connection = True
            return
        if token.startswith("slow:"):
            time.sleep(float(token.split(":", 1)[1]))
            token = "200"
            entry["response"] = token
        status, _, retry_after = token.partition(":")
        status = int(status)
        self.record(entry, msg_id if 200 <= status < 300 else None)
        reply = b"{}" if 200 <= status < 300 else f"status {status}\n".encode()
        headers = [("Retry-After", retry_after)] if retry_after else []
        if status in (301, 302, 303, 307, 308):
            headers.append(("Location", "/moved"))
        self.reply(status, reply, "application/json", headers)

    def do_GET(self):
        # /moved: if a client ever follows a redirect, it shows up here.
        self.record({"id": "", "timestamp": "", "signature": "", "signature_valid": False,
                           "timestamp_fresh": False, "body": "", "content_type": "", "path": self.path,
                           "response": "GET " + self.path, "received": time.time()})
        self.reply(404)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret-file", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", default="")
    parser.add_argument("--default", default="200")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    args = parser.parse_args()
    Handler.keys = load_keys(args.secret_file)
    Handler.script = ResponseScript(args.script, args.default)
    Handler.records = Records(args.records)
    serve(Handler, args.port, args.tls_cert, args.tls_key)


if __name__ == "__main__":
    main()
