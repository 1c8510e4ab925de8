"""What the tests' loopback HTTP servers share (webhook-receiver.py, telegram-bot-api.py,
osmand-server.py): the server loop, a quiet keep-alive handler, the scripted responses and the
JSON-lines record of what arrived. Each server is one file with its own contract on top of this."""
import json
import signal
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, as a real endpoint would; no access log on stderr."""
    protocol_version = "HTTP/1.1"
    # A buffered writer: a response's head and body leave in one write (one segment), as a web
    # server's small answer does (Traccar's Netty, Telegram's nginx), not two, which woke the
    # client's thread twice per answer; BaseHTTPRequestHandler flushes it after each request.
    wbufsize = 64 << 10
    # Without TCP_NODELAY a client would wait out a 40 ms delayed ACK on a response that leaves in
    # more than one segment.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length) if length else b""

    def reply(self, status, body=b"", content_type=None, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


class ResponseScript:
    """The responses a test asks for, in order (`--script a,b,c`), then `default` for ever."""

    def __init__(self, script, default):
        self.tokens = [token for token in script.split(",") if token]
        self.default = default
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            return self.tokens.pop(0) if self.tokens else self.default


class Records:
    """One JSON object per line, appended and flushed as each request is handled, so that a test
    can read what arrived while the server runs."""

    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, entry):
        with self.lock:
            self.file.write(json.dumps(entry) + "\n")


def unblock_stop_signals():
    """Lets SIGTERM and SIGINT stop this server. A child of a Swift process started from a
    libdispatch thread inherits that thread's signal mask, in which SIGTERM is blocked (the tests'
    runAsTestChild starts with an empty mask; a bench may not); without this, terminate() would
    never stop the server."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])


def serve(handler, port, tls_cert=None, tls_key=None):
    """Serves `handler` on 127.0.0.1:`port` (0: a free port) until SIGTERM or SIGINT, after
    printing `listening PORT` on stdout (the tests wait for that line)."""
    unblock_stop_signals()
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    if tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls_cert, tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
