#!/usr/bin/env python3
"""A loopback OsmAnd-protocol server, as Traccar runs on port 5055, for tests (Python stdlib only).

Written from Traccar's published protocol (https://www.traccar.org/osmand/) and its decoder
(OsmAndProtocolDecoder): any HTTP method; the parameters in the query string, or, when it has none,
in a form body; "id" or "deviceid" names the device; a device the server does not know, or a
request without one, is answered 400 Bad Request; a position is answered 200 with an empty body.

    osmand-server.py --devices ID[,ID...] --records FILE [--port N] [--script TOKENS]
                     [--tls-cert PEM --tls-key PEM]

Prints "listening PORT" on stdout once it accepts connections (port 0 picks a free one). Binds
127.0.0.1 only. With --tls-cert and --tls-key (PEM files) it serves HTTPS.

--script: comma-separated answers used one per request in arrival order, then "auto" for all:
    auto      the protocol above
    STATUS    that status with an empty body, e.g. 500, 503
    close     closes the connection without answering (what Traccar does when its decoder fails)

Each record (one JSON line): {"method", "path", "params" (name -> text; a repeated name keeps its
last value), "in_body" (true when the parameters came from the body), "status" (0 for close),
"token", "received" (Unix seconds, float)}.
"""
import argparse
import time
from urllib.parse import parse_qsl, urlsplit

from loopback_server import QuietHandler, Records, ResponseScript, serve


class Handler(QuietHandler):
    devices = set()
    script = None
    records = None

    def handle_any(self):
        body = self.read_body()
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        in_body = False
        if not params and body:
            params = dict(parse_qsl(body.decode("ascii", "replace"), keep_blank_values=True))
            in_body = True
        token = self.script.next()
        entry = {"method": self.command, "path": url.path, "params": params, "in_body": in_body,
                 "status": 0, "token": token, "received": time.time()}
        if token == "close":
            self.records.write(entry)
            self.close_connection = True
            return
        if token != "auto":
            status = int(token)
        else:
            device = params.get("id", params.get("deviceid"))
            status = 200 if device in self.devices else 400
        entry["status"] = status
        self.records.write(entry)
        self.reply(status)

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", default="")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    args = parser.parse_args()
    Handler.devices = set(d for d in args.devices.split(",") if d)
    Handler.script = ResponseScript(args.script, "auto")
    Handler.records = Records(args.records)
    serve(Handler, args.port, args.tls_cert, args.tls_key)


if __name__ == "__main__":
    main()
