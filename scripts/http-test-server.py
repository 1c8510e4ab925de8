#!/usr/bin/env python3
"""A loopback HTTP/1.1 server for the HTTP client's tests (Python stdlib only, raw sockets, so that
every framing and connection behaviour is what the test asks for, not what http.server does; the
records are loopback_server.py's).

    http-test-server.py --records FILE [--port N] [--ipv6]

Prints "listening PORT" on stdout once it accepts connections (port 0 picks a free one). Binds
127.0.0.1 (::1 with --ipv6) only. Keep-alive by default. What it answers depends on the path:
    /ok                 200, Content-Length, body "ok"
    /chunked            200, Transfer-Encoding: chunked with chunk extensions and a trailer
    /close              200 with Connection: close, then closes
    /until-close        200 without Content-Length: the body ends when the connection does
    /idle-close         200 (keep-alive announced), then closes the connection at once, as a
                        server does when its idle timeout passes
    /drop-if-reused     closes without answering when the request is not the connection's
                        first, else 200
    /never…             reads the request and never answers
    /retry-after/N      503 with Retry-After: N
    /retry-after-date/N 429 with Retry-After: an HTTP date N seconds from now
    /big/N              200 with N bytes of body ("x" repeated)
    /continue           100 Continue, then 200
    /garbage            a line that is not a status line
    /empty              closes without answering
    /reset              reads the request, then resets the connection (RST: SO_LINGER 0)
    anything else       404

Each record (one JSON line): {"connection" (1, 2, … in accept order), "request" (1, 2, … on
that connection), "method", "path", "headers" (lower-case name -> value), "body" (text)}.
"""
import argparse
import email.utils
import socket
import struct
import sys
import threading
import time

from loopback_server import Records, unblock_stop_signals


def read_request(stream):
    """(method, path, headers, body) or None at the end of the connection."""
    line = stream.readline()
    if not line:
        return None
    method, path, _ = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
    headers = {}
    while True:
        line = stream.readline().decode("latin-1").rstrip("\r\n")
        if not line:
            break
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = stream.read(int(headers.get("content-length", "0")))
    return method, path, headers, body


def response(status, reason, body=b"", extra=""):
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n{extra}\r\n").encode() + body


def serve_connection(connection, number, records):
    stream = connection.makefile("rb")
    request_number = 0
    try:
        while True:
            request = read_request(stream)
            if request is None:
                return
            request_number += 1
            method, path, headers, body = request
            records.write({"connection": number, "request": request_number, "method": method, "path": path,
                           "headers": headers, "body": body.decode("utf-8", "replace")})
            if path.startswith("http://"):
                # Absolute-form (a request to a proxy): answered as the origin would, by its path.
                path = "/" + path.split("/", 3)[3] if path.count("/") >= 3 else "/"
            if path == "/ok":
                connection.sendall(response(200, "OK", b"ok"))
            elif path == "/chunked":
                connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                   b"5;name=value\r\nhello\r\n"
                                   b"9\r\n, chunked\r\n"
                                   b"6 ; last\r\n world\r\n"
                                   b"0\r\nX-Checksum: abc\r\n\r\n")
            elif path == "/close":
                connection.sendall(response(200, "OK", b"bye", "Connection: close\r\n"))
                return
            elif path == "/until-close":
                connection.sendall(b"HTTP/1.1 200 OK\r\n\r\nthe body ends with the connection")
                return
            elif path == "/idle-close":
                connection.sendall(response(200, "OK", b"ok", "Connection: keep-alive\r\n"))
                return
            elif path == "/drop-if-reused":
                if request_number > 1:
                    return
                connection.sendall(response(200, "OK", b"ok"))
            elif path.startswith("/never"):
                while stream.read(1):
                    pass
                return
            elif path.startswith("/retry-after/"):
                connection.sendall(response(503, "Service Unavailable", b"", f"Retry-After: {path.rsplit('/', 1)[1]}\r\n"))
            elif path.startswith("/retry-after-date/"):
                date = email.utils.formatdate(time.time() + int(path.rsplit("/", 1)[1]), usegmt=True)
                connection.sendall(response(429, "Too Many Requests", b"", f"Retry-After: {date}\r\n"))
            elif path.startswith("/big/"):
                connection.sendall(response(200, "OK", b"x" * int(path.rsplit("/", 1)[1])))
            elif path == "/continue":
                connection.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" + response(200, "OK", b"after 100"))
            elif path == "/garbage":
                connection.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
                return
            elif path == "/empty":
                return
            elif path == "/reset":
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            else:
                connection.sendall(response(404, "Not Found"))
    except (ConnectionError, ValueError):
        pass
    finally:
        try:
            connection.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ipv6", action="store_true")
    args = parser.parse_args()
    unblock_stop_signals()
    records = Records(args.records)
    listener = socket.socket(socket.AF_INET6 if args.ipv6 else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("::1" if args.ipv6 else "127.0.0.1", args.port))
    listener.listen(64)
    print(f"listening {listener.getsockname()[1]}", flush=True)
    number = 0
    while True:
        connection, _ = listener.accept()
        number += 1
        threading.Thread(target=serve_connection, args=(connection, number, records), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
