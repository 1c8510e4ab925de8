#!/usr/bin/env python3
"""A loopback OsmAnd-protocol server, as Traccar runs on port 5055, for tests (Python stdlib only).

Written from Traccar's published protocol (https://www.traccar.org/osmand/) and its decoder
(OsmAndProtocolDecoder): any HTTP method; the parameters in the query string, or, when it has none,
in a form body; "id" or "deviceid" names the device; a device the server does not know, or a
request without one, is answered 400 Bad Request; a position is answered 200 with an empty body.

    osmand-server.py --devices ID[,ID...] --records FILE [--port N] [--script TOKENS]

Prints "listening PORT" on stdout once it accepts connections (port 0 picks a free one). Binds
127.0.0.1 only.

--script: comma-separated answers used one per request in arrival order, then "auto" for all:
    auto      the protocol above
    STATUS    that status with an empty body, e.g. 500, 503
    close     closes the connection without answering (what Traccar does when its decoder fails)

Each record (one JSON line): {"method", "path", "params" (name -> text; a repeated name keeps its
last value), "in_body" (true when the parameters came from the body), "status" (0 for close),
"token", "received" (Unix seconds, float)}.
"""
import argparse
import json
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


class State:
    def __init__(self, devices, script, records_path):
        self.devices = set(devices)
        self.script = list(script)
        self.records = open(records_path, "a", buffering=1)
        self.lock = threading.Lock()

    def next_token(self):
        with self.lock:
            return self.script.pop(0) if self.script else "auto"

    def record(self, entry):
        with self.lock:
            self.records.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    state = None

    def log_message(self, format, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        in_body = False
        if not params and body:
            params = dict(parse_qsl(body.decode("ascii", "replace"), keep_blank_values=True))
            in_body = True
        token = self.state.next_token()
        entry = {"method": self.command, "path": url.path, "params": params, "in_body": in_body,
                 "status": 0, "token": token, "received": time.time()}
        if token == "close":
            self.state.record(entry)
            self.close_connection = True
            return
        if token != "auto":
            status = int(token)
        else:
            device = params.get("id", params.get("deviceid"))
            status = 200 if device in self.state.devices else 400
        entry["status"] = status
        self.state.record(entry)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", default="")
    args = parser.parse_args()
    # A child of a Swift test process inherits the spawning thread's signal mask, in which SIGTERM
    # is blocked; without this, terminate() would never stop the server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    Handler.state = State([d for d in args.devices.split(",") if d],
                          [t for t in args.script.split(",") if t], args.records)
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
